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
    "#:\u{301}a://h/",
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

/// `URLOrigin.namesLoopback`: which hosts need no network (issue 31's waits pass them over).
struct LoopbackHostTests {
  @Test(arguments: [
    "http://127.0.0.1:8080/x", "https://127.255.0.9/", "http://LOCALHOST/", "http://api.localhost:81/",
    "http://[::1]:9/", "http://[0:0:0:0:0:0:0:1]/", "http://[0::1]/", "http://u:p@127.0.0.1/",
  ])
  func loopback(_ url: String) { #expect(URLOrigin.namesLoopback(url), "\(url)") }

  @Test(arguments: [
    "http://128.0.0.1/", "http://127.0.0.1.example/", "http://127.1/", "http://127.0.0.256/",
    "http://example.com/", "http://localhost.example/", "http://[::2]/", "http://[1::1]/",
    "http://[::ffff:127.0.0.1]/", "http://10.0.0.1/?h=127.0.0.1", "http://évil.localhost/", "",
  ])
  func notLoopback(_ url: String) { #expect(!URLOrigin.namesLoopback(url), "\(url)") }
}

/// `OriginMemo`: what the loop's submissions use; it must give `URLOrigin.text(of:)`'s answer
/// whatever came before (a memo kept from one URL must not answer for another).
struct OriginMemoTests {
  @Test func agreesWithTheParseWhateverCameBefore() {
    var rng = SplitMix64(seed: 0x0_4161)
    let pieces = [
      "http", "https", "HTTP", "://", ":", "/", "//", "?", "#", "@", "[", "]", "::1", "80", "a", "B",
      "host", "127.0.0.1", "é", "\u{301}", " ", "a://", "x:9",
    ]
    var memo = OriginMemo()
    var previous = "http://host:80"
    for _ in 0..<40_000 {
      // Half the URLs extend the one before, where a stale memo would answer wrongly.
      var url = rng.next() % 2 == 0 ? previous : ""
      for _ in 0..<Int(rng.next() % 6) { url += pieces[Int(rng.next() % UInt64(pieces.count))] }
      #expect(memo.text(of: url) == URLOrigin(url).description, "\(url) after \(previous)")
      previous = url
    }
  }

  @Test(arguments: [
    ("http://h:81/a", "http://h:81/b", "http://h:81"), ("http://h:81/a", "http://h:8100/", "http://h:8100"),
    ("http://h/a", "http://h/\u{301}", "http://h:80"), ("http://h/a", "http://h", "http://h:80"),
    ("http://h/a", "http://h.example/", "http://h.example:80"),
    ("http://u@h/", "http://u@h?x", "http://h:80"),
  ])
  func aSecondURLAfterAFirst(_ first: String, _ second: String, _ origin: String) {
    var memo = OriginMemo()
    _ = memo.text(of: first)
    #expect(memo.text(of: second) == URLOrigin(second).description)
    #expect(URLOrigin(second).description == origin || second.contains("\u{301}"))
  }
}
