import FerryChannel
import FerryWire
import Glibc

/// What `FerryClient.init` does before the reader thread starts: find the socket, open a line
/// channel to it (which checks who holds it), and read the daemon's `hello` (its limits).
enum Handshake {
  /// Where the `ferry` CLI looks (`SocketLocator`, shared with it).
  static func locate() -> String {
    let locator = SocketLocator(
      environment: FerryLineChannel.environment, exists: { access($0, F_OK) == 0 }, uid: getuid())
    return locator.locate(argument: nil).path
  }

  /// Connects to `path` and checks who holds it: `daemon_unavailable` or `daemon_untrusted`.
  static func open(_ path: String, observer: FerryLineObserver?) throws(FerryError) -> FerryLineChannel {
    var tap: FerryLineTap? = nil
    if let observer {
      tap = { isSent, line in observer(isSent ? .sent : .received, line) }
    }
    switch FerryLineChannel.open(path, observer: tap) {
    case .success(let channel): return channel
    case .failure(.unreachable(let reason)):
      throw FerryError(code: "daemon_unavailable", message: "cannot reach ferryd at \(path): \(reason)")
    case .failure(.untrusted(nil)):
      throw FerryError(code: "daemon_untrusted", message: "\(path): the kernel does not say who holds it")
    case .failure(.untrusted(let peer?)):
      throw FerryError(
        code: "daemon_untrusted",
        message:
          "\(path) is held by uid \(peer), not by root or you (uid \(getuid())); set FERRY_DAEMON_UID=\(peer) to trust it"
      )
    }
  }

  /// Sends `op: hello` and reads its answer.
  static func hello(_ channel: inout FerryLineChannel) throws(FerryError) -> JSONObject {
    guard channel.send([Array(#"{"op":"hello"}"#.utf8)]) else { throw FerryError.closed() }
    while let line = channel.readLine() {
      guard case .object(let e)? = try? JSONReader().read(line) else { continue }
      if e["event"]?.stringValue == "error" { throw FerryError(event: e) }
      if e["event"]?.stringValue == "hello" { return e }
    }
    throw FerryError.closed()
  }
}
