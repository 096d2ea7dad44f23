import FerryWire
import Glibc
import Testing

@testable import FerryKit

/// Lines that many callers submit at once on one connection arrive whole, in each caller's
/// order, each with its own descriptors (a line with `SCM_RIGHTS` never carries another's).
@Suite(.serialized) struct ConcurrentSubmitTests {
  @Test func linesOfManyCallersArriveWholeInOrderWithTheirDescriptors() async throws {
    let fake = try FakeDaemon()
    let client = try await fake.client(window: 10_000)
    defer { client.close() }
    let dir = KitPaths.tempDirectory("batch-files")
    let callers = 8
    let perCaller = 40
    await withTaskGroup(of: Void.self) { group in
      for c in 0..<callers {
        group.addTask {
          for k in 0..<perCaller {
            var request = FerryRequest("POST", "http://127.0.0.1:9/\(c)/\(k)")
            if k % 5 == 0 {
              let path = "\(dir)/\(c)-\(k)"
              _ = Self.writeFile(path, "\(c)/\(k)")
              request.body = .file(path: path)
            }
            _ = try? await client.submit(request)
          }
        }
      }
    }
    let lines = try #require(await fake.lines(callers * perCaller))
    var next = [Int](repeating: 0, count: callers)
    for line in lines {
      let url = Self.member("url", of: line.text) ?? "<\(line.text)>"
      let path = url.split(separator: "/").suffix(2).compactMap { Int($0) }
      guard path.count == 2, path[0] < callers else {
        Issue.record("not a job line of this test: \(line.text)")
        continue
      }
      #expect(
        path[1] == next[path[0]], "caller \(path[0]): job \(path[1]) came where \(next[path[0]]) was due")
      next[path[0]] = path[1] + 1
      if path[1] % 5 == 0 {
        #expect(line.descriptors.count == 1, "\(url): \(line.descriptors.count) descriptors")
        #expect(line.descriptors.first.map(Self.readAll) == "\(path[0])/\(path[1])")
      } else {
        #expect(line.descriptors.isEmpty, "\(url): \(line.descriptors.count) descriptors")
      }
    }
    #expect(next == [Int](repeating: perCaller, count: callers))
  }

  private static func member(_ name: String, of line: String) -> String? {
    guard case .object(let object)? = try? JSONReader().read(Array(line.utf8)) else { return nil }
    return object[name]?.stringValue
  }

  private static func writeFile(_ path: String, _ text: String) -> Bool {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    defer { close(fd) }
    return Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == text.utf8.count
  }

  private static func readAll(_ fd: Int32) -> String {
    var bytes = [UInt8](repeating: 0, count: 64)
    let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
    return String(decoding: bytes[..<max(n, 0)], as: UTF8.self)
  }
}
