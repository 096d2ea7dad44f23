import Foundation
import Glibc

@testable import FerryStore

/// A fresh private directory under /tmp, removed when the value goes.
final class TempDirectory {
  let path: String

  init(_ tag: String) {
    path = "/tmp/ferry-store-\(tag)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    mkdir(path, 0o700)
  }

  /// The journal's path in it.
  var journal: String { path + "/journal.db" }

  deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// The mode bits of `path` (`0o600`), or nil when it does not exist.
func fileMode(_ path: String) -> mode_t? {
  var info = stat()
  return stat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
}

func fileSize(_ path: String) -> Int? {
  var info = stat()
  return stat(path, &info) == 0 ? Int(info.st_size) : nil
}

/// A built product: from `$FERRY_PRODUCTS` when set (the release build), else the debug one.
func productPath(_ name: String) -> String {
  var url = URL(fileURLWithPath: #filePath)
  for _ in 0..<4 { url.deleteLastPathComponent() }
  let dir = ProcessInfo.processInfo.environment["FERRY_PRODUCTS"] ?? (url.path + "/.build/debug")
  return dir + "/" + name
}

/// A submission with the given id and user, its line derived from the id.
func sampleSubmission(
  _ id: String, uid: UInt32? = 1000, session: String = "default", lane: String? = nil,
  method: String = "GET", resendSafe: Bool = false
) -> JournalSubmission {
  JournalSubmission(
    id: id, uid: uid, session: session, lane: lane, method: method, declaresResendSafe: resendSafe,
    line: Array(#"{"id":"\#(id)","url":"http://127.0.0.1:9/x","durable":true}"#.utf8))
}

/// An event line of `seq`, `padding` bytes long when asked (with its `\n`).
func eventLine(_ seq: Int, _ name: String = "progress", padding: Int = 0) -> [UInt8] {
  var line = Array(#"{"event":"\#(name)","seq":\#(seq)}"#.utf8)
  if padding > line.count + 1 { line += [UInt8](repeating: 0x20, count: padding - line.count - 1) }
  return line + [10]
}

/// A fixed clock for the stored times.
final class FakeClock {
  var ms: Int64 = 1_764_633_600_000
  func now() -> Int64 { ms }
}

extension Journal {
  /// Opens with a fake clock, checks at open and the given bounds.
  static func openForTest(
    _ path: String, clock: FakeClock = FakeClock(), sync: JournalSync = .normal, maxEvents: Int = 256,
    maxBytes: Int = 1 << 20, busyTimeoutMs: Int = 1_000
  ) throws -> Journal {
    try Journal.open(
      path: path,
      options: Options(
        sync: sync, maxEventsPerJob: maxEvents, maxEventBytesPerJob: maxBytes, busyTimeoutMs: busyTimeoutMs),
      clock: { clock.now() })
  }
}
