import CFerryCurl

/// The last `CURLOPT_HTTPHEADER` list built on an easy handle, kept for the next hop that would
/// build the same one (issue 29).
///
/// Most jobs of a session send the session's headers unchanged, and the serializer hands each
/// of them the same array (`RequestSerializer.headerFields` returns the session's list as it
/// is): building the list again per job cost about 3K instructions (scanning the names, sizing,
/// one allocation, copying every line). A hop whose headers are that array, or equal to it, and
/// whose other inputs are the same (`Key`) takes the list as it is.
///
/// The cache owns the list: it frees the old one when it stores another, and the handle frees
/// the last when it goes. curl reads the list only while a transfer runs on the handle, and a
/// new list is built only in `Transfer.configureHop`, before the hop is added to the multi.
///
/// A class, owned by its `EasyHandle` alone: a struct read out of the handle was copied for every
/// lookup.
final class HeaderListCache {
  /// What the list depends on besides the request's headers.
  struct Key: Equatable {
    /// The request may carry a body (curl's `Expect: 100-continue` is then turned off).
    var mayHaveBody: Bool
    /// A POST (curl's default form Content-Type is then turned off).
    var isPost: Bool
    /// `TransferSpec.acceptEncoding`.
    var acceptEncoding: Bool
    /// The `Range` and `If-Range` lines of a resumed download.
    var range: String?
    var ifRange: String?
  }

  /// What the scan of the headers found, besides the list.
  struct Scan {
    /// No header makes the hop unusual (credentials, cookies, a range of the request's own).
    var ordinary: Bool
    /// The request's own `Accept-Encoding`, if it has one.
    var acceptEncoding: String?
  }

  /// Held so that its storage stays allocated: an array with the same storage has these
  /// elements (a shared buffer is never written in place).
  private var headers: [(name: String, value: String)] = []
  private var key: Key?
  private var scan = Scan(ordinary: true, acceptEncoding: nil)
  private(set) var list: UnsafeMutablePointer<curl_slist>?

  /// The stored list and scan when `headers` and `key` are those it was built from.
  func lookup(_ headers: [(name: String, value: String)], key: Key) -> (
    UnsafeMutablePointer<curl_slist>?, Scan
  )? {
    guard let stored = self.key, stored == key, Self.same(headers, self.headers) else { return nil }
    return (list, scan)
  }

  /// Keeps `list` (which the cache now owns) for hops with these inputs, freeing the last.
  func store(
    _ list: UnsafeMutablePointer<curl_slist>?, scan: Scan, headers: [(name: String, value: String)], key: Key
  ) {
    free()
    self.list = list
    self.scan = scan
    self.headers = headers
    self.key = key
  }

  /// Frees the list; the next hop builds one.
  func free() {
    if let list { HeaderBlock.free(list) }
    list = nil
    key = nil
    headers = []
  }

  deinit { free() }

  /// The same storage (the common case: both are the session's list), else the same fields in
  /// the same order, names compared exactly (a list differing only in a name's case is built
  /// again, not sent with the other spelling).
  private static func same(_ a: [(name: String, value: String)], _ b: [(name: String, value: String)]) -> Bool
  {
    guard a.count == b.count else { return false }
    let shared = a.withUnsafeBufferPointer { a in
      b.withUnsafeBufferPointer { a.baseAddress == $0.baseAddress }
    }
    return shared || a.elementsEqual(b) { $0.name == $1.name && $0.value == $1.value }
  }
}
