import FerryChannel
import FerryClient
import FerrySystem

/// `ferry --complete-sessions`: the daemon's session names, one a line, for the shell
/// completions; nothing and exit 0 when no daemon (of a trusted user) answers within a second,
/// so a Tab press never hangs or prints an error.
func printSessionNames(socket: SocketLocator.Choice) -> ExitCode {
  guard var channel = openChannel(socket, quiet: true) else { return .success }
  defer { channel.close() }
  channel.setReceiveTimeout(milliseconds: 1000)
  guard channel.send([Array(#"{"op":"sessions"}"#.utf8)]), let line = channel.readLine() else {
    return .success
  }
  System.write(SystemCall.standardOutput, Completion.sessionNames(answer: line).map { $0 + "\n" }.joined())
  return .success
}
