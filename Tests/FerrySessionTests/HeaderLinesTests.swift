#if canImport(Glibc)
  import Glibc
#endif
import Testing

@testable import FerrySession

struct HeaderLinesTests {
  /// Hands each of `lines` over as curl would; returns which ones ended a block.
  func arrived(_ lines: [String], at header: HeaderLines) -> [Bool] {
    lines.map { line in Array(line.utf8).withUnsafeBytes { header.arrived($0) } }
  }

  @Test func onlyABlankLineEndsTheBlock() {
    let header = HeaderLines()
    let ends = arrived(["HTTP/1.1 200 OK\r\n", "Server: x\r\n", "A: b\r\n", "\r\n"], at: header)
    #expect(ends == [false, false, false, true])
    #expect(
      arrived(["\n", "", "\r", "X: 1", "\r\n\r\n", " \r\n", "ab"], at: header) == [
        true, true, true, false, true, false, false,
      ])
  }

  /// Lines are parsed as they come; the blank one is left for the transfer, whose
  /// `endBlock()` gives the head. A reset (a new hop) forgets a head half read.
  @Test func linesAreParsedAsTheyComeAndResetForgetsAHalfReadHead() {
    let header = HeaderLines()
    let lines = ["HTTP/1.1 200 OK\r\n", "Content-Type: text/plain\r\n", "\r\n"]
    let ends = lines.map { line in Array(line.utf8).withUnsafeBytes { header.took($0) } }
    #expect(ends == [false, false, true])
    guard case .complete(let head) = header.parser.endBlock() else {
      Issue.record("no head")
      return
    }
    #expect(head.status == 200 && head.header("content-type") == "text/plain")
    _ = Array("HTTP/1.1 301 Moved\r\n".utf8).withUnsafeBytes { header.took($0) }
    header.reset()
    #expect(header.parser.endBlock() == .none)
  }

  @Test func linesAreTimedForTheIdleTimeoutAndResetForgetsEverything() {
    let header = HeaderLines()
    #expect(header.lastLineAtMs == 0)
    _ = arrived(["HTTP/2 204\r\n"], at: header)
    #expect(header.lastLineAtMs > 0)
    header.reset()
    #expect(header.lastLineAtMs == 0)
  }

  @Test func theClockIsReadOncePerCurlCall() {
    let header = HeaderLines()
    let calls = CurlCallCount()
    header.curlCalls = calls
    _ = arrived(["HTTP/1.1 200 OK\r\n"], at: header)
    let first = header.lastLineAtMs
    // Wait for the millisecond to turn (a busy wait of about a millisecond, no sleep).
    var spec = timespec()
    repeat {
      clock_gettime(CLOCK_MONOTONIC, &spec)
    } while UInt64(spec.tv_sec) * 1000 + UInt64(spec.tv_nsec) / 1_000_000 <= first
    // More lines in the same curl call came with the first: same moment.
    _ = arrived(["A: b\r\n"], at: header)
    #expect(header.lastLineAtMs == first)
    // A line of the next call is timed again.
    calls.count += 1
    _ = arrived(["C: d\r\n"], at: header)
    #expect(header.lastLineAtMs > first)
  }
}
