/// A Content-Type reduced to what ferry decides on: the lower-cased `type/subtype`.
public struct MediaType: Sendable, Equatable {
  /// `type/subtype` without parameters, lower-cased; empty when there was none.
  public let essence: String
  /// The `charset` parameter, lower-cased and unquoted; nil when there is none.
  public let charset: String?

  public init(_ header: String?) {
    guard let header else {
      essence = ""
      charset = nil
      return
    }
    let parts = header.split(separator: ";", omittingEmptySubsequences: false)
    essence = (parts.first ?? "").trimmingSpaces().lowercased()
    var charset: String?
    for parameter in parts.dropFirst() {
      let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard pair.count == 2, pair[0].trimmingSpaces().lowercased() == "charset" else { continue }
      var value = pair[1].trimmingSpaces()
      if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
        value = String(value.dropFirst().dropLast())
      }
      charset = value.lowercased()
      break
    }
    self.charset = charset
  }

  /// `application/json`, `text/json` and any `+json` suffix type.
  public var isJSON: Bool {
    essence == "application/json" || essence == "text/json" || essence.hasSuffix("+json")
  }

  /// `text/*`, and application types that are text in practice (XML, JavaScript, forms).
  public var isText: Bool {
    essence.hasPrefix("text/") || essence.hasSuffix("+xml") || essence == "application/xml"
      || essence == "application/javascript" || essence == "application/x-www-form-urlencoded"
  }
}

extension StringProtocol {
  /// The string without leading and trailing spaces and tabs.
  func trimmingSpaces() -> String {
    var s = Substring(self)
    while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
    while let l = s.last, l == " " || l == "\t" { s.removeLast() }
    return String(s)
  }
}
