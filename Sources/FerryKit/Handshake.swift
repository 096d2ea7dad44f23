import FerryWire
import Glibc

/// What `FerryClient.init` does before the reader thread starts: find the socket, check who
/// holds it, and read the daemon's `hello` (its limits) synchronously.
enum Handshake {
  /// Where the `ferry` CLI looks (Sources/FerryClient/SocketLocator.swift, kept in step).
  static func locate() -> String {
    func env(_ name: String) -> String? {
      guard let value = getenv(name) else { return nil }
      let text = String(cString: value)
      return text.isEmpty ? nil : text
    }
    if let path = env("FERRY_SOCKET") { return path }
    if access("/run/ferry/ferryd.sock", F_OK) == 0 { return "/run/ferry/ferryd.sock" }
    if let dir = env("XDG_RUNTIME_DIR"), access(dir + "/ferryd.sock", F_OK) == 0 {
      return dir + "/ferryd.sock"
    }
    return "/tmp/ferryd-\(getuid())/ferryd.sock"
  }

  /// Throws `daemon_untrusted` unless the listener is root, the caller, or `$FERRY_DAEMON_UID`
  /// (as the CLI's DaemonTrust): a job line may hold a token.
  static func checkTrust(_ socket: FerrySocket, path: String) throws(FerryError) {
    guard let peer = socket.peerUID() else {
      throw FerryError(code: "daemon_untrusted", message: "\(path): the kernel does not say who holds it")
    }
    let caller = getuid()
    if peer == 0 || peer == caller { return }
    if let named = getenv("FERRY_DAEMON_UID"), UInt32(String(cString: named)) == peer { return }
    throw FerryError(
      code: "daemon_untrusted",
      message:
        "\(path) is held by uid \(peer), not by root or you (uid \(caller)); set FERRY_DAEMON_UID=\(peer) to trust it"
    )
  }

  /// Sends `op: hello` and reads its answer.
  static func hello(_ socket: FerrySocket) throws(FerryError) -> JSONObject {
    guard socket.send(line: Array(#"{"op":"hello"}"#.utf8), descriptors: []) else {
      throw FerryError.closed()
    }
    var framer = LineFramer(maxLineBytes: 1 << 20)
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = chunk.withUnsafeMutableBytes { socket.receive(into: $0) }
      guard n > 0 else { throw FerryError.closed() }
      for case .line(let line) in framer.feed(chunk[..<n]) {
        socket.observer?(.received, Array(line))
        guard case .object(let e)? = try? JSONReader().read(line) else { continue }
        if e["event"]?.stringValue == "error" { throw FerryError(event: e) }
        if e["event"]?.stringValue == "hello" { return e }
      }
    }
  }
}
