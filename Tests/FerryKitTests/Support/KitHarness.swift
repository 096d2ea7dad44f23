import FerryTestSupport
import Foundation
import Glibc
import Testing

/// A real ferryd for FerryKit's tests: its own socket, config, state and HOME in a private temp
/// directory; killed (SIGKILL) when the harness goes, or on `kill()`, and restartable on the
/// same directory.
final class KitDaemon {
  let dir: String
  let socket: String
  let config: String
  private(set) var process: Process

  init(limits: String = "", sessions: String = #"{"default": {}}"#) throws {
    dir = KitPaths.tempDirectory("kit")
    socket = dir + "/ferryd.sock"
    let limitsMember = limits.isEmpty ? "" : #""limits": {\#(limits)}, "#
    config = dir + "/ferry.json"
    try #"{\#(limitsMember)"state_dir": "\#(dir)/state", "sessions": \#(sessions)}"#
      .write(toFile: config, atomically: true, encoding: .utf8)
    process = Process()
    try start()
  }

  /// Starts ferryd and waits until its socket answers.
  func start() throws {
    process = Process()
    process.executableURL = URL(fileURLWithPath: KitPaths.product("ferryd"))
    process.arguments = ["--config", config, "--socket", socket, "--log-level", "warning"]
    var environment = ProcessInfo.processInfo.environment
    environment["HOME"] = dir
    environment["XDG_RUNTIME_DIR"] = dir
    process.environment = environment
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(Double(TestTime.ms(10_000)) / 1000)
    while Date() < deadline {
      if Self.answers(socket) { return }
      usleep(10_000)
    }
    throw KitFailure("ferryd did not start listening on \(socket)")
  }

  /// SIGKILL, and waits for the exit.
  func kill() {
    Foundation.kill(process.processIdentifier, SIGKILL)
    var status: Int32 = 0
    waitpid(process.processIdentifier, &status, 0)
  }

  private static func answers(_ path: String) -> Bool {
    let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { Glibc.close(fd) }
    return UnixSocketPath.connect(fd, path) == 0
  }

  deinit {
    if process.isRunning { kill() }
    try? FileManager.default.removeItem(atPath: dir)
  }
}

/// The HTTP fixture server (`ferry-fixture`) on a loopback port.
final class KitFixture {
  let process = Process()
  let port: Int

  init() throws {
    let stdout = Pipe()
    process.executableURL = URL(fileURLWithPath: KitPaths.product("ferry-fixture"))
    process.standardOutput = stdout
    process.standardInput = FileHandle.nullDevice
    // Not the runner's stderr: a fixture left running by a crashed test process would hold it.
    process.standardError = FileHandle.nullDevice
    try process.run()
    var text = ""
    while !text.contains("\n") {
      let chunk = stdout.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      text += String(decoding: chunk, as: UTF8.self)
    }
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("port=") }),
      let port = Int(line.dropFirst(5))
    else { throw KitFailure("ferry-fixture did not report its port") }
    self.port = port
  }

  func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

  deinit {
    kill(process.processIdentifier, SIGKILL)
    var status: Int32 = 0
    waitpid(process.processIdentifier, &status, 0)
  }
}

enum KitPaths {
  static let repo: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }
    return url.path
  }()

  /// A built executable: from `$FERRY_PRODUCTS` (the release build) when set, else debug.
  static func product(_ name: String) -> String {
    (ProcessInfo.processInfo.environment["FERRY_PRODUCTS"] ?? repo + "/.build/debug") + "/" + name
  }

  static func tempDirectory(_ tag: String) -> String { TestDirectory.make(prefix: "ferrykit-test", tag: tag) }

  static func size(_ path: String) -> Int? {
    var st = stat()
    return stat(path, &st) == 0 ? Int(st.st_size) : nil
  }
}

struct KitFailure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
