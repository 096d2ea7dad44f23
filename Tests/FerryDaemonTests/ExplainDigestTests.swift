import FerryWire
import Foundation
import Glibc
import Testing

/// In-process: `explain` digests a file body through the reader a transfer would send it with.
@MainActor @Suite struct ExplainDigestTests {
  func explainedBody(_ d: InProcessDaemon, _ c: InProcessClient, file: String) -> JSONObject? {
    let before = c.events.count
    c.send(#"{"op":"explain","job":{"method":"PUT","url":"\#(d.url("/echo"))","body":{"file":"\#(file)"}}}"#)
    d.run(until: { c.events.count > before })
    return c.events.last?["body"]?.objectValue
  }

  @Test func aFileBodysDigestIsTheDigestOfItsContents() throws {
    let dir = NSTemporaryDirectory() + "ferry-explain-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let content = Array((0..<200_000).map { UInt8($0 % 251) })
    #expect(FileManager.default.createFile(atPath: dir + "/body", contents: Data(content)))
    // Jobs read files only under read roots (issue 12).
    let d = try InProcessDaemon(
      config: #"{"files": {"read_roots": ["\#(dir)"]}, "sessions": {"default": {}}}"#)
    defer { d.close() }
    let c = try d.connect()
    let body = explainedBody(d, c, file: dir + "/body")
    #expect(body?["sha256"]?.stringValue == SHA256.hex(content))
    #expect(body?.int("length") == 200_000)
  }
}
