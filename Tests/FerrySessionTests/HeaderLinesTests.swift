#if canImport(Glibc)
  import Glibc
#endif
import Testing

@testable import FerrySession

struct HeaderLinesTests {
  /// Appends each of `lines` as curl would hand it over; returns which ones completed a block.
  func append(_ lines: [String], to buffer: HeaderLines) -> [Bool] {
    lines.map { line in Array(line.utf8).withUnsafeBytes { buffer.append($0) } }
  }

  func drained(_ buffer: HeaderLines) -> [String] {
    var lines: [String] = []
    buffer.drain { lines.append(String(decoding: $0, as: UTF8.self)) }
    return lines
  }

  @Test func aBlankLineCompletesTheBlockAndDrainGivesBackEveryLineInOrder() {
    let buffer = HeaderLines()
    let ends = append(["HTTP/1.1 200 OK\r\n", "Server: x\r\n", "A: b\r\n", "\r\n"], to: buffer)
    #expect(ends == [false, false, false, true])
    #expect(drained(buffer) == ["HTTP/1.1 200 OK\r\n", "Server: x\r\n", "A: b\r\n", "\r\n"])
    // Drained means empty: the next block starts afresh.
    #expect(drained(buffer) == [])
  }

  @Test func aLineWithoutItsLineFeedStaysALineOfItsOwn() {
    let buffer = HeaderLines()
    #expect(append(["X: 1", "Y: 2\n", "\n"], to: buffer) == [false, false, true])
    #expect(drained(buffer) == ["X: 1\n", "Y: 2\n", "\n"])
  }

  @Test func linesAreTimedForTheIdleTimeoutAndResetForgetsEverything() {
    let buffer = HeaderLines()
    #expect(buffer.lastLineAtMs == 0)
    _ = append(["HTTP/2 204\r\n"], to: buffer)
    #expect(buffer.lastLineAtMs > 0)
    buffer.reset()
    #expect(buffer.lastLineAtMs == 0)
    #expect(drained(buffer) == [])
  }

  @Test func theClockIsReadOncePerCurlCall() {
    let buffer = HeaderLines()
    let calls = CurlCallCount()
    buffer.curlCalls = calls
    _ = append(["HTTP/1.1 200 OK\r\n"], to: buffer)
    let first = buffer.lastLineAtMs
    // Wait for the millisecond to turn (a busy wait of about a millisecond, no sleep).
    var spec = timespec()
    repeat {
      clock_gettime(CLOCK_MONOTONIC, &spec)
    } while UInt64(spec.tv_sec) * 1000 + UInt64(spec.tv_nsec) / 1_000_000 <= first
    // More lines in the same curl call came with the first: same moment.
    _ = append(["A: b\r\n"], to: buffer)
    #expect(buffer.lastLineAtMs == first)
    // A line of the next call is timed again.
    calls.count += 1
    _ = append(["C: d\r\n"], to: buffer)
    #expect(buffer.lastLineAtMs > first)
  }
}
