import FerryWire
import Testing

/// `TextCheck.containsLowercased`, the byte search that replaced `String.contains(String)` in
/// secret-header checks.
struct TextCheckTests {
  @Test(
    arguments: [
      ("x-auth-token", "token", true),
      ("X-Auth-TOKEN", "token", true),
      ("token", "token", true),
      ("tokens-left", "token", true),
      ("tok", "token", false),
      ("tokex", "token", false),
      ("x-tokentoken", "token", true),
      ("ttoken", "token", true),
      ("", "token", false),
      ("anything", "", true),
      ("x-api-key", "api-key", true),
      ("x-api_key", "api-key", false),
      ("pässword", "password", false),
      ("x-päss-password", "password", true),
    ] as [(String, StaticString, Bool)])
  func findsTheLowerCasePartAnywhere(_ text: String, _ part: StaticString, _ expected: Bool) {
    #expect(TextCheck.containsLowercased(text, part) == expected)
  }

  @Test func agreesWithTheStandardLibraryOnHeaderNames() {
    let names = [
      "user-agent", "accept", "x-secret-thing", "my-password", "apikey", "x-api-key2", "set-cookie",
      "x-csrf-token", "authorization", "t", "to", "tokn",
    ]
    for name in names {
      for part: StaticString in ["token", "secret", "password", "api-key", "apikey"] {
        #expect(
          TextCheck.containsLowercased(name, part) == name.contains(part.description), "\(name) \(part)")
      }
    }
  }

  @Test(
    arguments: [
      ("Received HTTP/0.9 when not allowed", "HTTP", true),
      ("received http/0.9", "HTTP", false),
      ("HTT", "HTTP", false),
      ("0:0::0:", "::", true),
      ("0:0:0", "::", false),
      ("", "", true),
      ("::", "::", true),
    ] as [(String, StaticString, Bool)])
  func findsTheExactPartAnywhere(_ text: String, _ part: StaticString, _ expected: Bool) {
    #expect(TextCheck.contains(text, part) == expected)
    #expect(TextCheck.contains(text[...], part) == expected)
  }
}
