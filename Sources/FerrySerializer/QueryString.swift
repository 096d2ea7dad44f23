import FerryWire

/// AFNetworking's `AFQueryStringFromParameters`: parameters flattened to `field=value` pairs,
/// percent-escaped and joined with `&`.
///
/// Flattening: object keys are sorted byte-wise ascending (UTF-8 order, which is AFNetworking's
/// `compare:` for ASCII keys); a nested object becomes `key[nested]`, an array element `key[]`,
/// `key` or `key[i]` as `ArrayEncoding` says; `null` is the bare field with no `=`, booleans are
/// `1`/`0`, and a number is its text exactly as the client wrote it (clients write shortest
/// round-trip text already; re-formatting through Double would corrupt big integers). Empty
/// objects and arrays give no pair at all.
public enum QueryString {
  /// One flattened pair, unescaped: what multipart uses as part name and text.
  public struct Pair: Sendable, Equatable {
    public var field: String
    /// `nil` for a JSON `null`: the bare field.
    public var value: String?

    public init(field: String, value: String?) {
      self.field = field
      self.value = value
    }
  }

  /// The escaped query string of `parameters` ("" when they flatten to no pair).
  public static func encode(_ parameters: JSONObject, arrayEncoding: ArrayEncoding = .brackets) -> String {
    var out: [UInt8] = []
    append(parameters, arrayEncoding: arrayEncoding, into: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// The flattened pairs of `parameters`, in query-string order, unescaped.
  public static func pairs(_ parameters: JSONObject, arrayEncoding: ArrayEncoding = .brackets) -> [Pair] {
    var flattener = Flattener(sink: PairCollector(), arrayEncoding: arrayEncoding)
    flattener.flatten(parameters)
    return flattener.sink.pairs
  }

  /// Percent-escapes `s`, leaving only `A-Z a-z 0-9 - . _ ~ / ?` as they are.
  public static func escape(_ s: String) -> String {
    var out: [UInt8] = []
    appendEscaped(s, into: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// Appends the escaped query string of `parameters` to `out`; returns the number of pairs.
  @discardableResult
  static func append(_ parameters: JSONObject, arrayEncoding: ArrayEncoding, into out: inout [UInt8]) -> Int {
    var flattener = Flattener(sink: QueryWriter(), arrayEncoding: arrayEncoding)
    flattener.flatten(parameters)
    flattener.sink.out.append(to: &out)
    return flattener.sink.count
  }

  /// Whether `escape` leaves `b` as it is: `A-Z a-z 0-9 - . _ ~ / ?`.
  @inline(__always) static func isUnescaped(_ b: UInt8) -> Bool {
    switch b {
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E, 0x2F, 0x3F: true
    default: false
    }
  }

  /// The uppercase hex digit of the low four bits of `n`.
  @inline(__always) static func hexDigit(_ n: UInt8) -> UInt8 {
    n < 10 ? 0x30 + n : 0x37 + n
  }

  /// Appends the UTF-8 of `s` percent-escaped (uppercase hex) to `out`.
  static func appendEscaped(_ s: String, into out: inout [UInt8]) {
    var writer = ByteWriter(capacity: s.utf8.count * 3)
    TextCheck.withBytes(s) { appendEscaped($0, into: &writer) }
    writer.append(to: &out)
  }

  /// Appends `bytes` percent-escaped (uppercase hex) to `out`.
  static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout ByteWriter) {
    // Written straight into the writer's memory: at most three bytes out per byte in.
    out.append(maxCount: bytes.count * 3) { dst in
      var n = 0
      for b in bytes {
        if isUnescaped(b) {
          dst[n] = b
          n += 1
        } else {
          dst[n] = UInt8(ascii: "%")
          dst[n + 1] = hexDigit(b >> 4)
          dst[n + 2] = hexDigit(b & 0x0F)
          n += 3
        }
      }
      return n
    }
  }
}
