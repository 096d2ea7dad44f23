/// The `Cache-Control` directives the cache acts on, parsed from a request or a response.
///
/// Parsing follows RFC 9111 5.2: a comma-separated list of `token[=token|quoted-string]`,
/// names case-insensitive, arguments in either form. A repeated directive keeps its first
/// occurrence (4.2.1). A delta-seconds argument that is not all digits makes the directive
/// present but zero (a response with an invalid `max-age` is stale, as 4.2.1 encourages).
/// `no-cache` and `private` with field names act as their plain forms: the cache does not
/// store responses minus some fields.
public struct CacheControl: Sendable, Equatable {
  public var maxAge: Int64?
  public var sMaxAge: Int64?
  /// Request: any staleness accepted when the directive has no argument (`Int64.max`).
  public var maxStale: Int64?
  public var minFresh: Int64?
  public var noCache = false
  public var noStore = false
  public var isPrivate = false
  public var isPublic = false
  public var mustRevalidate = false
  public var proxyRevalidate = false
  public var onlyIfCached = false
  /// Parsed but not acted on: `immutable` only saves revalidations a fresh entry never needs.
  public var immutable = false

  public init() {}

  /// The directives of all `cache-control` lines of `headers`.
  public init(headers: CacheHeaderList) {
    for field in headers where field.name == "cache-control" {
      CacheFields.forEachMember(Substring(field.value)) { apply($0) }
    }
  }

  /// Whether any `cache-control` line is present (for `Pragma: no-cache`, RFC 9111 5.4).
  static func isPresent(in headers: CacheHeaderList) -> Bool {
    CacheFields.contains("cache-control", in: headers)
  }

  private mutating func apply(_ member: Substring) {
    var name = member
    var argument: Substring?
    let bytes = member.utf8
    if let equals = bytes.firstIndex(of: 0x3D) {
      name = CacheFields.trimmed(member[member.startIndex..<equals])
      var value = CacheFields.trimmed(member[bytes.index(after: equals)...])
      let v = value.utf8
      if v.count >= 2, v.first == 0x22, v.last == 0x22 {
        value = value[v.index(after: v.startIndex)..<v.index(before: v.endIndex)]
      }
      argument = value
    }
    switch CacheFields.asciiLowercased(name) {
    case "max-age": Self.setOnce(&maxAge, argument)
    case "s-maxage": Self.setOnce(&sMaxAge, argument)
    case "min-fresh": Self.setOnce(&minFresh, argument)
    case "max-stale":
      if maxStale == nil {
        maxStale = argument.map { CacheFields.deltaSeconds($0) ?? 0 } ?? Int64.max
      }
    case "no-cache": noCache = true
    case "no-store": noStore = true
    case "private": isPrivate = true
    case "public": isPublic = true
    case "must-revalidate": mustRevalidate = true
    case "proxy-revalidate": proxyRevalidate = true
    case "only-if-cached": onlyIfCached = true
    case "immutable": immutable = true
    default: break
    }
  }

  private static func setOnce(_ slot: inout Int64?, _ argument: Substring?) {
    guard slot == nil else { return }
    slot = argument.flatMap { CacheFields.deltaSeconds($0) } ?? 0
  }
}
