import Testing

@testable import FerryCache

/// Which requests use the cache, and under which key (issue 26): the table of docs/CACHE.md
/// "What is not in the key", in a shared and in a private cache.
@Suite struct CacheAdmissionTests {
  /// What `CacheAdmission` made of a request: `key` (admitted), `auth` (admitted, counting as
  /// Authorization), or the bypass reason's code.
  static func verdict(
    _ fields: CacheHeaderList, _ traits: CacheRequestTraits, method: String, url: String, shared: Bool
  ) -> String {
    let partition: CachePartition = shared ? .shared : .user(1000)
    switch CacheAdmission(method: method, url: url, headers: fields, partition: partition, traits: traits) {
    case .admitted(let r): return r.hasAuthorization ? "auth" : "key"
    case .bypass(let reason): return reason.rawValue
    }
  }

  struct Row: Sendable {
    var fields: CacheHeaderList = []
    var traits = CacheRequestTraits()
    var method = "GET"
    var url = "http://h.test/p?q=1"
    /// The verdict in a shared cache, and in a private one.
    var shared: String
    var personal: String
  }

  static let body = CacheRequestTraits(hasBody: true)
  static let tls = CacheRequestTraits(ownTLS: true)
  static let added = CacheRequestTraits(addedCredentials: true)
  static let everything = CacheRequestTraits(hasBody: true, ownTLS: true, addedCredentials: true)

  static let table: [Row] = [
    Row(shared: "key", personal: "key"),
    Row(fields: [("accept", "*/*"), ("x-v", "1")], shared: "key", personal: "key"),
    Row(fields: [("host", "attacker.test")], shared: "routing_header", personal: "routing_header"),
    Row(fields: [("host", "h.test")], shared: "routing_header", personal: "routing_header"),
    Row(fields: [("x-forwarded-host", "a")], shared: "routing_header", personal: "routing_header"),
    Row(fields: [("forwarded", "host=a")], shared: "routing_header", personal: "routing_header"),
    Row(fields: [("x-original-url", "/admin")], shared: "routing_header", personal: "routing_header"),
    Row(fields: [("x-http-method-override", "DELETE")], shared: "routing_header", personal: "routing_header"),
    Row(traits: body, shared: "request_body", personal: "request_body"),
    Row(traits: tls, url: "https://h.test/", shared: "tls", personal: "tls"),
    // The field itself marks the request (a private cache's storability ignores the mark).
    Row(fields: [("authorization", "Bearer a")], shared: "auth", personal: "auth"),
    Row(fields: [("cookie", "sid=a")], shared: "auth", personal: "key"),
    Row(fields: [("proxy-authorization", "Basic YTpi")], shared: "auth", personal: "key"),
    Row(traits: added, shared: "auth", personal: "key"),
    Row(url: "http://u:pw@h.test/", shared: "url", personal: "url"),
    Row(url: "ftp://h.test/", shared: "url", personal: "url"),
    Row(method: "HEAD", shared: "method", personal: "method"),
    Row(fields: [("host", "a")], method: "OPTIONS", shared: "method", personal: "method"),
    // Unsafe methods only invalidate: admitted whatever they carry.
    Row(
      fields: [("host", "a"), ("cookie", "c")], traits: everything, method: "POST", shared: "key",
      personal: "key"),
    // The first reason that applies, in the table's order.
    Row(
      fields: [("host", "a"), ("cookie", "c")], traits: everything, shared: "routing_header",
      personal: "routing_header"),
    Row(traits: everything, shared: "request_body", personal: "request_body"),
  ]

  @Test(arguments: 0..<table.count) func classifies(row: Int) {
    let r = Self.table[row]
    #expect(Self.verdict(r.fields, r.traits, method: r.method, url: r.url, shared: true) == r.shared)
    #expect(Self.verdict(r.fields, r.traits, method: r.method, url: r.url, shared: false) == r.personal)
  }

  /// The key is partition + method + URL, and nothing the table above bypasses on.
  @Test func theKeyIsThePartitionTheMethodAndTheURL() {
    let fields: CacheHeaderList = [("accept", "*/*"), ("cookie", "c")]
    for (partition, text) in [(CachePartition.shared, "shared"), (.user(7), "u7")] {
      guard
        case .admitted(let r) = CacheAdmission(
          method: "GET", url: "HTTP://H.test:80/p?q=1#f", headers: fields, partition: partition,
          traits: CacheRequestTraits())
      else {
        Issue.record("bypassed")
        continue
      }
      #expect(r.key.text == text + " GET http://h.test/p?q=1")
    }
  }

  /// Every reason has a sentence for `not_cached`, and the stable codes are these.
  @Test func reasonsHaveStableCodesAndSentences() {
    #expect(
      CacheBypassReason.allCases.map(\.rawValue) == [
        "url", "method", "routing_header", "request_body", "tls",
      ])
    #expect(CacheBypassReason.allCases.allSatisfy { !$0.why.isEmpty })
  }
}
