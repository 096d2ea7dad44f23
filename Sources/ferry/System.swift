import FerryClient
import FerryWire
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
    let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    return readAll(fd)
  }

  /// What stdin holds for a body: a pipe or socket is a body (labelled JSON: it cannot be
  /// looked at without taking its bytes); a regular file is one unless nothing is left past
  /// its offset, and JSON when it reads as JSON (read with `pread`, so its offset stays for
  /// the daemon); a terminal or a device such as /dev/null is not.
  static func probeStdin() -> StdinProbe {
    var st = stat()
    guard fstat(STDIN_FILENO, &st) == 0 else { return .unusable }
    let type = st.st_mode & S_IFMT
    if type == S_IFIFO || type == S_IFSOCK { return .body(isJSON: true) }
    guard type == S_IFREG else { return .unusable }
    let offset = max(0, Int(lseek(STDIN_FILENO, 0, SEEK_CUR)))
    let remaining = Int(st.st_size) - offset
    guard remaining > 0 else { return .empty }
    // A whole small file is parsed; of a large one, its first non-blank byte decides.
    let look = min(remaining, 1 << 20)
    var bytes = [UInt8](repeating: 0, count: look)
    let n = bytes.withUnsafeMutableBytes { pread(STDIN_FILENO, $0.baseAddress, look, off_t(offset)) }
    guard n > 0 else { return .body(isJSON: false) }
    if remaining <= look { return .body(isJSON: (try? JSONReader().read(bytes[..<n])) != nil) }
    let first = bytes[..<n].first { !" \t\r\n".utf8.contains($0) }
    return .body(isJSON: first == UInt8(ascii: "{") || first == UInt8(ascii: "["))
  }

  /// The bytes a body descriptor would give when it is a regular file (from stdin's offset),
  /// for `explain`'s account; nil for a pipe, a socket or what cannot be looked at.
  static func passedLength(_ item: PassedDescriptor) -> Int64? {
    var st = stat()
    switch item {
    case .stdin:
      guard fstat(STDIN_FILENO, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
      return max(0, Int64(st.st_size) - max(0, Int64(lseek(STDIN_FILENO, 0, SEEK_CUR))))
    case .readFile(let path):
      guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
      return Int64(st.st_size)
    default: return nil
    }
  }

  /// The descriptor to pass for `item`, opened with the user's permissions (close-on-exec), or
  /// why it could not be.
  static func openPassed(_ item: PassedDescriptor) -> Result<Int32, OpenError> {
    let (path, flags): (String, Int32)
    switch item {
    case .stdin: return .success(STDIN_FILENO)
    case .stdout: return .success(STDOUT_FILENO)
    case .readFile(let p): (path, flags) = (p, O_RDONLY)
    case .writeFile(let p): (path, flags) = (p, O_WRONLY | O_CREAT | O_TRUNC)
    case .continueFile(let p): (path, flags) = (p, O_WRONLY | O_CREAT)
    case .validatorFile(let p): (path, flags) = (p, O_RDWR | O_CREAT)
    }
    var fd: Int32
    repeat { fd = Glibc.open(path, flags | O_CLOEXEC | O_NOCTTY, 0o666) } while fd < 0 && errno == EINTR
    guard fd >= 0 else { return .failure(OpenError(description: "cannot open \(path): \(errorText(errno))")) }
    return .success(fd)
  }

  struct OpenError: Error, CustomStringConvertible {
    let description: String
  }

  /// Prompts on the controlling terminal and reads a line with echo off, as curl's `-u USER`
  /// does; nil without a terminal.
  static func askPassword(_ prompt: String) -> String? {
    let fd = Glibc.open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var saved = termios()
    guard tcgetattr(fd, &saved) == 0 else { return nil }
    var quiet = saved
    quiet.c_lflag &= ~tcflag_t(ECHO)
    // Echo off first, then the prompt: TCSAFLUSH after the prompt threw away a password typed
    // (or pasted) as soon as the prompt showed. TCSANOW keeps what is already typed, as curl's
    // getpass does; restoring with TCSANOW keeps what is typed after the password.
    _ = tcsetattr(fd, TCSANOW, &quiet)
    write(fd, prompt)
    defer {
      _ = tcsetattr(fd, TCSANOW, &saved)
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
