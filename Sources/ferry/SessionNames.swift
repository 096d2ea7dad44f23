import FerryClient
import Glibc

/// `ferry --complete-sessions`: the daemon's session names, one a line, for the shell
/// completions; nothing and exit 0 when no daemon (of a trusted user) answers within a second,
/// so a Tab press never hangs or prints an error.
func printSessionNames(socket: SocketLocator.Choice) -> ExitCode {
  guard case .success(var connection) = DaemonConnection.open(socket.path) else { return .success }
  defer { close(connection.fd) }
  let refusal = DaemonTrust.refusal(
    peerUID: connection.peerUID() ?? UInt32.max, callerUID: getuid(),
    trustedUID: System.environment("FERRY_DAEMON_UID"), path: socket.path)
  guard refusal == nil else { return .success }
  connection.setReceiveTimeout(milliseconds: 1000)
  guard connection.send([Array(#"{"op":"sessions"}"#.utf8)]), let line = connection.readLine() else {
    return .success
  }
  System.write(STDOUT_FILENO, Completion.sessionNames(answer: line).map { $0 + "\n" }.joined())
  return .success
}
