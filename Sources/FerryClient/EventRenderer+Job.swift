import FerryWire

/// The events of the command's own job: progress, the response, the end.
extension EventRenderer {
  mutating func job(_ event: JSONObject, name: String) -> Rendering {
    if name == "explained" || (name == "error" && isAwaitingExplainAnswer) {
      return verboseRequest(event, name: name)
    }
    if name == "error" { return refusalOfJob(event) }
    guard event["id"]?.stringValue == settings.jobID else { return Rendering() }
    switch name {
    case "queued" where settings.mode == .detached:
      return Rendering(stdout: Array((settings.jobID + "\n").utf8), exit: .success)
    case "progress": return Rendering(progress: Self.progress(event))
    case "done":
      var r = response(event, exit: .success)
      if let path = settings.resumedOutput {
        r.commitResumed = path
        if settings.stderrIsTerminal, case .number(let n)? = event["bytes"], let bytes = n.int64Value {
          r.note("saved \(ByteFormat.text(bytes)) to \(path)")
        }
      }
      return r
    case "failed":
      let exit = ExitCode.forFailure(event)
      var r = event["status"] == nil ? Rendering(exit: exit) : response(event, exit: exit)
      r.stderr.append(contentsOf: ResponsePrinter.errorLine(event["error"]?.objectValue).utf8)
      if let path = settings.resumedOutput,
        event["error"]?.objectValue?["code"]?.stringValue == ErrorCode.resumeMismatch.rawValue
      {
        r.dropResumed = path
      }
      return r
    case "cancelled":
      var r = Rendering(exit: .cancelled)
      r.note("job \(settings.jobID) cancelled (\(event["reason"]?.stringValue ?? "unknown reason"))")
      return r
    default: return Rendering()
    }
  }

  private var isAwaitingExplainAnswer: Bool {
    settings.verbose && settings.mode == .response && explainPending
  }

  /// `-v`: the request as explained, on stderr; an explain refusal is left for the job's own.
  private mutating func verboseRequest(_ event: JSONObject, name: String) -> Rendering {
    explainPending = false
    guard name == "explained" else { return Rendering() }
    var text = ExplainPrinter.head(event, prefix: "> ") + ">\n"
    if let body = event["body"]?.objectValue {
      text += ExplainPrinter.bodySummary(body).split(separator: "\n").map { "> " + $0 + "\n" }.joined()
    }
    return Rendering(stderr: Array(text.utf8))
  }

  private func refusalOfJob(_ event: JSONObject) -> Rendering {
    Rendering(stderr: Array(ResponsePrinter.errorLine(event["error"]?.objectValue).utf8), exit: .failed)
  }

  /// A response carried by `done` or by a `failed` for an unacceptable status or type.
  private func response(_ event: JSONObject, exit: ExitCode) -> Rendering {
    var r = Rendering(exit: exit)
    if settings.verbose {
      r.stderr.append(contentsOf: ResponsePrinter.head(of: event, prefix: "< "))
    }
    if settings.includeHeaders { r.stdout.append(contentsOf: ResponsePrinter.head(of: event)) }
    // The cache's outcome (`done`'s `cache`, on a session with a cache), on stderr as curl's
    // `*` lines: stdout keeps the server's head and body.
    if settings.verbose || settings.includeHeaders, let outcome = ResponsePrinter.cacheLine(event) {
      r.stderr.append(contentsOf: outcome.utf8)
    }
    let body = ResponsePrinter.body(
      of: event, stdoutIsTerminal: settings.stdoutIsTerminal, stderrIsTerminal: settings.stderrIsTerminal)
    r.stdout.append(contentsOf: body.stdout)
    if let note = body.note { r.note(note) }
    return r
  }

  static func progress(_ event: JSONObject) -> ProgressUpdate? {
    guard case .number(let done)? = event["done"], let doneBytes = done.int64Value else { return nil }
    var total: Int64?
    if case .number(let n)? = event["total"] { total = n.int64Value }
    return ProgressUpdate(
      isUpload: event["direction"]?.stringValue == "upload", done: doneBytes, total: total)
  }
}
