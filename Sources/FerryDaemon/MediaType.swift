/// A Content-Type reduced to what ferry decides on: the lower-cased `type/subtype`.
public struct MediaType: Sendable, Equatable {
  /// `type/subtype` without parameters, lower-cased; empty when there was none.
  public let essence: String

  public init(_ header: String?) {
    guard let header else {
      essence = ""
      return
    }
    let main = header.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    essence = main.trimmingSpaces().lowercased()
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
