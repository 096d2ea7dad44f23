/// A `Content-Range` response field (RFC 9110 §14.4): `bytes FIRST-LAST/LENGTH` on a 206, or
/// `bytes */LENGTH` on a 416, which a resumed download checks against its partial file.
public struct ContentRange: Equatable, Sendable {
  /// The first byte of the range; nil for the unsatisfied form `bytes */N`.
  public var first: Int64?
  /// The last byte of the range (inclusive); nil for the unsatisfied form.
  public var last: Int64?
  /// The representation's whole length; nil for `/*`.
  public var completeLength: Int64?

  public init(first: Int64?, last: Int64?, completeLength: Int64?) {
    self.first = first
    self.last = last
    self.completeLength = completeLength
  }

  /// Parses `value`; nil for anything but a well-formed byte range.
  public init?(_ value: String) {
    let text = value.trimmedOfBlanks()
    guard text.lowercased().hasPrefix("bytes ") else { return nil }
    let rest = text.dropFirst(6).trimmedOfBlanks()
    let halves = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
    guard halves.count == 2 else { return nil }
    if halves[1] == "*" {
      completeLength = nil
    } else {
      guard let length = Self.number(halves[1]) else { return nil }
      completeLength = length
    }
    if halves[0] == "*" {
      guard completeLength != nil else { return nil }
      first = nil
      last = nil
      return
    }
    let bounds = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
    guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]),
      first <= last
    else { return nil }
    if let completeLength, last >= completeLength { return nil }
    self.first = first
    self.last = last
  }

  /// Digits only (no sign, no spaces), at most 18 of them so the value fits.
  private static func number(_ s: Substring) -> Int64? {
    guard !s.isEmpty, s.count <= 18, s.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
    return Int64(s)
  }
}

extension StringProtocol {
  /// Without leading and trailing spaces and tabs.
  fileprivate func trimmedOfBlanks() -> Substring {
    var s = Substring(self)
    while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
    while let c = s.last, c == " " || c == "\t" { s.removeLast() }
    return s
  }
}
