import FerryChannel
import FerryClient
import FerrySystem

// The `ferry` command: parse, plan, talk to the daemon, render. Everything that can be pure is
// in FerryClient (tested there); the daemon is reached through FerryKit's line channel (FerryChannel) (the one
// protocol client in the project: socket discovery, the owner check, framing); this file does
// the terminal, files and clock. No Foundation: the client must start fast (docs/CLI.md).

/// Runs the command line and returns the exit code.
func run(_ arguments: [String]) -> ExitCode {
  let invocation: Invocation
  let plan: CommandPlan
  let terminals = CommandPlan.Terminals(
    stdout: System.isTerminal(SystemCall.standardOutput), stderr: System.isTerminal(SystemCall.standardError))
  do throws(UsageError) {
    invocation = try ArgumentParser.parse(arguments)
    let context = JobContext(
      id: "ferry-\(SystemCall.processID)-\(SystemCall.wallClockSeconds())",
      workingDirectory: System.workingDirectory(), events: .all,
      readFile: System.readFile, probeStdin: System.probeStdin, askPassword: System.askPassword,
      passedLength: System.passedLength)
    plan = try CommandPlan.make(invocation.command, context: context, terminals: terminals)
  } catch {
    let hint = error.topic == .general ? "ferry --help" : "ferry help \(error.topic.rawValue)"
    System.write(SystemCall.standardError, "ferry: \(error.message)\nferry: see `\(hint)`\n")
    return .usage
  }
  let locator = SocketLocator(
    environment: System.environment, exists: System.exists, uid: SystemCall.realUserID)
  switch plan {
  case .print(let text):
    System.write(SystemCall.standardOutput, text)
    return .success
  case .sessionNames(let socket):
    return printSessionNames(socket: locator.locate(argument: socket))
  case .top(let options):
    return TopCommand(options: options, socket: locator.locate(argument: invocation.socket)).run()
  case .converse(let lines, let settings, let passing):
    var descriptors: [Int32] = []
    for item in passing {
      switch System.openPassed(item) {
      case .success(let fd): descriptors.append(fd)
      case .failure(let message):
        System.write(SystemCall.standardError, "ferry: \(message)\n")
        return .usage
      }
    }
    return converse(
      lines, settings: settings, socket: locator.locate(argument: invocation.socket), descriptors: descriptors
    )
  }
}

/// The daemon at `socket`, its owner checked before a byte is sent (a job line may carry a
/// token: `--bearer`); nil, with the reason on stderr, when it is unreachable or untrusted.
func openChannel(_ socket: SocketLocator.Choice, quiet: Bool = false) -> FerryLineChannel? {
  switch FerryLineChannel.open(socket.path, trustedUID: System.environment("FERRY_DAEMON_UID")) {
  case .success(let channel): return channel
  case .failure(.unreachable(let reason)):
    if !quiet {
      System.write(SystemCall.standardError, SocketLocator.unreachableMessage(socket, reason: reason))
    }
  case .failure(.untrusted(let peer)):
    let refusal = DaemonTrust.refusal(
      peerUID: peer ?? UInt32.max, callerUID: SystemCall.realUserID,
      trustedUID: System.environment("FERRY_DAEMON_UID"),
      path: socket.path)
    if !quiet { System.write(SystemCall.standardError, refusal ?? "") }
  }
  return nil
}

/// Sends `lines` to the daemon at `socket` (`descriptors` with the last) and renders its
/// answers until the command is over.
func converse(
  _ lines: [[UInt8]], settings: EventRenderer.Settings, socket: SocketLocator.Choice,
  descriptors: [Int32] = []
) -> ExitCode {
  guard var channel = openChannel(socket) else { return .unreachable }
  defer { channel.close() }
  var renderer = EventRenderer(settings)
  var bar = ProgressBar(startMs: System.nowMs())
  let sent = channel.send(lines, descriptors: descriptors)
  // The daemon has its own copies now; stdin and stdout stay ours.
  for fd in descriptors where fd > SystemCall.standardError { SystemCall.close(fd) }
  guard sent else { return perform(renderer.endOfStream(), bar: &bar) ?? .unreachable }
  let width = System.terminalWidth(SystemCall.standardError)
  while true {
    guard let line = channel.readLine() else {
      return perform(renderer.endOfStream(), bar: &bar) ?? .unreachable
    }
    let rendering = renderer.render(line: line)
    if let update = rendering.progress, settings.stderrIsTerminal,
      let text = bar.draw(update, nowMs: System.nowMs(), width: width)
    {
      System.write(SystemCall.standardError, text)
    }
    if let code = perform(rendering, bar: &bar) { return code }
  }
}

/// Writes a rendering's output (clearing the progress line first) and returns its exit code.
func perform(_ rendering: Rendering, bar: inout ProgressBar) -> ExitCode? {
  if !rendering.stdout.isEmpty || !rendering.stderr.isEmpty || rendering.exit != nil {
    System.write(SystemCall.standardError, bar.finish())
  }
  System.write(SystemCall.standardOutput, rendering.stdout)
  if let path = rendering.dropResumed {
    _ = SystemCall.unlink(path + ".part")
    _ = SystemCall.unlink(path + ".part.validator")
  }
  if let path = rendering.commitResumed {
    // The daemon continued FILE.part through the passed descriptor: it becomes FILE.
    if case .failure(let reason) = SystemCall.rename(path + ".part", to: path) {
      System.write(SystemCall.standardError, "ferry: cannot rename \(path).part to \(path): \(reason)\n")
      return .failed
    }
    _ = SystemCall.unlink(path + ".part.validator")
  }
  System.write(SystemCall.standardError, rendering.stderr)
  return rendering.exit
}

SystemCall.exit(run(Array(CommandLine.arguments.dropFirst())).rawValue)
