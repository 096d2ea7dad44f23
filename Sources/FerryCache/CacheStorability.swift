/// Whether a response may be stored (RFC 9111 section 3), and why not.
public enum CacheStorability: Sendable, Equatable {
  case storable
  case notStorable(Reason)

  /// Why a response is not stored; `rawValue` is the stable name logs and tests use.
  public enum Reason: String, Sendable {
    /// Only `GET` responses are stored.
    case method
    /// 1xx, 206 (no partial content is stored), 304 (it updates, see `CacheRevalidation`), or
    /// a status neither cacheable by default nor given explicit freshness.
    case status
    case requestNoStore = "request_no_store"
    case responseNoStore = "response_no_store"
    /// `private` in a shared cache.
    case privateInShared = "private_in_shared"
    /// Authorization in a shared cache without `public`, `s-maxage` or `must-revalidate` (3.5).
    case authorization
    /// `Vary: *` never matches a later request, so it is not stored (nor a `Vary` of more than
    /// `VaryRule.maxNames` fields).
    case varyStar = "vary_star"
    /// The request's `Range`, `If-Range`, `If-Match` or `If-Unmodified-Since`: never stored.
    case partialRequest = "partial_request"
  }

  /// The storability of `status`/`headers` as the answer to `request`.
  public init(request: CacheRequest, status: Int, headers: CacheHeaderList) {
    self = Self.decide(
      request: request, status: status, headers: headers, control: CacheControl(headers: headers))
  }

  static func decide(request: CacheRequest, status: Int, headers: CacheHeaderList, control: CacheControl)
    -> CacheStorability
  {
    let shared = request.key.partition.isShared
    guard request.key.method == "GET" else { return .notStorable(.method) }
    guard !request.bypassesCache, request.range == nil else { return .notStorable(.partialRequest) }
    guard !request.control.noStore else { return .notStorable(.requestNoStore) }
    guard !control.noStore else { return .notStorable(.responseNoStore) }
    guard !(shared && control.isPrivate) else { return .notStorable(.privateInShared) }
    if shared && request.hasAuthorization
      && !(control.isPublic || control.sMaxAge != nil || control.mustRevalidate)
    {
      return .notStorable(.authorization)
    }
    guard status >= 200, status != 206, status != 304, status <= 999 else {
      return .notStorable(.status)
    }
    let explicit =
      control.maxAge != nil || (shared && control.sMaxAge != nil)
      || CacheFields.contains("expires", in: headers) || control.isPublic
      || (!shared && control.isPrivate)
    guard explicit || Freshness.isCacheableByDefault(status) else { return .notStorable(.status) }
    if VaryRule.names(headers).contains("*") { return .notStorable(.varyStar) }
    return .storable
  }

  /// Response fields never stored (3.1): hop-by-hop fields and those `Connection` names; in a
  /// shared cache also `Set-Cookie` (RFC 9111 7.3: one user's cookie must not reach another).
  /// A private cache keeps `Set-Cookie` as RFC 9111 3.1 asks; the driver must not feed a served
  /// entry's cookies into the jar again (they were applied when the response arrived).
  static func storedHeaders(_ headers: CacheHeaderList, shared: Bool) -> CacheHeaderList {
    var connectionNamed: Set<String> = []
    for field in headers where field.name == "connection" {
      for member in CacheFields.listMembers(field.value) { connectionNamed.insert(member.lowercased()) }
    }
    return headers.filter { field in
      !isUnstored(field.name) && !connectionNamed.contains(field.name)
        && !(shared && (field.name == "set-cookie" || field.name == "set-cookie2"))
    }
  }

  static func isUnstored(_ name: String) -> Bool {
    switch name {
    case "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade",
      "proxy-authenticate", "proxy-authentication-info", "proxy-authorization":
      true
    default: false
    }
  }
}
