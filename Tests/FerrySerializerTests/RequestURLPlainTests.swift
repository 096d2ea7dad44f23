import FerryWire
import Testing

@testable import FerrySerializer

/// The one-pass path for plain absolute URLs must give exactly what the general path gives,
/// and leave every URL that a rule changes or refuses to it.
@Test(arguments: [
  "http://api.example.com/v1/items",
  "https://h/",
  "http://h",
  "http://h?x=1",
  "http://h/?",
  "http://h/a?b=1&c[]=2&d=%41",
  "http://h:8080/a/b.c/..d/.e",
  "http://h:65535/",
  "http://h:65536/",
  "http://h:/",
  "http://h:080/x",
  "http://h:000080/x",
  "http://h/a/./b",
  "http://h/a/../b",
  "http://h/a/..",
  "http://h/a/.?x=/./",
  "http://h/a#frag",
  "http://H/a",
  "HTTP://h/a",
  "http://user@h/a",
  "http://[::1]:80/a",
  "http://h/a b",
  "http://h/a|b{c}",
  "http://h/é",
  "http://h/%zz",
  "http://h/~user/!$&'()*+,;=:@",
  "ftp://h/a",
  "http:/h/a",
  "http://",
  "http://h_x/a",
])
func plainURLsResolveAsTheGeneralPathDoes(url: String) {
  let plain = TextCheck.withBytes(url, RequestURL.plainAbsolute)
  let general: Result<RequestURL.Resolved, WireError> = Result { () throws(WireError) in
    try RequestURL.resolveInParts(url, base: nil)
  }
  guard let plain else { return }
  guard case .success(let resolved) = general else {
    Issue.record("the one-pass path accepted \(url), which the general path refuses")
    return
  }
  #expect(plain.bytes == resolved.bytes)
  #expect("\(plain.query)" == "\(resolved.query)")
}

@Test func theOnePassPathTakesTheUsualURLs() {
  for url in ["http://api.example.com/v1/items", "https://h:8443/a/b?x=1&y[]=2", "http://h"] {
    #expect(TextCheck.withBytes(url, RequestURL.plainAbsolute) != nil)
  }
}
