import FerryChannel

// Where to look is FerryKit's `SocketLocator`, shared with `FerryClient`; the CLI's words for
// a socket nobody answers on are its own.
extension SocketLocator {
  /// The lines printed when nothing answers at `choice`: what was tried and how to start it.
  package static func unreachableMessage(_ choice: Choice, reason: String) -> String {
    """
    ferry: cannot reach ferryd at \(choice.path) (\(choice.source)): \(reason)
    ferry: start the daemon with `make run` in the source tree, or `systemctl start ferryd.socket`;
    ferry: or name its socket with --socket PATH or FERRY_SOCKET.

    """
  }
}
