import Testing

@testable import FerrySession

/// The cookie jar's own calls on curl's engine, without a transfer.
@MainActor struct CookieJarExportTests {
  static let a = "127.0.0.1\tFALSE\t/\tFALSE\t4000000000\ta\t1"
  static let b = "127.0.0.1\tFALSE\t/\tFALSE\t4000000000\tb\t2"
  static let session = "#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\ts\t3"

  /// curl drops a cookie `remove` expired only at its next add, and exports it meanwhile
  /// (issue 26: the bound's last dropped cookie was listed, saved and counted).
  @Test func aRemovedCookieIsNoLongerListed() throws {
    let jar = try #require(CookieJar())
    jar.add([Self.a, Self.b, Self.session])
    jar.remove([Self.a])
    #expect(jar.lines().sorted() == [Self.session, Self.b].sorted())
    jar.remove([Self.b])
    #expect(jar.lines() == [Self.session])
  }

  @Test func expiryIsTheFifthField() {
    let now: Int64 = 1_700_000_000
    let cases: [(String, Bool)] = [
      (Self.a, false), (Self.session, false), ("x\tFALSE\t/\tFALSE\t1\tn\tv", true),
      ("x\tFALSE\t/\tFALSE\t1699999999\tn\tv", true), ("x\tFALSE\t/\tFALSE\t1700000000\tn\tv", false),
      ("short\tline", false),
    ]
    for (line, expired) in cases {
      #expect(line.withCString { CookieJar.hasExpired($0, now: now) } == expired, "\(line)")
    }
  }
}
