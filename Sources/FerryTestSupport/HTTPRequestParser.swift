/// Why the fixture rejected a request: the status it answers with and a short reason.
public struct HTTPParseError: Error, Equatable, Sendable {
  public var status: Int
  public var reason: String

  public init(status: Int, reason: String) {
    self.status = status
    self.reason = reason
  }
}

/// An incremental HTTP/1.x request parser that streams bodies instead of buffering them.
///
/// Feed it bytes as they arrive; it reports the head, then body slices (the Content-Length
/// body, or chunked data with the framing removed), then the end of the request. Only the
/// head is buffered, up to `maxHeadBytes`.
struct HTTPRequestParser {
  /// What `feed` reports, in order, for each request.
  enum Event {
    case head(HTTPRequestHead)
    /// Body bytes; valid only during the callback.
    case body(UnsafeRawBufferPointer)
    case end
  }

  private enum State {
    case head
    case fixedBody(remaining: UInt64)
    case chunkSize
    case chunkData(remaining: UInt64)
    case chunkDataEnd
    case trailers
  }

  static let maxHeadBytes = 64 << 10
  private var state = State.head
  /// The head, or the current chunk-size/trailer line, gathered so far.
  private var line: [UInt8] = []

  /// Parses from `input`, calling `handler` per event; stops right after `.end` so the caller
  /// can answer before reading the next pipelined request. Returns the bytes consumed.
  mutating func feed(
    _ input: UnsafeRawBufferPointer, _ handler: (Event) -> Void
  ) throws(HTTPParseError) -> Int {
    var offset = 0
    while offset < input.count {
      let (used, ended) = try step(UnsafeRawBufferPointer(rebasing: input[offset...]), handler)
      offset += used
      if ended { return offset }
    }
    return offset
  }

  /// Consumes what the current state can from `input`; returns bytes used and whether the
  /// request ended.
  private mutating func step(
    _ input: UnsafeRawBufferPointer, _ handler: (Event) -> Void
  ) throws(HTTPParseError) -> (Int, Bool) {
    switch state {
    case .head:
      return try consumeHead(input, handler)
    case .fixedBody(let remaining), .chunkData(let remaining):
      let take = Int(min(remaining, UInt64(input.count)))
      handler(.body(UnsafeRawBufferPointer(rebasing: input[..<take])))
      let left = remaining - UInt64(take)
      if case .fixedBody = state {
        state = left == 0 ? .head : .fixedBody(remaining: left)
        if left == 0 { handler(.end) }
        return (take, left == 0)
      }
      state = left == 0 ? .chunkDataEnd : .chunkData(remaining: left)
      return (take, false)
    case .chunkSize, .chunkDataEnd, .trailers:
      let (used, lineDone) = try gatherLine(input)
      guard lineDone, try finishChunkLine() else { return (used, false) }
      handler(.end)
      return (used, true)
    }
  }

  /// Gathers head bytes; on the blank line parses the head and reports it (and `.end` when
  /// the request has no body).
  private mutating func consumeHead(
    _ input: UnsafeRawBufferPointer, _ handler: (Event) -> Void
  ) throws(HTTPParseError) -> (Int, Bool) {
    for (index, byte) in input.enumerated() {
      line.append(byte)
      guard byte == UInt8(ascii: "\n") else { continue }
      if line.count == 2 && line[0] == UInt8(ascii: "\r") {
        line.removeAll()  // tolerate the empty lines RFC 9112 §2.2 allows before a request
        continue
      }
      guard line.count >= 4, line.suffix(4).elementsEqual([13, 10, 13, 10]) else { continue }
      let head = try Self.parseHead(line)
      line.removeAll(keepingCapacity: true)
      let framing = try Self.bodyFraming(of: head)
      handler(.head(head))
      switch framing {
      case .none:
        handler(.end)
        return (index + 1, true)
      case .length(let count):
        state = .fixedBody(remaining: count)
      case .chunked:
        state = .chunkSize
      }
      return (index + 1, false)
    }
    if line.count > Self.maxHeadBytes {
      throw HTTPParseError(status: 431, reason: "request head too large")
    }
    return (input.count, false)
  }

  /// Gathers one CRLF-terminated line; returns bytes used and whether the line is complete.
  private mutating func gatherLine(_ input: UnsafeRawBufferPointer) throws(HTTPParseError) -> (Int, Bool) {
    for (index, byte) in input.enumerated() {
      line.append(byte)
      if byte == UInt8(ascii: "\n") { return (index + 1, true) }
      if line.count > 4096 { throw HTTPParseError(status: 400, reason: "chunk line too long") }
    }
    return (input.count, false)
  }

  /// Acts on a complete chunk-size, chunk-end or trailer line; returns true at the request's end.
  private mutating func finishChunkLine() throws(HTTPParseError) -> Bool {
    defer { line.removeAll(keepingCapacity: true) }
    guard line.count >= 2, line[line.count - 2] == 13 else {
      throw HTTPParseError(status: 400, reason: "bare LF in chunked body")
    }
    let content = line.dropLast(2)
    switch state {
    case .chunkSize:
      let size = try Self.parseChunkSize(content)
      state = size == 0 ? .trailers : .chunkData(remaining: size)
    case .chunkDataEnd:
      guard content.isEmpty else { throw HTTPParseError(status: 400, reason: "chunk longer than its size") }
      state = .chunkSize
    default:
      if content.isEmpty {
        state = .head
        return true
      }
    }
    return false
  }
}
