import FerrySerializer
import FerryWire
import Testing

@Suite struct HeaderTests {
  let settings: SerializerSettings = {
    var s = SerializerSettings(
      version: "2.1", acceptLanguage: "fr;q=1, en-GB;q=0.9", acceptEncoding: "gzip, deflate, br")
    s.headers = [
      HeaderField(name: "Accept", value: "application/json"), HeaderField(name: "X-Session", value: "s"),
    ]
    return s
  }()

  private func headers(_ job: Job, _ settings: SerializerSettings? = nil) throws(WireError) -> [String] {
    try makeSerializer(settings ?? self.settings).serialize(job).headers.map { "\($0.name): \($0.value)" }
  }

  @Test func defaultsThenSessionThenJobInSendOrder() throws {
    let job = makeJob("POST", parameters: ["a": "1"], headers: [HeaderField(name: "X-Job", value: "j")])
    #expect(
      try headers(job) == [
        "User-Agent: ferry/2.1", "Accept-Language: fr;q=1, en-GB;q=0.9", "Accept-Encoding: gzip, deflate, br",
        "Content-Type: application/x-www-form-urlencoded", "Accept: application/json", "X-Session: s",
        "X-Job: j",
      ])
  }

  @Test func jobBeatsSessionBeatsDefaultsMatchingNamesCaseInsensitively() throws {
    var settings = settings
    settings.headers.append(HeaderField(name: "user-agent", value: "session-agent"))
    let job = makeJob(
      "POST", parameters: ["a": "1"],
      headers: [
        HeaderField(name: "ACCEPT", value: "text/html"), HeaderField(name: "content-type", value: "text/x"),
      ])
    #expect(
      try headers(job, settings) == [
        "user-agent: session-agent", "Accept-Language: fr;q=1, en-GB;q=0.9",
        "Accept-Encoding: gzip, deflate, br",
        "content-type: text/x", "ACCEPT: text/html", "X-Session: s",
      ])
  }

  @Test func nullRemovesSessionHeadersAndDefaults() throws {
    let job = makeJob(
      "GET",
      headers: [
        HeaderField(name: "x-session", value: nil), HeaderField(name: "Accept-Language", value: nil),
        HeaderField(name: "X-Absent", value: nil),
      ])
    #expect(
      try headers(job) == [
        "User-Agent: ferry/2.1", "Accept-Encoding: gzip, deflate, br", "Accept: application/json",
      ])
  }

  @Test func absentDefaultsAreLeftOut() throws {
    #expect(try headers(makeJob("GET"), SerializerSettings(version: "0.1")) == ["User-Agent: ferry/0.1"])
  }

  @Test func neverAddsContentLength() throws {
    var job = makeJob("PUT")
    job.body = RawBody(content: .text("12345"))
    let request = try makeSerializer(settings).serialize(job)
    #expect(request.header("Content-Length") == nil)
    #expect(request.body?.length == 5)
  }

  @Test func sessionCredentialsGiveBasicAuthorization() throws {
    var settings = SerializerSettings(version: "1")
    settings.auth = .basic(username: "ü", password: "p:w")
    #expect(
      try makeSerializer(settings).serialize(makeJob("GET")).header("Authorization") == "Basic w7w6cDp3")
  }

  @Test func jobAuthBeatsSessionCredentialsAndSessionAuthorizationHeader() throws {
    var settings = SerializerSettings(version: "1")
    settings.auth = .basic(username: "u", password: "p")
    settings.headers = [HeaderField(name: "Authorization", value: "Token session")]
    #expect(try makeSerializer(settings).serialize(makeJob("GET")).header("Authorization") == "Token session")
    var job = makeJob("GET")
    job.auth = .bearer("abc.def")
    #expect(try makeSerializer(settings).serialize(job).header("Authorization") == "Bearer abc.def")
  }

  @Test func explicitAuthorizationHeaderFromTheJobWins() throws {
    var job = makeJob("GET", headers: [HeaderField(name: "authorization", value: "Digest x")])
    job.auth = .bearer("abc")
    let request = try makeSerializer().serialize(job)
    #expect(request.headers.filter { $0.name.lowercased() == "authorization" }.map(\.value) == ["Digest x"])
  }

  @Test func methodIsUpperCasedAndDefaultsToGet() throws {
    #expect(try makeSerializer().serialize(makeJob("patch")).method == "PATCH")
    #expect(try makeSerializer().serialize(makeJob(nil)).method == "GET")
  }

  @Test func redactedHeadersHideSecretsOnly() throws {
    var job = makeJob(
      "GET",
      headers: [
        HeaderField(name: "cookie", value: "s=1"), HeaderField(name: "Proxy-Authorization", value: "Basic x"),
      ])
    job.auth = .bearer("t")
    let redacted = try makeSerializer().serialize(job).redactedHeaders.map { "\($0.name): \($0.value)" }
    #expect(
      redacted == [
        "User-Agent: ferry/1.0", "Authorization: <redacted>", "cookie: <redacted>",
        "Proxy-Authorization: <redacted>",
      ])
  }
}

@Suite struct AcceptLanguageTests {
  @Test func languageListTakesPrecedenceWithAFNetworkingQValues() {
    let header = AcceptLanguage(language: "fr:en_GB", lang: "de_DE.UTF-8")
    #expect(header.languages == ["fr", "en-GB"])
    #expect(header.value == "fr;q=1, en-GB;q=0.9")
  }

  @Test func langAloneIsTheOnlyLanguage() {
    #expect(AcceptLanguage(language: nil, lang: "de_DE.UTF-8").value == "de-DE;q=1")
    #expect(AcceptLanguage(language: "", lang: "sr_RS.UTF-8@latin").value == "sr-RS;q=1")
  }

  @Test func atMostSixLanguagesDownToHalf() {
    let header = AcceptLanguage(language: "a:b:c:d:e:f:g", lang: "en_US.UTF-8")
    #expect(header.value == "a;q=1, b;q=0.9, c;q=0.8, d;q=0.7, e;q=0.6, f;q=0.5")
  }

  @Test(arguments: ["C", "POSIX", "C.UTF-8"])
  func cLocaleMeansNoHeaderEvenWithLanguage(_ lang: String) {
    #expect(AcceptLanguage(language: "fr", lang: lang).value == nil)
  }

  @Test func nothingSetMeansNoHeader() {
    #expect(AcceptLanguage(language: nil, lang: nil).value == nil)
  }

  @Test func malformedDuplicateAndCEntriesAreSkipped() {
    #expect(
      AcceptLanguage(language: "fr\r\nX: y:C:de:de:-x:en_GB@euro", lang: nil).value == "de;q=1, en-GB;q=0.9")
  }
}

@Suite struct MIMETypesTests {
  let types = MIMETypes(
    parsing: """
      # comment line
      text/plain\t\ttxt text  # trailing comment
      image/jpeg jpeg jpg
      application/x-dup txt
      notatype ext

      """)

  @Test(arguments: [
    ("/a/b.txt", "text/plain"), ("/a/B.JPG", "image/jpeg"), ("/a.d/file", "application/octet-stream"),
    ("/a/.txt", "application/octet-stream"), ("/a/b.", "application/octet-stream"),
    ("x.tar.jpeg", "image/jpeg"),
    ("/a/b.ext", "application/octet-stream"),
  ])
  func typeByExtensionCaseInsensitiveFirstLineWins(_ example: (String, String)) {
    #expect(types.type(forPath: example.0) == example.1)
  }

  @Test func emptyTableKnowsNothing() {
    #expect(MIMETypes().type(forPath: "/a/b.txt") == "application/octet-stream")
    #expect(types.type(forExtension: "TEXT") == "text/plain")
  }
}

@Suite struct MIMETypesParsingTests {
  /// A long generated file gives the same table as a plain reading of it (Character by
  /// Character, as the parser did before it read bytes).
  @Test func generatedFileParsesAsTheTextSays() {
    var text = ""
    for n in 0..<600 {
      let gap = ["\t", " ", "\t\t", "  "][n % 4]
      let comment = n % 7 == 0 ? " # see RFC \(n)" : ""
      let type = n % 11 == 0 ? "notatype" : "application/x-t\(n % 97)"
      text += "\(type)\(gap)e\(n % 150)\(gap)X\(n % 40)y Ext\(n)\(comment)\n"
      if n % 13 == 0 { text += "# application/x-hidden h\(n)\n\n" }
    }
    let table = MIMETypes(parsing: text)
    var expected: [String: String] = [:]
    for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
      let words = line.prefix { $0 != "#" }.split(whereSeparator: { $0 == " " || $0 == "\t" })
      guard let type = words.first, type.contains("/") else { continue }
      for ext in words.dropFirst() where expected[ext.lowercased()] == nil {
        expected[ext.lowercased()] = String(type)
      }
    }
    #expect(expected.count > 300)
    for (ext, type) in expected { #expect(table.type(forExtension: ext) == type) }
    #expect(table.type(forExtension: "h0") == nil)
    #expect(table.type(forExtension: "ext11") == nil)
  }

  @Test func crlfLinesAndNonASCIIExtensions() {
    let table = MIMETypes(parsing: "text/plain txt\r\nimage/x-é ÉX Png#c png\r\n#x/y z\nimage/png png")
    #expect(table.type(forExtension: "TXT") == "text/plain")
    #expect(table.type(forExtension: "éx") == "image/x-é")
    #expect(table.type(forExtension: "png") == "image/x-é")
    #expect(table.type(forExtension: "c") == nil)
    #expect(table.type(forExtension: "z") == nil)
  }

  /// Secret header names: the listed ones, any name containing a secret word (any case), and
  /// the session's own marks.
  @Test func secretHeaderNamesByListByPartAndByMark() {
    for name in [
      "Authorization", "cookie", "X-Api-Key", "X-Refresh-TOKEN", "my-Secret", "DB-Password", "apikey-2",
    ] {
      #expect(Request.isSecretHeader(name), "\(name)")
    }
    for name in ["User-Agent", "Accept", "X-Tok", "Set-Cookie", "X-Api_Key", "Content-Type"] {
      #expect(!Request.isSecretHeader(name), "\(name)")
    }
    #expect(Request.isSecretHeader("X-Tenant", extra: ["x-tenant"]))
  }
}
