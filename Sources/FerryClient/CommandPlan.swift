import FerryWire

/// What `main` does for a command: print something and exit without the daemon, or send some
/// lines and render the answers.
public enum CommandPlan: Sendable, Equatable {
  /// Write `text` to stdout and exit.
  case print(String)
  /// Connect, send `lines` (each without its newline), render every line that comes back.
  /// `descriptors` go with the last line (the job's), in the order its `fd` fields index.
  case converse(lines: [[UInt8]], settings: EventRenderer.Settings, descriptors: [PassedDescriptor] = [])
  /// Ask the daemon for its sessions with a short timeout and print their names, one a line;
  /// nothing, and exit 0, when it does not answer (`ferry --complete-sessions`).
  case sessionNames(socket: String?)
  /// The live view (`ferry top`).
  case top(TopOptions)

  /// The terminals `main` found, which shape the job (progress events) and the output.
  public struct Terminals: Sendable, Equatable {
    public var stdout: Bool
    public var stderr: Bool

    public init(stdout: Bool, stderr: Bool) {
      self.stdout = stdout
      self.stderr = stderr
    }
  }

  public static let version = "ferry 0.1.0 (protocol 1)"

  /// The plan for `command`. `context.events` is chosen here from the command and terminals.
  public static func make(_ command: Command, context: JobContext, terminals: Terminals) throws(UsageError)
    -> CommandPlan
  {
    var context = context
    switch command {
    case .help(let topic): return .print(topic.text)
    case .version: return .print(version + "\n")
    case .printJob(let options):
      context.events = .all
      return .print(JSONWriter.string(.object(try JobBuilder.build(options, context: context))) + "\n")
    case .request(let options):
      return try request(options, context: context, terminals: terminals)
    case .events(let options):
      context.events = .all
      var passing: [PassedDescriptor] = []
      let job = try JobBuilder.build(options, context: context, passing: &passing)
      return .converse(
        lines: [line(.object(job))], settings: settings(.rawEvents, job: job, terminals: terminals),
        descriptors: passing)
    case .explain(let options):
      context.events = .all
      var passing: [PassedDescriptor] = []
      let job = try JobBuilder.build(options, context: context, passing: &passing)
      let op = explainOp(job, passing: passing, context: context)
      return .converse(lines: [op], settings: settings(.explain, job: job, terminals: terminals))
    case .op(let op):
      return .converse(lines: [line(["op": .string(op.rawValue)])], settings: opSettings(.op(op), terminals))
    case .cancel(let id):
      let lines = [line(["op": "cancel", "id": .string(id)]), line(["op": "ping"])]
      return .converse(lines: lines, settings: opSettings(.cancel, terminals, id: id))
    case .attach(let id, let includeHeaders):
      var settings = opSettings(.response, terminals, id: id)
      settings.includeHeaders = includeHeaders
      return .converse(lines: [line(["op": "attach", "id": .string(id)])], settings: settings)
    case .cache(let cache):
      return .converse(lines: [line(.object(cache.op))], settings: opSettings(.cache(cache), terminals))
    case .cookies(let cookies):
      return .converse(lines: [line(.object(cookies.op))], settings: opSettings(.cookies(cookies), terminals))
    case .complete(.sessions(let socket)): return .sessionNames(socket: socket)
    case .complete(let query): return .print(Completion.text(query))
    case .top(let options) where options.printsJSON:
      // What `ferry stats` prints: one answer, the same rendering.
      return try make(.op(.stats), context: context, terminals: terminals)
    case .top(let options): return .top(options)
    }
  }

  /// A request's plan: its job, how its answer is printed, and the descriptors it passes.
  private static func request(_ options: RequestOptions, context: JobContext, terminals: Terminals)
    throws(UsageError) -> CommandPlan
  {
    var context = context
    context.events = options.detach ? .all : .forResponse(progress: terminals.stderr && !options.silent)
    // A terminal gets the body printed (pretty, or refused when binary); `-i` and `-v` print
    // heads on stdout around it, and a detached job outlives the CLI's stdout.
    context.bodyToStdout =
      !terminals.stdout && !options.detach && !options.includeHeaders && !options.verbose
    var passing: [PassedDescriptor] = []
    let job = try JobBuilder.build(options, context: context, passing: &passing)
    var settings = settings(options.detach ? .detached : .response, job: job, terminals: terminals)
    // A HEAD answer is all head: print it, as `curl -I` does.
    settings.includeHeaders = options.includeHeaders || job["method"]?.stringValue == "HEAD"
    settings.verbose = options.verbose && !options.detach
    if options.resume, !options.detach, let output = options.output, output != "-", !output.hasSuffix("/") {
      settings.resumedOutput = context.absolute(output)
    }
    let explain = settings.verbose ? [explainOp(job, passing: passing, context: context)] : []
    return .converse(lines: explain + [line(.object(job))], settings: settings, descriptors: passing)
  }

  /// The `explain` op for `job`: the descriptors it would pass are described (`files`), not
  /// passed, so the daemon can give true lengths and a curl command that names the files.
  static func explainOp(_ job: JSONObject, passing: [PassedDescriptor], context: JobContext) -> [UInt8] {
    var op = JSONObject()
    op.append(key: "op", value: "explain")
    op.append(key: "job", value: .object(job))
    if !passing.isEmpty {
      let files: [JSONValue] = passing.map { item in
        var file = JSONObject()
        if case .readFile(let path) = item { file.append(key: "path", value: .string(path)) }
        if let length = context.passedLength(item) {
          file.append(key: "length", value: .number(JSONNumber(validatedText: String(length))))
        }
        return .object(file)
      }
      op.append(key: "files", value: .array(files))
    }
    return line(.object(op))
  }

  private static func settings(_ mode: EventRenderer.Mode, job: JSONObject, terminals: Terminals)
    -> EventRenderer.Settings
  {
    opSettings(mode, terminals, id: job["id"]?.stringValue ?? "")
  }

  private static func opSettings(_ mode: EventRenderer.Mode, _ terminals: Terminals, id: String = "")
    -> EventRenderer.Settings
  {
    var settings = EventRenderer.Settings(mode: mode, jobID: id)
    settings.stdoutIsTerminal = terminals.stdout
    settings.stderrIsTerminal = terminals.stderr
    return settings
  }

  private static func line(_ value: JSONValue) -> [UInt8] { JSONWriter.bytes(value) }
}
