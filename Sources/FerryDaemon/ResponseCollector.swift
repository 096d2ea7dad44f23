import FerryWire

/// Gathers a response body for the `done` or `failed` event according to the job's `response`
/// mode and `max_inline_bytes`.
///
/// Pure: the driver feeds it chunks and asks for the body at the end. `auto` embeds JSON media
/// types as JSON when the bytes parse, other text as a string when it is valid UTF-8, and anything
/// else as base64.
public struct ResponseCollector: Sendable {
  public let mode: ResponseMode
  public let maxInlineBytes: Int
  private(set) var bytes: [UInt8] = []
  /// True once more than `maxInlineBytes` arrived; the rest is counted, not kept.
  public private(set) var isOverLimit = false
  /// Every body byte seen, kept or not.
  public private(set) var totalBytes: Int64 = 0

  public init(mode: ResponseMode, maxInlineBytes: Int) {
    self.mode = mode
    self.maxInlineBytes = maxInlineBytes
  }

  /// Bytes held for the event.
  public var keptBytes: Int { bytes.count }

  /// How many more bytes (negative: fewer) it would keep after `append` of `count` bytes.
  public func keptDelta(forChunk count: Int) -> Int {
    guard mode != .discard, mode != .stream, !isOverLimit else { return 0 }
    return bytes.count + count > maxInlineBytes ? -bytes.count : count
  }

  /// Takes the next chunk of body bytes.
  public mutating func append(_ chunk: UnsafeRawBufferPointer) {
    totalBytes += Int64(chunk.count)
    guard mode != .discard, mode != .stream, !isOverLimit else { return }
    if bytes.count + chunk.count > maxInlineBytes {
      isOverLimit = true
      bytes = []
      return
    }
    bytes.append(contentsOf: chunk)
  }

  /// The body as the event carries it, for a response of `contentType`; an error when it does
  /// not fit the mode (`json` that does not parse, `text` that is not UTF-8) or is too large.
  public func body(contentType: String?) -> Result<ResponseBody, WireError> {
    if mode == .discard || mode == .stream { return .success(.none) }
    if isOverLimit {
      return .failure(
        WireError(
          .responseTooLarge,
          "response body is larger than max_inline_bytes (\(maxInlineBytes)); use output to stream it to a file"
        ))
    }
    switch mode {
    case .discard, .stream: return .success(.none)
    case .base64: return .success(.base64(bytes))
    case .json:
      guard Self.isJSON(bytes) else {
        return .failure(WireError(.transferFailed, "response body is not valid JSON"))
      }
      return .success(.json(bytes))
    case .text:
      if let decoded = Self.decoded(bytes, contentType: contentType) { return .success(decoded) }
      guard let s = String(validating: bytes, as: UTF8.self) else {
        return .failure(WireError(.transferFailed, "response body is not valid UTF-8 text"))
      }
      return .success(.text(s))
    case .auto:
      return .success(Self.automatic(bytes, contentType: contentType))
    }
  }

  /// `auto`: JSON types as JSON, textual types as a string, everything else as base64.
  static func automatic(_ bytes: [UInt8], contentType: String?) -> ResponseBody {
    let media = MediaType(contentType)
    if bytes.isEmpty { return media.isJSON || media.isText ? .text("") : .base64([]) }
    if media.isJSON || media.isText, let decoded = decoded(bytes, media: media) { return decoded }
    if media.isJSON, isJSON(bytes) { return .json(bytes) }
    if media.isJSON || media.isText, let s = String(validating: bytes, as: UTF8.self) {
      return .text(s)
    }
    return .base64(bytes)
  }

  /// The body decoded from a declared ISO-8859-1, windows-1252 or UTF-16 charset; nil for
  /// any other charset, or bytes that are not valid in the declared one.
  static func decoded(_ bytes: [UInt8], contentType: String?) -> ResponseBody? {
    decoded(bytes, media: MediaType(contentType))
  }

  private static func decoded(_ bytes: [UInt8], media: MediaType) -> ResponseBody? {
    guard let label = media.charset, let charset = TextCharset(label: label),
      let text = charset.decode(bytes)
    else { return nil }
    return .decodedText(text, charset: charset.rawValue)
  }

  private static func isJSON(_ bytes: [UInt8]) -> Bool {
    (try? JSONReader(maxDepth: 512).read(bytes)) != nil
  }
}
