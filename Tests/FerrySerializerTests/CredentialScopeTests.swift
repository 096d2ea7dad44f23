import FerrySerializer
import FerryWire
import Testing

/// Issue 12: which requests carry their session's credentials, and where they may go.
struct CredentialScopeTests {
  let scope = CredentialScope(
    session: "api", origins: [URLOrigin("https://api.example.com"), URLOrigin("http://127.0.0.1:8001")])

  private func serializer(auth: Auth? = nil, headers: [HeaderField] = [], secret: Set<String> = [])
    -> RequestSerializer
  {
    var settings = SerializerSettings(version: "1.0", headers: headers, auth: auth)
    settings.credentialScope = scope
    settings.secretHeaders = secret
    return makeSerializer(settings)
  }

  @Test(arguments: [
    ("https://api.example.com/x", true),
    ("https://API.example.com:443/x", true),
    ("http://127.0.0.1:8001/y", true),
    ("http://api.example.com/x", false),
    ("https://api.example.com:8443/x", false),
    ("http://127.0.0.1:8002/y", false),
    ("http://127.0.0.2:8001/y", false),
  ])
  func sessionAuthGoesOnlyToItsOrigins(url: String, allowed: Bool) throws {
    let s = serializer(auth: .bearer("t"))
    let error = thrownError { () throws(WireError) in _ = try s.serialize(makeJob(nil, url)) }
    #expect((error == nil) == allowed, "\(url)")
    if !allowed {
      #expect(error?.code == .originNotAllowed)
      #expect(error?.message.contains("session api") == true)
    } else {
      #expect(try s.serialize(makeJob(nil, url)).credentialScope == scope)
    }
  }

  @Test func whatTheJobReplacesIsNotTheSessions() throws {
    let elsewhere = "http://elsewhere.example/"
    // The job's own auth, or Authorization, replaces the session's auth.
    var ownAuth = makeJob(nil, elsewhere)
    ownAuth.auth = .bearer("mine")
    #expect(try serializer(auth: .bearer("t")).serialize(ownAuth).credentialScope == nil)
    let ownHeader = makeJob(nil, elsewhere, headers: [HeaderField(name: "authorization", value: "x")])
    #expect(try serializer(auth: .bearer("t")).serialize(ownHeader).credentialScope == nil)
    // A secret session header counts, by default name or marked; removing it (null) frees the job.
    for (name, secret) in [("X-Api-Key", Set<String>()), ("X-Team", ["x-team"]), ("X-Service-Token", [])] {
      let s = serializer(headers: [HeaderField(name: name, value: "k")], secret: secret)
      #expect(
        thrownError { () throws(WireError) in _ = try s.serialize(makeJob(nil, elsewhere)) }?.code
          == .originNotAllowed, "\(name)")
      let removed = makeJob(nil, elsewhere, headers: [HeaderField(name: name.lowercased(), value: nil)])
      #expect(try s.serialize(removed).credentialScope == nil, "\(name)")
    }
    // A plain header is no credential.
    let plain = serializer(headers: [HeaderField(name: "X-Plain", value: "p")])
    #expect(try plain.serialize(makeJob(nil, elsewhere)).credentialScope == nil)
  }

  @Test func secretHeadersAreRedacted() throws {
    let s = serializer(
      headers: [HeaderField(name: "X-Team", value: "team"), HeaderField(name: "X-Plain", value: "p")],
      secret: ["x-team"])
    let request = try s.serialize(makeJob(nil, "https://api.example.com/"))
    let shown = Dictionary(uniqueKeysWithValues: request.redactedHeaders.map { ($0.name, $0.value) })
    #expect(shown["X-Team"] == "<redacted>")
    #expect(shown["X-Plain"] == "p")
    #expect(!CurlCommand.render(request, redactingSecrets: true).contains("team"))
  }
}
