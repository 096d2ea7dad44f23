/// A URI reference split into RFC 3986's five components, each a slice of the same bytes.
///
/// `init` is Appendix B's regular expression written out by hand; it never fails, so checking
/// the pieces is left to `RequestURL`.
struct URIParts: Sendable {
  var scheme: ArraySlice<UInt8>?
  var authority: ArraySlice<UInt8>?
  var path: ArraySlice<UInt8>
  var query: ArraySlice<UInt8>?
  var fragment: ArraySlice<UInt8>?

  init(
    scheme: ArraySlice<UInt8>?, authority: ArraySlice<UInt8>?, path: ArraySlice<UInt8>,
    query: ArraySlice<UInt8>?, fragment: ArraySlice<UInt8>?
  ) {
    self.scheme = scheme
    self.authority = authority
    self.path = path
    self.query = query
    self.fragment = fragment
  }

  /// Splits `s` as `^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?`.
  init(parsing s: ArraySlice<UInt8>) {
    let end = s.endIndex
    var i = s.startIndex
    var j = i
    while j < end, !Self.endsScheme(s[j]) { j += 1 }
    if j < end, j > i, s[j] == UInt8(ascii: ":") {
      scheme = s[i..<j]
      i = j + 1
    }
    if end - i >= 2, s[i] == UInt8(ascii: "/"), s[i + 1] == UInt8(ascii: "/") {
      j = i + 2
      while j < end, !Self.endsAuthority(s[j]) { j += 1 }
      authority = s[(i + 2)..<j]
      i = j
    }
    j = i
    while j < end, s[j] != UInt8(ascii: "?"), s[j] != UInt8(ascii: "#") { j += 1 }
    path = s[i..<j]
    i = j
    if i < end, s[i] == UInt8(ascii: "?") {
      j = i + 1
      while j < end, s[j] != UInt8(ascii: "#") { j += 1 }
      query = s[(i + 1)..<j]
      i = j
    }
    if i < end, s[i] == UInt8(ascii: "#") { fragment = s[(i + 1)..<end] }
  }

  /// `/`, `?` or `#`.
  @inline(__always) private static func endsAuthority(_ b: UInt8) -> Bool {
    b == 0x2F || b == 0x3F || b == 0x23
  }

  /// `:`, `/`, `?` or `#`.
  @inline(__always) private static func endsScheme(_ b: UInt8) -> Bool {
    b == 0x3A || endsAuthority(b)
  }

  /// RFC 3986 §5.2.2, strict: this reference resolved against `base`.
  func resolved(against base: URIParts) -> URIParts {
    if scheme != nil {
      return URIParts(
        scheme: scheme, authority: authority, path: Self.removingDotSegments(path), query: query,
        fragment: fragment)
    }
    if authority != nil {
      return URIParts(
        scheme: base.scheme, authority: authority, path: Self.removingDotSegments(path), query: query,
        fragment: fragment)
    }
    var target = URIParts(
      scheme: base.scheme, authority: base.authority, path: path, query: query, fragment: fragment)
    if path.isEmpty {
      target.path = base.path
      if query == nil { target.query = base.query }
    } else if path.first == UInt8(ascii: "/") {
      target.path = Self.removingDotSegments(path)
    } else {
      target.path = Self.removingDotSegments(Self.merge(base: base, path: path))
    }
    return target
  }

  /// §5.2.3: `path` appended to the base path's directory.
  static func merge(base: URIParts, path: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    var out: [UInt8] = []
    if base.authority != nil, base.path.isEmpty {
      out.append(UInt8(ascii: "/"))
    } else if let slash = base.path.lastIndex(of: UInt8(ascii: "/")) {
      out.append(contentsOf: base.path[...slash])
    }
    out.append(contentsOf: path)
    return out[...]
  }

  /// The reference as text (§5.3), fragment included.
  var text: String {
    var out: [UInt8] = []
    if let scheme {
      out.append(contentsOf: scheme)
      out.append(UInt8(ascii: ":"))
    }
    if let authority {
      out.append(contentsOf: [UInt8(ascii: "/"), UInt8(ascii: "/")])
      out.append(contentsOf: authority)
    }
    out.append(contentsOf: path)
    if let query {
      out.append(UInt8(ascii: "?"))
      out.append(contentsOf: query)
    }
    if let fragment {
      out.append(UInt8(ascii: "#"))
      out.append(contentsOf: fragment)
    }
    return String(decoding: out, as: UTF8.self)
  }
}
