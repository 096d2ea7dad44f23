import FerryClient
import FerrySystem
import FerryWire

/// The few things of the system `ferry` needs: files and descriptors through FerrySystem's
/// funnel (`SystemCall`: EINTR retried), and terminals, the clock, the working directory and
/// the environment through its small wrappers.
enum System {
  /// Writes all of `bytes` to `fd`; a closed pipe ends the process by SIGPIPE, as for cat.
  static func write(_ fd: Int32, _ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
      let written = bytes[offset...].withUnsafeBytes { SystemCall.write(fd, $0, trapsOnBadDescriptor: false) }
      guard case .success(let n) = written else { return }
      offset += n
    }
  }

  static func write(_ fd: Int32, _ text: String) { write(fd, Array(text.utf8)) }

  static func isTerminal(_ fd: Int32) -> Bool { SystemCall.isTerminal(fd) }

  /// Columns of the terminal on `fd`, 80 when unknown.
  static func terminalWidth(_ fd: Int32) -> Int {
    guard let size = SystemCall.terminalSize(fd), size.columns > 0 else { return 80 }
    return size.columns
  }

  /// Monotonic milliseconds.
  static func nowMs() -> Int64 {
    SystemCall.monotonicMilliseconds()
  }

  static func workingDirectory() -> String {
    SystemCall.workingDirectory() ?? "/"
  }

  static func environment(_ name: String) -> String? {
    SystemCall.environmentValue(name)
  }

  static func exists(_ path: String) -> Bool { SystemCall.exists(path) }

  /// A whole file's bytes (for `=@` and `:=@` items, which are small), or nil.
  static func readFile(_ path: String) -> [UInt8]? {
    guard case .success(let fd) = SystemCall.open(path, [.closeOnExec]) else { return nil }
    defer { SystemCall.close(fd) }
    return readAll(fd)
  }

  /// What stdin holds for a body: a pipe or socket is a body (labelled JSON: it cannot be
  /// looked at without taking its bytes); a regular file is one unless nothing is left past
  /// its offset, and JSON when it reads as JSON (read with `pread`, so its offset stays for
  /// the daemon); a terminal or a device such as /dev/null is not.
  static func probeStdin() -> StdinProbe {
    guard case .success(let st) = SystemCall.status(of: SystemCall.standardInput, trapsOnBadDescriptor: false)
    else {
      return .unusable
    }
    if st.kind == .fifo || st.kind == .socket { return .body(isJSON: true) }
    guard st.kind == .regular else { return .unusable }
    let offset = Int(stdinOffset())
    let remaining = Int(st.size) - offset
    guard remaining > 0 else { return .empty }
    // A whole small file is parsed; of a large one, its first non-blank byte decides.
    let look = min(remaining, 1 << 20)
    var bytes = [UInt8](repeating: 0, count: look)
    let read = bytes.withUnsafeMutableBytes {
      SystemCall.read(SystemCall.standardInput, into: $0, at: Int64(offset), trapsOnBadDescriptor: false)
    }
    guard case .success(let n) = read, n > 0 else { return .body(isJSON: false) }
    if remaining <= look { return .body(isJSON: (try? JSONReader().read(bytes[..<n])) != nil) }
    let first = bytes[..<n].first { !" \t\r\n".utf8.contains($0) }
    return .body(isJSON: first == UInt8(ascii: "{") || first == UInt8(ascii: "["))
  }

  /// Where stdin stands (0 when it cannot say).
  private static func stdinOffset() -> Int64 {
    let offset = SystemCall.seek(
      SystemCall.standardInput, to: 0, fromCurrent: true, trapsOnBadDescriptor: false)
    return max(0, (try? offset.get()) ?? 0)
  }

  /// The bytes a body descriptor would give when it is a regular file (from stdin's offset),
  /// for `explain`'s account; nil for a pipe, a socket or what cannot be looked at.
  static func passedLength(_ item: PassedDescriptor) -> Int64? {
    switch item {
    case .stdin:
      guard
        case .success(let st) = SystemCall.status(of: SystemCall.standardInput, trapsOnBadDescriptor: false),
        st.kind == .regular
      else { return nil }
      return max(0, st.size - stdinOffset())
    case .readFile(let path):
      guard case .success(let st) = SystemCall.status(ofPath: path), st.kind == .regular else { return nil }
      return st.size
    default: return nil
    }
  }

  /// The descriptor to pass for `item`, opened with the user's permissions (close-on-exec), or
  /// why it could not be.
  static func openPassed(_ item: PassedDescriptor) -> Result<Int32, OpenError> {
    let (path, flags): (String, OpenFlags)
    switch item {
    case .stdin: return .success(SystemCall.standardInput)
    case .stdout: return .success(SystemCall.standardOutput)
    case .readFile(let p): (path, flags) = (p, [])
    case .writeFile(let p): (path, flags) = (p, [.writeOnly, .create, .truncate])
    case .continueFile(let p): (path, flags) = (p, [.writeOnly, .create])
    case .validatorFile(let p): (path, flags) = (p, [.readWrite, .create])
    }
    switch SystemCall.open(path, flags.union([.closeOnExec, .noControllingTerminal]), permissions: 0o666) {
    case .success(let fd): return .success(fd)
    case .failure(let error): return .failure(OpenError(description: "cannot open \(path): \(error)"))
    }
  }

  struct OpenError: Error, CustomStringConvertible {
    let description: String
  }

  /// Prompts on the controlling terminal and reads a line with echo off, as curl's `-u USER`
  /// does; nil without a terminal.
  static func askPassword(_ prompt: String) -> String? {
    let opened = SystemCall.open("/dev/tty", [.readWrite, .closeOnExec, .noControllingTerminal])
    guard case .success(let fd) = opened else { return nil }
    defer { SystemCall.close(fd) }
    guard let saved = SystemCall.terminalMode(fd) else { return nil }
    // Echo off first, then the prompt: TCSAFLUSH after the prompt threw away a password typed
    // (or pasted) as soon as the prompt showed. TCSANOW keeps what is already typed, as curl's
    // getpass does; restoring with TCSANOW keeps what is typed after the password.
    SystemCall.setTerminalMode(fd, saved.withoutEcho, when: .now)
    write(fd, prompt)
    defer {
      SystemCall.setTerminalMode(fd, saved, when: .now)
      write(fd, "\n")
    }
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while true {
      let read = withUnsafeMutableBytes(of: &byte) { SystemCall.read(from: fd, into: $0) }
      guard case .success(let n) = read, n > 0, byte != 0x0A else { break }
      line.append(byte)
    }
    if line.last == 0x0D { line.removeLast() }
    return String(decoding: line, as: UTF8.self)
  }

  private static func readAll(_ fd: Int32) -> [UInt8]? {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let read = chunk.withUnsafeMutableBytes { SystemCall.read(from: fd, into: $0) }
      guard case .success(let n) = read else { return nil }
      if n == 0 { return bytes }
      bytes.append(contentsOf: chunk[..<n])
    }
  }

}
