import Glibc

/// A file under /tmp with given contents, removed by `remove()`.
struct TempFile {
  let path: String

  init(_ bytes: [UInt8]) {
    var template = Array("/tmp/ferry-session-test-XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    precondition(fd >= 0, "mkstemp failed")
    path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    var written = 0
    while written < bytes.count {
      let count = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      precondition(count > 0, "write failed")
      written += count
    }
    close(fd)
  }

  /// Cuts the file to `length` bytes.
  func truncate(to length: Int) {
    precondition(Glibc.truncate(path, off_t(length)) == 0)
  }

  func remove() { unlink(path) }
}

/// Deterministic bytes for bodies: `count` bytes of a simple pattern.
func patternBytes(_ count: Int, seed: Int = 0) -> [UInt8] {
  (0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 31) &+ ($0 >> 8) &+ seed) }
}
