import FerryTestSupport
import Foundation

/// A child process for black-box tests (ferryd, the fixture server, nginx helpers), killed when
/// the test is done with it. Its home, state and runtime directories are its own
/// (`TestEnvironment`): under `privateDirectory` when given (a daemon harness's directory), else
/// under a directory made for it and removed with it.
final class ManagedProcess {
  let process = Process()
  let stdout = Pipe()
  let stderr = Pipe()
  /// The directory this process made for its environment, removed when it goes.
  private let ownDirectory: String?
  /// Signalled when Foundation has seen the process exit (its `terminationHandler`).
  private let exited = DispatchSemaphore(value: 0)
  private var hasExited = false

  init(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
    privateDirectory: String? = nil, standardError: FileHandle? = nil
  ) throws {
    ownDirectory = privateDirectory == nil ? Paths.tempDirectory("env") : nil
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = TestEnvironment.isolated(
      environment, under: privateDirectory ?? ownDirectory ?? "/nonexistent")
    process.standardOutput = stdout
    // A test that plays journald gives its own socket as stderr (`JOURNAL_STREAM`).
    process.standardError = standardError ?? stderr
    process.standardInput = FileHandle.nullDevice
    process.terminationHandler = { [exited] _ in exited.signal() }
    try process.run()
  }

  var pid: Int32 { process.processIdentifier }

  /// Sends `signal` (SIGTERM by default).
  func signal(_ sig: Int32 = SIGTERM) { kill(process.processIdentifier, sig) }

  /// Waits for exit up to `timeoutMs`; returns the exit status or nil when still running.
  /// Waits for the exit itself (no polling).
  func wait(timeoutMs: Int = 10_000) -> Int32? {
    if !hasExited {
      guard exited.wait(timeout: .now() + .milliseconds(TestTime.ms(timeoutMs))) == .success else {
        return nil
      }
      hasExited = true
    }
    return process.terminationStatus
  }

  /// What `waitForAnnouncement` has read of stdout so far.
  private var stdoutSeen: [UInt8] = []

  /// Waits until ferryd, started with `--announce`, prints that it is listening (its stdout's
  /// `ferryd: listening on` line, written once the socket accepts); false when it exits first
  /// or `timeoutMs` passes.
  func waitForAnnouncement(timeoutMs: Int = 10_000) -> Bool {
    let fd = stdout.fileHandleForReading.fileDescriptor
    let deadline = Clock.ms() + TestTime.ms(timeoutMs)
    while !String(decoding: stdoutSeen, as: UTF8.self).contains("ferryd: listening on") {
      let left = deadline - Clock.ms()
      guard left > 0 else { return false }
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let r = poll(&p, 1, Int32(left))
      if r < 0, errno == EINTR { continue }
      guard r > 0 else { return false }
      var chunk = [UInt8](repeating: 0, count: 4096)
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0, errno == EINTR { continue }
      guard n > 0 else { return false }
      stdoutSeen += chunk[..<n]
    }
    return true
  }

  /// Reads stdout up to the first line containing `prefix` and returns that line.
  func readStdoutLine(startingWith prefix: String) -> String? {
    var data = Data()
    let handle = stdout.fileHandleForReading
    while true {
      let chunk = handle.availableData
      if chunk.isEmpty { return nil }
      data.append(chunk)
      let text = String(decoding: data, as: UTF8.self)
      if let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) { return String(line) }
    }
  }

  /// What `waitForStderr` has read so far.
  private var stderrSeen: [UInt8] = []

  /// Reads stderr as it comes until `phrase` has appeared `count` times in all of it (a log
  /// line the daemon writes when something happened), or `timeoutMs` passes; no sleeping.
  func waitForStderr(_ phrase: String, count: Int = 1, timeoutMs: Int = 10_000) -> Bool {
    let fd = stderr.fileHandleForReading.fileDescriptor
    let deadline = Clock.ms() + TestTime.ms(timeoutMs)
    func seen() -> Int {
      String(decoding: stderrSeen, as: UTF8.self).components(separatedBy: phrase).count - 1
    }
    while seen() < count {
      let left = deadline - Clock.ms()
      guard left > 0 else { return false }
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let r = poll(&p, 1, Int32(left))
      if r < 0, errno == EINTR { continue }
      guard r > 0 else { return false }
      var chunk = [UInt8](repeating: 0, count: 1 << 16)
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0, errno == EINTR { continue }
      guard n > 0 else { return seen() >= count }
      stderrSeen += chunk[..<n]
    }
    return true
  }

  /// Everything the process wrote to stderr (call after it exited).
  func stderrText() -> String {
    String(decoding: stderrSeen + Array(stderr.fileHandleForReading.readDataToEndOfFile()), as: UTF8.self)
  }

  deinit {
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      // Not waitUntilExit: Foundation may never see the exit under the test runner.
      var status: Int32 = 0
      waitpid(process.processIdentifier, &status, 0)
    }
    if let ownDirectory { try? FileManager.default.removeItem(atPath: ownDirectory) }
  }
}

/// Paths of the built products and the repository.
enum Paths {
  static let repo: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }
    return url.path
  }()

  /// A built executable: from `$FERRY_PRODUCTS` when set (`make test` points it at the
  /// release build, so black-box tests run what ships, at its speed), else the debug build.
  static func product(_ name: String) -> String {
    let dir = ProcessInfo.processInfo.environment["FERRY_PRODUCTS"] ?? (repo + "/.build/debug")
    return dir + "/" + name
  }

  /// A fresh private directory under /tmp, removed when the test process exits.
  static func tempDirectory(_ tag: String) -> String { TestDirectory.make(prefix: "ferry-test", tag: tag) }
}
