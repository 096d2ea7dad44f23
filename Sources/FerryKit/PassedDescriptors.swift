import Glibc

/// The descriptors that go with one job line (at most 4, PROTOCOL.md "Descriptors passed with a
/// line"), opened with the caller's rights; the library closes its copies once the daemon
/// answered the line (the daemon holds its own).
struct PassedDescriptors: Sendable {
  private(set) var fds: [Int32] = []

  /// The daemon takes at most this many descriptors with a line.
  static let limit = 4

  /// Adds an open descriptor the library owns; returns its index.
  mutating func add(_ fd: Int32, field: String) throws(FerryError) -> Int {
    guard fds.count < Self.limit else {
      close(fd)
      throw FerryError(
        code: "invalid_job", message: "a job can pass at most \(Self.limit) files", field: field)
    }
    fds.append(fd)
    return fds.count - 1
  }

  /// Opens `path` (read-only unless `flags` say otherwise) and adds it.
  mutating func open(_ path: String, field: String, flags: Int32 = O_RDONLY) throws(FerryError) -> Int {
    var fd: Int32
    repeat { fd = Glibc.open(path, flags | O_CLOEXEC | O_NOCTTY, 0o666) } while fd < 0 && errno == EINTR
    guard fd >= 0 else {
      let reason = String(cString: strerror(errno))
      throw FerryError(code: "file_unreadable", message: "cannot open \(path): \(reason)", field: field)
    }
    return try add(fd, field: field)
  }

  /// Closes every descriptor (the library's copies).
  mutating func closeAll() {
    for fd in fds { close(fd) }
    fds = []
  }
}
