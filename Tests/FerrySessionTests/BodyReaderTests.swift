import FerrySerializer
import FerryWire
import Testing

@testable import FerrySession

struct BodyReaderTests {
  /// Reads the whole body in chunks of `chunk` bytes.
  func readAll(_ reader: BodyReader, chunk: Int) -> [UInt8]? {
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: chunk)
    while true {
      let count = buffer.withUnsafeMutableBytes { reader.read(into: $0) }
      guard let count else { return nil }
      if count == 0 { return out }
      out += buffer[0..<count]
    }
  }

  @Test func streamsByteAndFileSegmentsInOrderWhateverTheChunkSize() {
    let fileBytes = patternBytes(10_000)
    let file = TempFile(fileBytes)
    defer { file.remove() }
    let plan = BodyPlan(segments: [
      .bytes(Array("--head--".utf8)), .file(path: file.path, offset: 100, length: 5_000), .bytes([]),
      .bytes(Array("--tail--".utf8)),
    ])
    let expected = Array("--head--".utf8) + Array(fileBytes[100..<5_100]) + Array("--tail--".utf8)
    for chunk in [1, 7, 4096, 100_000] {
      #expect(readAll(BodyReader(plan), chunk: chunk) == expected, "chunk \(chunk)")
    }
    #expect(BodyReader(plan).length == Int64(expected.count))
  }

  @Test func seeksBackForAResend() {
    let file = TempFile(patternBytes(300))
    defer { file.remove() }
    let plan = BodyPlan(segments: [.bytes([1, 2, 3]), .file(path: file.path, offset: 0, length: 300)])
    let reader = BodyReader(plan)
    let first = readAll(reader, chunk: 64)
    #expect(reader.seek(to: 0))
    #expect(readAll(reader, chunk: 50) == first)
    #expect(reader.seek(to: 2))
    #expect(readAll(reader, chunk: 50) == Array(first!.dropFirst(2)))
    #expect(!reader.seek(to: 304))
    #expect(reader.seek(to: 303))
    #expect(readAll(reader, chunk: 50) == [])
  }

  @Test func missingFileIsFileUnreadable() {
    let reader = BodyReader(
      BodyPlan(segments: [.bytes([1]), .file(path: "/nonexistent/ferry", offset: 0, length: 4)]))
    #expect(readAll(reader, chunk: 16) == nil)
    #expect(reader.error?.code == .fileUnreadable)
  }

  @Test func fileShorterThanPlannedIsFileUnreadable() {
    let file = TempFile(patternBytes(100))
    defer { file.remove() }
    let reader = BodyReader(BodyPlan(segments: [.file(path: file.path, offset: 0, length: 100)]))
    file.truncate(to: 40)
    #expect(readAll(reader, chunk: 16) == nil)
    #expect(reader.error?.code == .fileUnreadable)
  }
}
