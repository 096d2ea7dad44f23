import Testing

@testable import FerryCache

@Test(arguments: [
  ("https://API.Example.TEST/items?page=2", "https://api.example.test/items?page=2"),
  ("HTTPS://example.test:443/a", "https://example.test/a"),
  ("http://example.test:80/a", "http://example.test/a"),
  ("http://example.test:443/a", "http://example.test:443/a"),
  ("https://example.test:8443/a", "https://example.test:8443/a"),
  ("https://example.test", "https://example.test/"),
  ("https://example.test?q=1", "https://example.test/?q=1"),
  ("https://example.test/a#frag", "https://example.test/a"),
  ("https://example.test/a?b=1&a=2#f", "https://example.test/a?b=1&a=2"),
  ("https://[::1]:8080/x", "https://[::1]:8080/x"),
  ("https://[::1]:443/x", "https://[::1]/x"),
  ("https://example.test/A%2fb", "https://example.test/A%2fb"),
])
func normalisesTheURLPartOfTheKey(url: String, text: String) {
  #expect(CacheURL(url)?.text == text)
}

@Test(arguments: [
  "ftp://example.test/", "example.test/a", "https:/example.test", "https://user:pw@example.test/",
  "https://@example.test/", "https://example.test:99999/", "https://example.test:8x/", "https:///a",
  "file:///etc/passwd", "https://[::1/",
])
func refusesURLsItDoesNotCache(url: String) {
  #expect(CacheURL(url) == nil)
  #expect(CacheRequest(method: "GET", url: url, headers: [], partition: .shared) == nil)
}

@Test func keepsSchemeQueryPortAndPartitionApart() {
  let keys = [
    "https://example.test/a?x=1", "http://example.test/a?x=1", "https://example.test/a?x=2",
    "https://example.test/a", "https://example.test:8443/a?x=1",
  ].map { Fix.request("GET", $0).key }
  #expect(Set(keys).count == keys.count)
  let mine = Fix.request().key
  let theirs = CacheRequest(method: "GET", url: Fix.url, headers: [], partition: .user(1001))!.key
  let shared = Fix.request(shared: true).key
  #expect(Set([mine, theirs, shared]).count == 3)
  #expect(mine.text == "u1000 GET https://api.example.test/items?page=2")
  #expect(shared.text == "shared GET https://api.example.test/items?page=2")
  #expect(Fix.request("HEAD").key != mine)
}

@Test(arguments: [
  ("/b/c", "https://h.test/b/c"),
  ("c?x", "https://h.test/a/c?x"),
  ("?y=1", "https://h.test/a/b?y=1"),
  ("../d", "https://h.test/d"),
  ("./e/../f", "https://h.test/a/f"),
  ("//other.test/x", "https://other.test/x"),
  ("http://H.test/z", "http://h.test/z"),
  ("#f", "https://h.test/a/b?q"),
  ("/../../g", "https://h.test/g"),
])
func resolvesLocationReferences(reference: String, resolved: String) {
  #expect(CacheURL("https://h.test/a/b?q")!.resolving(reference)?.text == resolved)
}
