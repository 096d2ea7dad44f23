import FerryWire

#if canImport(Glibc)
  import Glibc
#endif

/// Turns the header lines libcurl hands its header callback into response heads.
///
/// libcurl calls the header callback once per line for every hop: interim 1xx responses, each
/// redirect followed, the final response, and trailers after a chunked body. A status line starts
/// a new head; the blank line ends it. Names are lower-cased, values trimmed, obsolete line
/// folding joined with a space; lines outside a head (trailers) are ignored.
public struct ResponseHeadParser: Sendable {
  /// What a line completed.
  public enum Event: Sendable, Equatable {
    /// Nothing yet.
    case none
    /// An interim 1xx head ended (100 Continue, 103 Early Hints); a real one follows.
    case interim(status: Int)
    /// A final (non-1xx) head ended: a redirect being followed, or the response itself.
    case complete(ResponseHead)
  }

  private var status = 0
  private var httpVersion = ""
  private var headers = HeaderFields()
  private var isInHead = false

  public init() {}

  /// Feeds one line, with or without its CRLF.
  public mutating func feed(_ line: UnsafeRawBufferPointer) -> Event {
    let text = Self.trimmed(line)
    guard text.isEmpty else {
      feed(text: text)
      return .none
    }
    return endBlock()
  }

  /// The blank line that ends a block came: the head it completes, if it does.
  public mutating func endBlock() -> Event {
    guard isInHead else { return .none }
    isInHead = false
    if (100..<200).contains(status) { return .interim(status: status) }
    return .complete(ResponseHead(status: status, fields: headers, httpVersion: httpVersion))
  }

  /// Feeds a line that is not blank (a status line, a field, a folded line): what `feed`
  /// does with it, without an `Event` to make and destroy per line.
  public mutating func feed(nonBlank line: UnsafeRawBufferPointer) {
    let text = Self.trimmed(line)
    if !text.isEmpty { feed(text: text) }
  }

  private static func trimmed(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
    var end = line.count
    while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
    return UnsafeRawBufferPointer(rebasing: line[0..<end])
  }

  private mutating func feed(text: UnsafeRawBufferPointer) {
    if Self.isStatusLine(text) {
      startHead(text)
    } else if isInHead {
      if text[0] == 0x20 || text[0] == 0x09 {
        foldIntoLastHeader(text)
      } else {
        addHeader(text)
      }
    }
  }

  /// Feeds one line given as bytes (convenience for tests).
  public mutating func feed(_ line: [UInt8]) -> Event {
    line.withUnsafeBytes { feed($0) }
  }

  private static func isStatusLine(_ text: UnsafeRawBufferPointer) -> Bool {
    text.count >= 5 && text[0] == 0x48 && text[1] == 0x54 && text[2] == 0x54 && text[3] == 0x50
      && text[4] == 0x2F  // "HTTP/"
  }

  /// `HTTP/1.1 200 OK` → version `1.1`, status 200; `HTTP/2 200` → `2`.
  private mutating func startHead(_ text: UnsafeRawBufferPointer) {
    // Fields split at runs of spaces, without building an array of them (once per response).
    func field(from start: Int) -> Range<Int> {
      var lower = start
      while lower < text.count, text[lower] == 0x20 { lower += 1 }
      var upper = lower
      while upper < text.count, text[upper] != 0x20 { upper += 1 }
      return lower..<upper
    }
    let first = field(from: 0)
    var version = String(decoding: text[(first.lowerBound + 5)..<first.upperBound], as: UTF8.self)
    if version == "2.0" || version == "3.0" { version = String(version.prefix(1)) }
    let second = field(from: first.upperBound)
    var code = 0
    if second.count == 3, text[second].allSatisfy({ (0x30...0x39).contains($0) }) {
      for byte in text[second] { code = code * 10 + Int(byte - 0x30) }
    }
    status = code
    httpVersion = version
    // A head is handed over as a copy sharing this storage: fresh storage with room for a
    // usual head, rather than growing one field at a time.
    headers = HeaderFields()
    headers.reserveCapacity(fields: 16, bytes: 512)
    isInHead = true
  }

  private mutating func addHeader(_ text: UnsafeRawBufferPointer) {
    // memchr: a word at a time (a byte loop cost about 4 instructions a byte; issue 29).
    guard let base = text.baseAddress, let found = memchr(base, 0x3A, text.count) else { return }
    let colon = UnsafeRawPointer(found) - base
    guard colon > 0 else { return }
    let value = Self.trimmed(text, from: colon + 1)
    headers.append(
      line: UnsafeRawBufferPointer(rebasing: text[..<value.upperBound]), nameEnd: colon,
      valueStart: value.lowerBound)
  }

  private mutating func foldIntoLastHeader(_ text: UnsafeRawBufferPointer) {
    headers.appendToLastValue(UnsafeRawBufferPointer(rebasing: text[Self.trimmed(text, from: 0)]))
  }

  /// Where `text[from...]` lies without its leading and trailing blanks.
  private static func trimmed(_ text: UnsafeRawBufferPointer, from: Int) -> Range<Int> {
    var start = from
    var end = text.count
    while start < end, text[start] == 0x20 || text[start] == 0x09 { start += 1 }
    while end > start, text[end - 1] == 0x20 || text[end - 1] == 0x09 { end -= 1 }
    return start..<end
  }
}
