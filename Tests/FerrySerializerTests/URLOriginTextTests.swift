import FerrySerializer
import FerryTestSupport
import Testing

/// `URLOrigin.text(of:)`, the byte parse of the origin every job's submission takes (issue 32's
/// holds), must name the origin exactly as `URLOrigin(String).description` does.
struct URLOriginTextTests {
  @Test(arguments: [
    "http://127.0.0.1:8080/a?b#c", "HTTPS://User:Pw@Host.Example/p", "http://[::1]/", "http://[::1]:8080/x",
    "http://[::1]::81/", "http://h", "http://h:", "http://h:00080/", "http://h:99999/", "http://h:123456/",
    "http://h:+80/", "http://h:8x/", "ftp://h/", "h:80/x", "mailto:a@b", "://h:1", "http://a@b@c:7/",
    "http://h?x:9", "http://h#f:9", "http:/h/", "", "http://É.example/", "http://h/é", "http://h h/",
    "http://[::1", "Http://[FE80::1%25eth0]:443/", "http:///\u{301}x:1", "http://h:81/\u{301}",
    "h:\u{301}//x:5", "http:\u{301}//h:9", "http://h:81?\u{301}", "http://h:81/a\u{301}", "http://h\r\n:81/",
  ])
  func agreesWithTheStringParse(_ url: String) {
    #expect(URLOrigin.text(of: url) == URLOrigin(url).description, "\(url)")
  }

  @Test func agreesOnRandomURLs() {
    var rng = SplitMix64(seed: 0x5eed)
    let pieces = [
      "http", "https", "HTTP", "hTtPs", "ws", "://", ":", "/", "//", "?", "#", "@", "[", "]", "::1", "80",
      "443",
      "0", "65535", "123456", "a", "B", "host", "Example.COM", "127.0.0.1", "%20", "+", "-", "é", " ",
      "\u{301}", "\r\n",
    ]
    for _ in 0..<20_000 {
      var url = ""
      for _ in 0..<Int(rng.next() % 9) { url += pieces[Int(rng.next() % UInt64(pieces.count))] }
      #expect(URLOrigin.text(of: url) == URLOrigin(url).description, "\(url)")
    }
  }
}
