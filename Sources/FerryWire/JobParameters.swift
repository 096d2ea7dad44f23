/// How a job holds its `parameters`: as a tree, or as the compact JSON text the client sent.
///
/// A job line keeps its parameters as text when it can stand for the tree: the serializer sends
/// it as a JSON body, or flattens it into a query string or form body, so the tree (a string
/// per key and value, an array per container) is built only if someone asks for
/// `Job.parameters`.
enum JobParameters: Sendable, Equatable {
  case value(JSONValue)
  /// Compact JSON text (no insignificant whitespace) that the reader has checked: grammar,
  /// UTF-8, depth and duplicate keys. No string in it holds an escape that `JSONWriter` writes
  /// differently, so it is byte for byte `JSONWriter.bytes(value)`.
  case json([UInt8])

  /// The parameters as a tree; built from the text each time for `.json`.
  var value: JSONValue {
    switch self {
    case .value(let value): return value
    case .json(let text):
      // Checked text always reads; the depth was bounded when it was checked.
      return (try? JSONReader(maxDepth: .max).read(text)) ?? .null
    }
  }

  static func == (a: JobParameters, b: JobParameters) -> Bool {
    if case .json(let x) = a, case .json(let y) = b, x == y { return true }
    return a.value == b.value
  }

  /// `text` (checked JSON) without its insignificant whitespace.
  static func compacted(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(text.count)
    var isInString = false
    var i = 0
    while i < text.count {
      let b = text[i]
      if isInString {
        out.append(b)
        if b == UInt8(ascii: "\\") {
          // Checked text: an escape always has its next byte.
          out.append(text[i + 1])
          i += 1
        } else if b == UInt8(ascii: "\"") {
          isInString = false
        }
      } else if b == UInt8(ascii: "\"") {
        isInString = true
        out.append(b)
      } else if !JSONParser<JSONCheckSink>.isWhitespace(b) {
        out.append(b)
      }
      i += 1
    }
    return out
  }
}

extension Job {
  /// The parameters as any JSON value; `nil` means "not given".
  ///
  /// Setting replaces them (and drops any text kept with them); reading a job decoded with a
  /// JSON body builds the tree from its text, so callers that only need to know whether there
  /// are parameters use `hasParameters`.
  public var parameters: JSONValue? {
    get { parametersStorage?.value }
    set { parametersStorage = newValue.map(JobParameters.value) }
  }

  /// The compact JSON text of `parameters` as the client sent it (key order, number text and
  /// escapes kept, insignificant whitespace dropped), for a job decoded from a line whose
  /// parameters hold no escape, or, with `"encoding": "json"`, only escapes that `JSONWriter`
  /// writes the same; `nil` otherwise. When present it is byte for byte
  /// `JSONWriter.bytes(parameters!)`, without building the tree.
  public var parametersJSON: [UInt8]? {
    if case .json(let text) = parametersStorage { return text }
    return nil
  }

  /// Whether the job has parameters, without building them.
  public var hasParameters: Bool { parametersStorage != nil }
}
