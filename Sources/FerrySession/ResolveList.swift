import CFerryCurl

/// A session's `resolve` pins as `CURLOPT_RESOLVE` takes them (`HOST:PORT:ADDR[,ADDR]`, and
/// `-HOST:PORT` to take a pin of an earlier configuration out of the DNS cache), built once per
/// configuration and shared, read-only, by its transfers; curl reads the list when a transfer
/// starts, so it lives as long as the specs holding it.
///
/// @unchecked Sendable: immutable once built (`entries` and `list` are `let`); curl only reads
/// the list, and it is freed in `deinit`, when no transfer's spec holds it any more.
public final class ResolveList: @unchecked Sendable, Equatable {
  public let entries: [String]
  let list: UnsafeMutablePointer<curl_slist>?

  public init(_ entries: [String]) {
    self.entries = entries
    var list: UnsafeMutablePointer<curl_slist>?
    for entry in entries { list = curl_slist_append(list, entry) }
    self.list = list
  }

  deinit { curl_slist_free_all(list) }

  public static func == (a: ResolveList, b: ResolveList) -> Bool { a.entries == b.entries }
}
