import FerryWire

/// A `multipart/form-data` body (AFStreamingMultipartFormData): parts in order, each with its
/// header fields and its content, laid out as a `BodyPlan` that streams files.
///
/// The layout is AFNetworking's: `--boundary CRLF` before the first part, `CRLF --boundary
/// CRLF` between parts, then each part's header lines, a blank line and its content, and
/// `CRLF --boundary-- CRLF` at the end.
public struct MultipartForm: Sendable, Equatable {
  /// A part's content: bytes in memory, or a whole file whose size was probed.
  public enum Content: Sendable, Equatable {
    case bytes([UInt8])
    case file(path: String, length: Int64)
    /// A passed descriptor (a regular file's range, or a stream).
    case descriptor(BodyDescriptor)

    public var length: Int64 {
      switch self {
      case .bytes(let b): Int64(b.count)
      case .file(_, let length): length
      case .descriptor(let d): BodyPlan.Segment.descriptor(d).length
      }
    }

    public static func == (a: Content, b: Content) -> Bool {
      switch (a, b) {
      case (.bytes(let x), .bytes(let y)): x == y
      case (.file(let p, let l), .file(let q, let m)): p == q && l == m
      case (.descriptor(let x), .descriptor(let y)): x === y
      default: false
      }
    }
  }

  /// One part.
  public struct Part: Sendable, Equatable {
    /// The form field name; `nil` for a part with only the headers given (AFNetworking's
    /// `appendPartWithHeaders:body:`).
    public var name: String?
    public var filename: String?
    /// The part's Content-Type, when it has one.
    public var type: String?
    /// Extra header fields, validated; one named like a generated field replaces it, and a
    /// `nil` value removes it.
    public var headers: [HeaderField]
    public var content: Content

    public init(
      name: String?, filename: String? = nil, type: String? = nil, headers: [HeaderField] = [],
      content: Content
    ) {
      self.name = name
      self.filename = filename
      self.type = type
      self.headers = headers
      self.content = content
    }

    /// The part's header fields in the order they are written: Content-Disposition (when it
    /// has a name or filename), Content-Type (when it has a type), then the extra fields.
    public var headerFields: [(name: String, value: String)] {
      var list = HeaderList()
      if name != nil || filename != nil {
        var disposition = "form-data"
        if let name { disposition += "; name=\"\(MultipartForm.escapeQuoted(name))\"" }
        if let filename { disposition += "; filename=\"\(MultipartForm.escapeQuoted(filename))\"" }
        list.set("Content-Disposition", disposition)
      }
      if let type { list.set("Content-Type", type) }
      for field in headers { list.set(field.name, field.value) }
      return list.fields
    }
  }

  public let boundary: String
  public private(set) var parts: [Part] = []

  public init(boundary: String) { self.boundary = boundary }

  public mutating func append(_ part: Part) { parts.append(part) }

  public var isEmpty: Bool { parts.isEmpty }

  /// `multipart/form-data; boundary=...`.
  public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

  /// The whole body: byte runs coalesced, files as file segments.
  public var bodyPlan: BodyPlan {
    var segments: [BodyPlan.Segment] = []
    var pending: [UInt8] = []
    for (i, part) in parts.enumerated() {
      pending.append(contentsOf: (i == 0 ? "--" : "\r\n--").utf8)
      pending.append(contentsOf: boundary.utf8)
      pending.append(contentsOf: "\r\n".utf8)
      for field in part.headerFields {
        pending.append(contentsOf: field.name.utf8)
        pending.append(contentsOf: ": ".utf8)
        pending.append(contentsOf: field.value.utf8)
        pending.append(contentsOf: "\r\n".utf8)
      }
      pending.append(contentsOf: "\r\n".utf8)
      switch part.content {
      case .bytes(let bytes): pending.append(contentsOf: bytes)
      case .file(let path, let length):
        segments.append(.bytes(pending))
        pending = []
        segments.append(.file(path: path, offset: 0, length: length))
      case .descriptor(let descriptor):
        segments.append(.bytes(pending))
        pending = []
        segments.append(.descriptor(descriptor))
      }
    }
    pending.append(contentsOf: "\r\n--".utf8)
    pending.append(contentsOf: boundary.utf8)
    pending.append(contentsOf: "--\r\n".utf8)
    segments.append(.bytes(pending))
    return BodyPlan(segments: segments)
  }

  /// A name or filename for a quoted Content-Disposition parameter: `"`, CR, LF (and NUL) are
  /// percent-escaped as the HTML standard, browsers and curl do (`%22`, `%0D`, `%0A`).
  static func escapeQuoted(_ s: String) -> String {
    guard s.utf8.contains(where: { $0 == 0x22 || $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) else { return s }
    var out: [UInt8] = []
    for b in s.utf8 {
      switch b {
      case 0x22: out.append(contentsOf: "%22".utf8)
      case 0x0D: out.append(contentsOf: "%0D".utf8)
      case 0x0A: out.append(contentsOf: "%0A".utf8)
      case 0x00: out.append(contentsOf: "%00".utf8)
      default: out.append(b)
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// A boundary as AFNetworking makes them: `Boundary+` and 16 random uppercase hex digits.
  public static func randomBoundary() -> String {
    var generator = SystemRandomNumberGenerator()
    let n = generator.next() as UInt64
    let hex = String(n, radix: 16, uppercase: true)
    return "Boundary+" + String(repeating: "0", count: 16 - hex.count) + hex
  }
}
