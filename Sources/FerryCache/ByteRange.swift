/// A request's `Range` when it asks for one range of bytes (RFC 9110 14.1.2): `bytes=0-99`,
/// `bytes=100-` or the suffix `bytes=-100`. The cache answers such a request from a stored
/// complete `200` with a `206` of that slice (RFC 9111 3.4 allows a cache to), and leaves any
/// other `Range` (several ranges, another unit, a malformed one) to the origin.
public struct ByteRange: Sendable, Equatable {
  /// The first byte, or nil for a suffix range.
  public var first: Int64?
  /// The last byte (inclusive), or nil for "to the end"; for a suffix range, its length.
  public var last: Int64?

  public init(first: Int64?, last: Int64?) {
    self.first = first
    self.last = last
  }

  /// The range a `Range` field value names, or nil when it is not one byte range.
  public init?(_ value: String) {
    var rest = Substring(value).drop { $0 == " " || $0 == "\t" }
    guard rest.count > 6, rest.prefix(6).lowercased() == "bytes=" else { return nil }
    rest = rest.dropFirst(6)
    while let c = rest.last, c == " " || c == "\t" { rest = rest.dropLast() }
    let parts = rest.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
    guard parts.count == 2 else { return nil }
    func number(_ s: Substring) -> Int64?? {
      let t = s.trimmingSpaces
      if t.isEmpty { return .some(nil) }
      guard t.count <= 18, t.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
      return .some(Int64(t))
    }
    guard let first = number(parts[0]), let last = number(parts[1]) else { return nil }
    switch (first, last) {
    case (nil, nil): return nil
    case (let a?, let b?) where b < a: return nil
    default: break
    }
    self.first = first
    self.last = last
  }

  /// The bytes it selects of a body `length` bytes long, or nil when none (unsatisfiable).
  public func resolve(length: Int64) -> ClosedRange<Int64>? {
    guard length > 0 else { return nil }
    guard let first else {
      guard let suffix = last, suffix > 0 else { return nil }
      return max(0, length - suffix)...(length - 1)
    }
    guard first < length else { return nil }
    return first...min(last ?? (length - 1), length - 1)
  }

  /// The fields of the `206` that answers it from a stored response served with `headers`:
  /// `Content-Range` for `slice` of `length` bytes and the slice's `Content-Length` in place of
  /// the stored ones.
  public static func partialHeaders(_ headers: CacheHeaderList, slice: ClosedRange<Int64>, length: Int64)
    -> CacheHeaderList
  {
    var served = headers.filter { $0.name != "content-length" && $0.name != "content-range" }
    served.append((name: "content-range", value: "bytes \(slice.lowerBound)-\(slice.upperBound)/\(length)"))
    served.append((name: "content-length", value: "\(slice.count)"))
    return served
  }
}

extension Substring {
  fileprivate var trimmingSpaces: Substring {
    var s = self
    while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
    while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
    return s
  }
}
