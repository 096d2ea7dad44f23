import Glibc

/// The few things of the system `ferry` needs, over Glibc: terminals, the clock, the working
/// directory, the environment, files.
enum System {
  /// Writes all of `bytes` to `fd`; a closed pipe ends the process by SIGPIPE, as for cat.
  static func write(_ fd: Int32, _ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
      let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        return
      }
      offset += n
    }
  }

  static func write(_ fd: Int32, _ text: String) { write(fd, Array(text.utf8)) }

  static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

  /// Columns of the terminal on `fd`, 80 when unknown.
  static func terminalWidth(_ fd: Int32) -> Int {
    var size = winsize()
    guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
    return Int(size.ws_col)
  }

  /// Monotonic milliseconds.
  static func nowMs() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
  }

  static func workingDirectory() -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return "/" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  static func environment(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    return String(cString: value)
  }

  static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

  /// A whole file's bytes (for `=@` and `:=@` items, which are small), or nil.
  static func readFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0, errno == EINTR { continue }
      if n < 0 { return nil }
      if n == 0 { return bytes }
      bytes.append(contentsOf: chunk[..<n])
    }
  }

  static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }
}
