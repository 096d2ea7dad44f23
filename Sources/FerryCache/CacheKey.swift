/// What one stored response is filed under: the partition, the method and the normalised URL.
///
/// Unlike swift-corelibs-foundation's URLCache, the scheme, port and query are part of the key,
/// so `http:` and `https:`, or `?page=1` and `?page=2`, never share an entry. Only `GET` is
/// stored (see `CacheStorability`); the method is in the key so that the store's index can grow
/// `HEAD` later without a migration.
public struct CacheKey: Sendable, Hashable {
  public var partition: CachePartition
  public var method: String
  public var url: CacheURL

  public init(partition: CachePartition, method: String, url: CacheURL) {
    self.partition = partition
    self.method = method
    self.url = url
  }

  /// The key as one string for the store's index: `u1000 GET https://example.test/p?q` or
  /// `shared GET …`. The partition comes first so that one user's entries are one index range.
  public var text: String {
    partition.text + " " + method + " " + url.text
  }
}

/// Whose entries a key belongs to.
///
/// A private cache (the default) is one partition per client uid: one user's lookups never see,
/// time or evict by another's entries except through the session's shared `max_bytes`. A
/// `shared` session's cache is one partition and applies RFC 9111's shared-cache rules.
public enum CachePartition: Sendable, Hashable, Comparable {
  case user(UInt32)
  case shared

  public var isShared: Bool {
    if case .shared = self { return true }
    return false
  }

  /// `u1000` or `shared`: the key's first word.
  var text: String {
    switch self {
    case .user(let uid): "u\(uid)"
    case .shared: "shared"
    }
  }
}
