import FerrySerializer
import FerryWire
import Testing

@testable import FerrySession

struct RedirectRuleTests {
  let patch = Request(
    method: "PATCH", url: "http://a.example/x",
    headers: [
      ("Authorization", "Bearer t"), ("Content-Type", "application/json"), ("Cookie", "c=1"), ("X-Keep", "1"),
    ],
    body: BodyPlan(bytes: Array("{}".utf8)))

  @Test func seeOtherTurnsAnyMethodIntoBodilessGET() {
    let next = RedirectRule.nextRequest(after: patch, status: 303, location: "http://a.example/y")
    #expect(next.method == "GET")
    #expect(next.body == nil)
    #expect(next.url == "http://a.example/y")
    #expect(next.headers.map(\.name) == ["Authorization", "Cookie", "X-Keep"])
  }

  @Test func temporaryAndPermanentRedirectKeepMethodAndBody() {
    for status in [307, 308, 301, 302] {
      let next = RedirectRule.nextRequest(after: patch, status: status, location: "http://a.example/y")
      #expect(next.method == "PATCH")
      #expect(next.body == patch.body)
      #expect(next.headers.count == 4)
    }
  }

  @Test func postBecomesGETOn301And302ButNot307() {
    var post = patch
    post.method = "POST"
    #expect(RedirectRule.nextRequest(after: post, status: 301, location: "http://a.example/").method == "GET")
    #expect(RedirectRule.nextRequest(after: post, status: 302, location: "http://a.example/").method == "GET")
    #expect(
      RedirectRule.nextRequest(after: post, status: 307, location: "http://a.example/").method == "POST")
  }

  @Test func headStaysHeadOnSeeOther() {
    var head = patch
    head.method = "HEAD"
    head.body = nil
    #expect(
      RedirectRule.nextRequest(after: head, status: 303, location: "http://a.example/").method == "HEAD")
  }

  @Test func credentialsStayBehindWhenOriginChanges() {
    for location in ["http://b.example/x", "https://a.example/x", "http://a.example:8080/x"] {
      let next = RedirectRule.nextRequest(after: patch, status: 307, location: location)
      #expect(next.headers.map(\.name) == ["Content-Type", "X-Keep"], "\(location)")
    }
    let same = RedirectRule.nextRequest(after: patch, status: 307, location: "http://A.example:80/z")
    #expect(same.headers.count == 4)
  }

  @Test func parsesOrigins() {
    #expect(
      URLOrigin("https://user:pw@Host.Example/p?q")
        == URLOrigin(scheme: "https", host: "host.example", port: 443))
    #expect(URLOrigin("http://[::1]:8080/") == URLOrigin(scheme: "http", host: "[::1]", port: 8080))
    #expect(URLOrigin("http://[::1]/") == URLOrigin(scheme: "http", host: "[::1]", port: 80))
    #expect(URLOrigin("HTTP://h:81?x") == URLOrigin(scheme: "http", host: "h", port: 81))
  }

  @Test func followsOnlyRedirectsWithALocation() {
    let found = ResponseHead(status: 302, headers: [("location", "/next")], httpVersion: "1.1")
    let noLocation = ResponseHead(status: 302, headers: [], httpVersion: "1.1")
    let multiple = ResponseHead(status: 300, headers: [("location", "/a")], httpVersion: "1.1")
    #expect(RedirectRule.isFollowed(found, byCurl: true))
    #expect(RedirectRule.isFollowed(found, byCurl: false))
    #expect(!RedirectRule.isFollowed(noLocation, byCurl: true))
    #expect(RedirectRule.isFollowed(multiple, byCurl: true))
    #expect(!RedirectRule.isFollowed(multiple, byCurl: false))
  }

  @Test func allowsOnlyHTTPSchemes() {
    #expect(RedirectRule.isAllowedScheme("HTTPS://x/"))
    #expect(RedirectRule.isAllowedScheme("http://x/"))
    #expect(!RedirectRule.isAllowedScheme("ftp://x/"))
    #expect(!RedirectRule.isAllowedScheme("file:///etc/passwd"))
  }
}
