import Testing

@testable import FerryCache

@Test(arguments: [
  // method, status, Location, Content-Location, invalidated URLs
  ("POST", 200, nil as String?, nil as String?, ["https://api.example.test/items?page=2"]),
  ("PUT", 204, nil, nil, ["https://api.example.test/items?page=2"]),
  ("DELETE", 302, nil, nil, ["https://api.example.test/items?page=2"]),
  (
    "PATCH", 200, "/items/7", "https://api.example.test/items/7/v2",
    [
      "https://api.example.test/items?page=2", "https://api.example.test/items/7",
      "https://api.example.test/items/7/v2",
    ]
  ),
  (
    "POST", 201, "https://other.test/items/7", "http://api.example.test/items/7",
    [
      "https://api.example.test/items?page=2"
    ]
  ),
  ("POST", 201, "https://api.example.test:444/x", "items?page=2", ["https://api.example.test/items?page=2"]),
  ("POST", 404, "/items/7", nil, []),
  ("POST", 500, nil, nil, []),
  ("POST", 100, nil, nil, []),
  ("GET", 200, "/items/7", nil, []),
  ("HEAD", 200, nil, nil, []),
  ("OPTIONS", 200, nil, nil, []),
  ("FOO", 200, nil, nil, ["https://api.example.test/items?page=2"]),
])
func invalidatesAfterUnsafeMethods(
  method: String, status: Int, location: String?, contentLocation: String?, urls: [String]
) {
  var headers: CacheHeaderList = []
  if let location { headers.append(("location", location)) }
  if let contentLocation { headers.append(("content-location", contentLocation)) }
  let targets = CacheInvalidation.targets(for: Fix.request(method), status: status, headers: headers)
  #expect(targets.map(\.text) == urls)
}
