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
    return readAll(fd)
  }

  /// All of stdin when it is a pipe, a socket or a regular file (not a terminal, not a device
  /// such as /dev/null), or nil.
  static func readStdin() -> [UInt8]? {
    var st = stat()
    guard fstat(STDIN_FILENO, &st) == 0 else { return nil }
    let type = st.st_mode & S_IFMT
    guard type == S_IFIFO || type == S_IFREG || type == S_IFSOCK else { return nil }
    return readAll(STDIN_FILENO)
  }

  /// Prompts on the controlling terminal and reads a line with echo off, as curl's `-u USER`
  /// does; nil without a terminal.
  static func askPassword(_ prompt: String) -> String? {
    let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var saved = termios()
    guard tcgetattr(fd, &saved) == 0 else { return nil }
    var quiet = saved
    quiet.c_lflag &= ~tcflag_t(ECHO)
    write(fd, prompt)
    _ = tcsetattr(fd, TCSAFLUSH, &quiet)
    defer {
      _ = tcsetattr(fd, TCSAFLUSH, &saved)
      write(fd, "\n")
    }
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while true {
      let n = read(fd, &byte, 1)
      if n < 0, errno == EINTR { continue }
      if n <= 0 || byte == 0x0A { break }
      line.append(byte)
    }
    if line.last == 0x0D { line.removeLast() }
    return String(decoding: line, as: UTF8.self)
  }

  private static func readAll(_ fd: Int32) -> [UInt8]? {
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
