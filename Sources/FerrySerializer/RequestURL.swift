import FerryWire

/// Request URLs: a job's `url` checked, resolved against the session's base URL (RFC 3986 §5.2)
/// and normalized for the wire.
///
/// Where PROTOCOL.md is silent, ferry decides:
/// - Space, control characters and DEL anywhere are `invalid_job` (field `url`): they are almost
///   always an unescaped parameter or a stray newline, and guessing would hide the bug.
/// - A `%` not followed by two hex digits is `invalid_job`.
/// - Non-ASCII bytes, and the ASCII characters RFC 3986 allows nowhere (`"` `<` `>` `\` `^`
///   `` ` `` `{` `|` `}`), are percent-encoded as UTF-8 in the path and query, as browsers and
///   NSURL (since iOS 17) do. `[` and `]` are kept: queries like `a[]=1` are common.
/// - The host must be an ASCII name or an IP literal: there is no IDNA here, so a non-ASCII host
///   is `invalid_job`. User info (`user:pass@`) is refused, so that credentials never travel in
///   a URL, which `started` events and logs show; `auth` is the way to send them.
/// - Scheme and host are lower-cased, an empty port (`host:`) is dropped, dot segments are
///   removed, and the fragment is dropped (fragments are never sent).
public enum RequestURL {
  /// Whether the resolved URL has a query, so that parameters know to add `?` or `&`.
  enum QueryState: Sendable {
    case none
    /// A bare trailing `?`, reused.
    case empty
    case nonEmpty
  }

  /// A resolved URL without fragment, as bytes.
  struct Resolved: Sendable {
    var bytes: [UInt8]
    var query: QueryState
  }

  /// A checked base URL with AFHTTPSessionManager's trailing `/` added to a non-empty path.
  struct Base: Sendable {
    let parts: URIParts
  }

  /// The request URL of `reference`, resolved against `base` when it is relative, with every
  /// rule above applied. `RequestURL.resolve(baseURL, against: nil)` checks a configured base.
  public static func resolve(_ reference: String, against base: String?) throws(WireError) -> String {
    let parsedBase: Result<Base, WireError>? = base.map { text in
      Result { () throws(WireError) in try parseBase(text) }
    }
    let resolved = try resolve(reference, base: parsedBase)
    return String(decoding: resolved.bytes, as: UTF8.self)
  }

  /// Plain RFC 3986 §5.2 resolution (strict parser, fragment kept, no checks): `g;x?y#s`
  /// against `http://a/b/c/d;p?q` is `http://a/b/c/g;x?y#s`.
  public static func resolveRFC3986(_ reference: String, against base: String) -> String {
    let b = URIParts(parsing: Array(base.utf8)[...])
    return URIParts(parsing: Array(reference.utf8)[...]).resolved(against: b).text
  }

  /// Parses and checks a session's base URL.
  /// The origin of a session's `base_url`, after checking it as the serializer would (absolute,
  /// http or https, no user info): what the config loader refuses a bad base with.
  public static func baseOrigin(_ text: String) throws(WireError) -> URLOrigin {
    let base = try parseBase(text)
    var bytes: [UInt8] = []
    if let scheme = base.parts.scheme { bytes += scheme + Array("://".utf8) }
    if let authority = base.parts.authority { bytes += authority }
    return URLOrigin(String(decoding: bytes, as: UTF8.self))
  }

  static func parseBase(_ text: String) throws(WireError) -> Base {
    let bytes: [UInt8]
    do throws(WireError) {
      bytes = try prepare(text)
    } catch {
      throw baseError(error)
    }
    var parts = URIParts(parsing: bytes[...])
    guard parts.scheme != nil else {
      throw WireError.invalidJob("url", "the session's base_url is not an absolute URL")
    }
    do throws(WireError) {
      let resolved = try absolute(parts)
      parts = URIParts(parsing: resolved.bytes[...])
    } catch {
      throw baseError(error)
    }
    if !parts.path.isEmpty, parts.path.last != UInt8(ascii: "/") {
      parts.path = Array(parts.path + [UInt8(ascii: "/")])[...]
    }
    return Base(parts: parts)
  }

  private static func baseError(_ error: WireError) -> WireError {
    WireError(error.code, "the session's base_url is unusable: \(error.message)", field: "url")
  }

  /// Resolves `reference`; `base` is `nil` when the session has none, or the error its
  /// base_url gave, thrown only if a relative reference needs it.
  static func resolve(_ reference: String, base: Result<Base, WireError>?) throws(WireError) -> Resolved {
    if let plain = TextCheck.withBytes(reference, plainAbsolute) { return plain }
    return try resolveInParts(reference, base: base)
  }

  /// `resolve` the long way: split into parts, each checked and normalized, then composed.
  static func resolveInParts(_ reference: String, base: Result<Base, WireError>?) throws(WireError)
    -> Resolved
  {
    let bytes = try prepare(reference)
    let parts = URIParts(parsing: bytes[...])
    if parts.scheme != nil { return try absolute(parts) }
    guard let base else {
      throw WireError.invalidJob("url", "relative URL, and the session has no base_url")
    }
    let resolvedBase = try base.get()
    let target = parts.resolved(against: resolvedBase.parts)
    // The base's authority was checked when it was parsed; a network-path reference (`//host/x`)
    // brings its own.
    let authority = parts.authority != nil ? try normalizedAuthority(target.authority) : nil
    return compose(target, authority: authority)
  }

  /// An absolute reference: scheme and host checked and normalized, dot segments removed.
  private static func absolute(_ parts: URIParts) throws(WireError) -> Resolved {
    guard let scheme = parts.scheme, isHTTPScheme(scheme) else {
      let name = String(decoding: parts.scheme ?? [], as: UTF8.self)
      throw WireError(.unsupportedScheme, "only http and https URLs are allowed, not \(name):")
    }
    var target = parts
    target.path = URIParts.removingDotSegments(parts.path)
    return compose(target, authority: try normalizedAuthority(parts.authority))
  }

  private static func isHTTPScheme(_ scheme: ArraySlice<UInt8>) -> Bool {
    guard scheme.count == 4 || scheme.count == 5 else { return false }
    let s = scheme.startIndex
    return TextCheck.lowered(scheme[s]) == 0x68 && TextCheck.lowered(scheme[s + 1]) == 0x74
      && TextCheck.lowered(scheme[s + 2]) == 0x74 && TextCheck.lowered(scheme[s + 3]) == 0x70
      && (scheme.count == 4 || TextCheck.lowered(scheme[s + 4]) == 0x73)
  }

  /// Writes the URL without fragment: lower-cased scheme, `authority` when given (else the
  /// target's own, already normalized), path and query.
  private static func compose(_ target: URIParts, authority: [UInt8]?) -> Resolved {
    var out: [UInt8] = []
    let scheme = target.scheme ?? []
    let hostBytes = authority.map { $0[...] } ?? target.authority ?? []
    out.reserveCapacity(scheme.count + hostBytes.count + target.path.count + (target.query?.count ?? 0) + 8)
    for b in scheme { out.append(TextCheck.lowered(b)) }
    out.append(contentsOf: "://".utf8)
    out.append(contentsOf: hostBytes)
    out.append(contentsOf: target.path)
    var state = QueryState.none
    if let query = target.query {
      out.append(UInt8(ascii: "?"))
      out.append(contentsOf: query)
      state = query.isEmpty ? .empty : .nonEmpty
    }
    return Resolved(bytes: out, query: state)
  }
}
