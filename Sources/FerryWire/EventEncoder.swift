/// Encodes events as JSON lines, straight into a byte buffer.
///
/// Every line is one JSON object ended by `\n`; its keys start with `event`, then `id` and
/// `seq` for job events, then the event's own keys in PROTOCOL.md's order. Runs once per event,
/// so it appends bytes directly and builds no intermediate `JSONValue`s.
public enum EventEncoder {
  /// Appends `event` as one line to `out`.
  public static func encode(_ event: Event, into out: inout [UInt8]) {
    var writer = ByteWriter(capacity: 512)
    encode(event, into: &writer)
    writer.append(to: &out)
  }

  /// Appends `event` as one line to `out`.
  public static func encode(_ event: Event, into out: inout ByteWriter) {
    switch event {
    case .job(let id, let seq, let jobEvent):
      encode(jobEvent, id: id, seq: seq, into: &out)
    case .error(let error, let id):
      begin("error", into: &out)
      key("error", into: &out)
      writeError(error, id: id, into: &out)
      end(into: &out)
    case .pong:
      begin("pong", into: &out)
      end(into: &out)
    case .payload(let name, let payload):
      out.append(#"{"event":"#)
      JSONWriter.writeString(name, into: &out)
      for member in payload.members where member.key != "event" {
        out.append(UInt8(ascii: ","))
        JSONWriter.writeString(member.key, into: &out)
        out.append(UInt8(ascii: ":"))
        JSONWriter.write(member.value, into: &out)
      }
      end(into: &out)
    }
  }

  /// Appends the job event `event` of job `id`, its `seq`-th, as one line to `out`.
  public static func encode(_ event: JobEvent, id: String, seq: Int, into out: inout [UInt8]) {
    var writer = ByteWriter(capacity: 512)
    encode(event, id: id, seq: seq, into: &writer)
    writer.append(to: &out)
  }

  /// Appends the job event `event` of job `id`, its `seq`-th, as one line to `out`.
  public static func encode(_ event: JobEvent, id: String, seq: Int, into out: inout ByteWriter) {
    out.append(opening(event))
    JSONWriter.writeString(id, into: &out)
    key("seq", into: &out)
    JSONWriter.writeInteger(seq, into: &out)
    switch event {
    case .queued(let position):
      if let position {
        key("position", into: &out)
        JSONWriter.writeInteger(position, into: &out)
      }
    case .started(let attempt, let method, let url):
      key("attempt", into: &out)
      JSONWriter.writeInteger(attempt, into: &out)
      key("method", into: &out)
      JSONWriter.writeString(method, into: &out)
      key("url", into: &out)
      JSONWriter.writeString(url, into: &out)
    case .response(let head):
      writeHead(head, into: &out)
    case .progress(let progress):
      writeProgress(progress, into: &out)
    case .done(let completion):
      writeCompletion(completion, into: &out)
    case .failed(let failure):
      writeFailure(failure, into: &out)
    case .cancelled(let reason):
      key("reason", into: &out)
      JSONWriter.writeString(reason.rawValue, into: &out)
    case .waiting(let reason, let until):
      key("reason", into: &out)
      JSONWriter.writeString(reason, into: &out)
      if let until {
        key("until", into: &out)
        JSONWriter.writeInteger(until, into: &out)
      }
    }
    end(into: &out)
  }

  /// `{"event":"name","id":` for a job event: one copy of constant bytes, where the name
  /// written as a string was scanned for escapes on every event (issue 29).
  private static func opening(_ event: JobEvent) -> StaticString {
    switch event {
    case .queued: #"{"event":"queued","id":"#
    case .started: #"{"event":"started","id":"#
    case .response: #"{"event":"response","id":"#
    case .progress: #"{"event":"progress","id":"#
    case .done: #"{"event":"done","id":"#
    case .failed: #"{"event":"failed","id":"#
    case .cancelled: #"{"event":"cancelled","id":"#
    case .waiting: #"{"event":"waiting","id":"#
    }
  }

  /// Appends a `data` event of job `id`: body bytes from `offset`, as `"text"` (they must be
  /// valid UTF-8) or `"base64"`. Written straight from the borrowed bytes.
  public static func encodeData(
    id: String, seq: Int, offset: Int64, bytes: UnsafeBufferPointer<UInt8>, asText: Bool,
    into out: inout ByteWriter
  ) {
    out.append(#"{"event":"data","id":"#)
    JSONWriter.writeString(id, into: &out)
    key("seq", into: &out)
    JSONWriter.writeInteger(seq, into: &out)
    key("offset", into: &out)
    JSONWriter.writeInteger(offset, into: &out)
    if asText {
      key("text", into: &out)
      out.append(UInt8(ascii: "\""))
      JSONWriter.writeEscaped(bytes, into: &out)
    } else {
      key("base64", into: &out)
      out.append(UInt8(ascii: "\""))
      Base64.encode(bytes, into: &out)
    }
    out.append(UInt8(ascii: "\""))
    end(into: &out)
  }

  /// The line for `event`, `\n` included.
  public static func line(_ event: Event) -> [UInt8] {
    var out = ByteWriter(capacity: 512)
    encode(event, into: &out)
    return out.bytes
  }

  private static func writeProgress(_ progress: TransferProgress, into out: inout ByteWriter) {
    key("direction", into: &out)
    JSONWriter.writeString(progress.direction.rawValue, into: &out)
    key("done", into: &out)
    JSONWriter.writeInteger(progress.done, into: &out)
    key("total", into: &out)
    if let total = progress.total {
      JSONWriter.writeInteger(total, into: &out)
    } else {
      out.append("null")
    }
  }

  private static func writeCompletion(_ completion: JobCompletion, into out: inout ByteWriter) {
    writeHead(completion.head, into: &out)
    writeBody(completion.body, into: &out)
    key("url", into: &out)
    JSONWriter.writeString(completion.url, into: &out)
    key("attempts", into: &out)
    JSONWriter.writeInteger(completion.attempts, into: &out)
    key("timing", into: &out)
    writeTiming(completion.timing, into: &out)
    if let cache = completion.cache {
      key("cache", into: &out)
      JSONWriter.writeString(cache.rawValue, into: &out)
    }
  }

  private static func writeFailure(_ failure: JobFailure, into out: inout ByteWriter) {
    key("error", into: &out)
    writeError(failure.error, id: nil, into: &out)
    if let attempts = failure.attempts {
      key("attempts", into: &out)
      JSONWriter.writeInteger(attempts, into: &out)
    }
    if let head = failure.head {
      writeHead(head, into: &out)
      writeBody(failure.body, into: &out)
    }
  }

  /// `{"code", "message", "field"?, "timer"?, "id"?}`.
  static func writeError(_ error: WireError, id: String?, into out: inout ByteWriter) {
    out.append(#"{"code":"#)
    JSONWriter.writeString(error.code.rawValue, into: &out)
    key("message", into: &out)
    JSONWriter.writeString(error.message, into: &out)
    if let field = error.field {
      key("field", into: &out)
      JSONWriter.writeString(field, into: &out)
    }
    if let timer = error.timer {
      key("timer", into: &out)
      JSONWriter.writeString(timer, into: &out)
    }
    if let id {
      key("id", into: &out)
      JSONWriter.writeString(id, into: &out)
    }
    out.append(UInt8(ascii: "}"))
  }

  /// `{"event":"name"`.
  static func begin(_ name: String, into out: inout ByteWriter) {
    out.append(#"{"event":"#)
    JSONWriter.writeString(name, into: &out)
  }

  /// `,"name":` for a key that needs no escaping.
  @inline(__always) static func key(_ name: StaticString, into out: inout ByteWriter) {
    out.append(UInt8(ascii: ","))
    out.append(UInt8(ascii: "\""))
    out.append(name)
    out.append(UInt8(ascii: "\""))
    out.append(UInt8(ascii: ":"))
  }

  /// Closes the object and the line.
  static func end(into out: inout ByteWriter) {
    out.append(UInt8(ascii: "}"))
    out.append(UInt8(ascii: "\n"))
  }
}
