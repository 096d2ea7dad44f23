import FerryClient
import FerryWire
import Testing

/// Command lines to job lines: the golden lines `ferry` sends (context: id `t`, cwd `/home/u`).
struct JobBuilderTests {
  static let golden: [([String], String)] = [
    (["get", "http://h/x"], #"{"id":"t","method":"GET","url":"http://h/x","events":[]}"#),
    (
      ["get", "--wait-for-network", "http://h/x"],
      #"{"id":"t","method":"GET","url":"http://h/x","events":[],"waits_for_connectivity":true}"#
    ),
    (
      ["get", "http://h/x", "q==1", "page==2", "X-A:b"],
      #"{"id":"t","method":"GET","url":"http://h/x","headers":{"X-A":"b"},"parameters":{"q":"1","page":"2"},"events":[]}"#
    ),
    (
      ["get", "http://h/x", "a=1", "n:=2"],
      #"{"id":"t","method":"GET","url":"http://h/x","parameters":{"a":"1","n":2},"events":[]}"#
    ),
    (
      ["head", "http://h/x", "q==1"],
      #"{"id":"t","method":"HEAD","url":"http://h/x","parameters":{"q":"1"},"events":[]}"#
    ),
    (
      ["post", "http://h/x", "name=Ada", "admin:=true", "n:=12345678901234567890"],
      #"{"id":"t","method":"POST","url":"http://h/x","parameters":{"name":"Ada","admin":true,"n":12345678901234567890},"encoding":"json","events":[]}"#
    ),
    (
      ["post", "http://h/x?z=0", "a=1", "q==x y", "r==é&/?"],
      #"{"id":"t","method":"POST","url":"http://h/x?z=0&q=x%20y&r=%C3%A9%26/?","parameters":{"a":"1"},"encoding":"json","events":[]}"#
    ),
    (
      ["post", "http://h/x?#frag", "q==1"],
      #"{"id":"t","method":"POST","url":"http://h/x?q=1#frag","encoding":"json","events":[]}"#
    ),
    (
      ["post", "--form", "http://h/x", "a=1"],
      #"{"id":"t","method":"POST","url":"http://h/x","parameters":{"a":"1"},"encoding":"form","events":[]}"#
    ),
    (
      ["post", "http://h/x", "a=1", "f@photo.png", "g@/tmp/a.pdf;type=application/pdf"],
      #"{"id":"t","method":"POST","url":"http://h/x","parameters":{"a":"1"},"encoding":"multipart","parts":[{"name":"f","fd":0,"filename":"photo.png"},{"name":"g","fd":1,"filename":"a.pdf","type":"application/pdf"}],"events":[]}"#
    ),
    (
      ["post", "http://h/x", "--multipart", "a=1"],
      #"{"id":"t","method":"POST","url":"http://h/x","parameters":{"a":"1"},"encoding":"multipart","events":[]}"#
    ),
    (
      ["put", "http://h/x", "bio=@note.txt", "meta:=@./data.json"],
      #"{"id":"t","method":"PUT","url":"http://h/x","parameters":{"bio":"hello\n","meta":{"k":[1,2]}},"encoding":"json","events":[]}"#
    ),
    (
      ["patch", "http://h/x", "tag=a", "tag=b", "tag=c", "one:=[1]", "one:=[2]"],
      #"{"id":"t","method":"PATCH","url":"http://h/x","parameters":{"tag":["a","b","c"],"one":[[1],[2]]},"encoding":"json","events":[]}"#
    ),
    (
      ["post", "http://h/x", "--array-encoding", "repeat", "--form", "t=a", "t=b"],
      #"{"id":"t","method":"POST","url":"http://h/x","parameters":{"t":["a","b"]},"encoding":"form","array_encoding":"repeat","events":[]}"#
    ),
    (
      ["get", "http://h/x", "-H", "Accept: a", "accept:b", "X-Rm:", "X-E;"],
      #"{"id":"t","method":"GET","url":"http://h/x","headers":{"Accept":"a, b","X-Rm":null,"X-E":""},"events":[]}"#
    ),
    (
      [
        "get", "http://h/x", "-o", "out.bin", "--resume", "--timeout", "2.5", "--lane", "l", "--session", "s",
        "--accept-status", "200-299,404", "--no-follow", "--retry", "3", "--id", "mine", "-a", "u:p:w",
      ],
      #"{"id":"mine","method":"GET","url":"http://h/x","session":"s","auth":{"basic":{"username":"u","password":"p:w"}},"timeout":2.5,"follow_redirects":false,"accept":{"status":[[200,299],404]},"output_fd":0,"validator_fd":1,"resume":true,"events":[],"lane":"l","retry":{"max":3}}"#
    ),
    // Issue 17: `--cache POLICY` is the job field `cache`.
    (
      ["get", "http://h/x", "--cache", "return_cache_dont_load"],
      #"{"id":"t","method":"GET","url":"http://h/x","events":[],"cache":"return_cache_dont_load"}"#
    ),
    // Issue 12: `-o DIR/` keeps its slash, so the daemon refuses a directory.
    (
      ["get", "http://h/x", "-o", "dl/"],
      #"{"id":"t","method":"GET","url":"http://h/x","output":"/home/u/dl/","events":[]}"#
    ),
    (
      ["post", "http://h/x", "--raw", "hi there", "q==1", "Content-Type:text/plain"],
      #"{"id":"t","method":"POST","url":"http://h/x?q=1","headers":{"Content-Type":"text/plain"},"body":{"text":"hi there"},"events":[]}"#
    ),
    (
      ["put", "http://h/x", "--body-file", "./up/../up.bin"],
      #"{"id":"t","method":"PUT","url":"http://h/x","body":{"fd":0},"events":[]}"#
    ),
    (
      ["delete", "http://h/x", "--bearer", "tok", "--timeout=10"],
      #"{"id":"t","method":"DELETE","url":"http://h/x","auth":{"bearer":"tok"},"timeout":10,"events":[]}"#
    ),
    (
      ["request", "propfind", "http://h/x"],
      #"{"id":"t","method":"PROPFIND","url":"http://h/x","encoding":"json","events":[]}"#
    ),
    (
      ["options", "http://h/*"],
      #"{"id":"t","method":"OPTIONS","url":"http://h/*","encoding":"json","events":[]}"#
    ),
    (["https://h/x"], #"{"id":"t","method":"GET","url":"https://h/x","events":[]}"#),
    (
      [":8080/x", "a=1"],
      #"{"id":"t","method":"POST","url":"http://localhost:8080/x","parameters":{"a":"1"},"encoding":"json","events":[]}"#
    ),
    ([":/x"], #"{"id":"t","method":"GET","url":"http://localhost/x","events":[]}"#),
    (
      ["get", "http://h/x", "a==1", "a==2"],
      #"{"id":"t","method":"GET","url":"http://h/x","parameters":{"a":["1","2"]},"array_encoding":"repeat","events":[]}"#
    ),
    (
      ["get", "http://h/x", "--no-follow"],
      #"{"id":"t","method":"GET","url":"http://h/x","follow_redirects":false,"accept":{"status":[[200,399]]},"events":[]}"#
    ),
    (
      ["get", "http://h/x", #"If-None-Match:"e1""#],
      #"{"id":"t","method":"GET","url":"http://h/x","headers":{"If-None-Match":"\"e1\""},"accept":{"status":[[200,299],304]},"events":[]}"#
    ),
    (
      ["get", "https://h/x", "--cacert", "ca.pem", "-k"],
      #"{"id":"t","method":"GET","url":"https://h/x","events":[],"tls":{"ca_file":"/home/u/ca.pem","insecure":true}}"#
    ),
    (
      ["get", "https://h/x", "--verify=no"],
      #"{"id":"t","method":"GET","url":"https://h/x","events":[],"tls":{"insecure":true}}"#
    ),
    (
      ["get", "https://h/x", "--verify", "/etc/ca.pem"],
      #"{"id":"t","method":"GET","url":"https://h/x","events":[],"tls":{"ca_file":"/etc/ca.pem"}}"#
    ),
    (
      ["get", "http://h/x", "--", "-odd=1"],
      #"{"id":"t","method":"GET","url":"http://h/x","parameters":{"-odd":"1"},"events":[]}"#
    ),
  ]

  @Test(arguments: golden)
  func buildsTheGoldenJobLine(arguments: [String], expected: String) throws {
    #expect(try Fixture.jobLine(arguments) == expected)
  }

  /// Every golden line is a job the daemon's own decoder accepts, so none is refused on arrival.
  @Test(arguments: golden)
  func goldenLinesAreValidJobs(arguments: [String], expected: String) {
    guard case .success(.job(let job)) = JobDecoder().decode(Array(expected.utf8)) else {
      Issue.record("refused: \(expected)")
      return
    }
    #expect(job.id == (expected.contains(#""id":"mine""#) ? "mine" : "t"))
  }

  @Test func pipedStdinIsTheBodyOfAMethodThatCarriesOne() throws {
    let json = Array(#"{"a":1}"#.utf8)
    #expect(
      try Fixture.jobLine(["post", "http://h/x"], stdin: json)
        == #"{"id":"t","method":"POST","url":"http://h/x","body":{"fd":0,"type":"application/json"},"events":[]}"#
    )
    #expect(
      try Fixture.jobLine(["post", "--form", "http://h/x"], stdin: Array("a=1".utf8))
        == #"{"id":"t","method":"POST","url":"http://h/x","encoding":"form","body":{"fd":0,"type":"application/x-www-form-urlencoded"},"events":[]}"#
    )
    #expect(
      try Fixture.jobLine(["put", "http://h/x"], stdin: [0, 0xFF])
        == #"{"id":"t","method":"PUT","url":"http://h/x","body":{"fd":0},"events":[]}"#)
    // GET and HEAD never take it, --ignore-stdin turns it off, other body sources win, and an
    // empty stdin (a closed pipe, a file of nothing) sends no body.
    for arguments in [
      ["get", "http://h/x"], ["head", "http://h/x"], ["post", "http://h/x", "--ignore-stdin"],
      ["post", "http://h/x", "a=1"], ["post", "http://h/x", "--raw", "x"],
    ] {
      #expect(try !Fixture.jobLine(arguments, stdin: json).contains(#""fd""#), "\(arguments)")
    }
    #expect(try !Fixture.jobLine(["post", "http://h/x"], stdin: []).contains("body"))
  }

  @Test func filesAndStdinArePassedAsDescriptorsInTheOrderTheirFdFieldsIndex() throws {
    func built(_ arguments: [String], stdin: [UInt8]? = nil) throws -> (String, [PassedDescriptor]) {
      guard case .request(let options) = try ArgumentParser.parse(arguments).command else {
        throw FixtureError("not a request")
      }
      var passing: [PassedDescriptor] = []
      let job = try JobBuilder.build(options, context: Fixture.context(stdin: stdin), passing: &passing)
      return (JSONWriter.string(.object(job)), passing)
    }
    // HTTPie's `@FILE` is the raw body, typed by its name.
    let (raw, rawPassed) = try built(["post", "http://h/x", "@data.json"])
    #expect(
      raw
        == #"{"id":"t","method":"POST","url":"http://h/x","body":{"fd":0,"type":"application/json"},"events":[]}"#
    )
    #expect(rawPassed == [.readFile("/home/u/data.json")])
    let (parts, partsPassed) = try built(["post", "http://h/x", "a@one.txt", "b@/tmp/two.bin"])
    #expect(
      parts.contains(#"{"name":"a","fd":0,"filename":"one.txt"},{"name":"b","fd":1,"filename":"two.bin"}"#))
    #expect(partsPassed == [.readFile("/home/u/one.txt"), .readFile("/tmp/two.bin")])
    #expect(try built(["post", "http://h/x"], stdin: Array("x".utf8)).1 == [.stdin])
    #expect(Fixture.usageError(["post", "http://h/x", "@a", "@b"]) != nil)
  }

  @Test func authWithoutPasswordAsksOnTheTerminalAndDigestIsChosenWithAuthType() throws {
    #expect(
      try Fixture.jobLine(["get", "http://h/x", "-a", "ann"], password: "s:e")
        == #"{"id":"t","method":"GET","url":"http://h/x","auth":{"basic":{"username":"ann","password":"s:e"}},"events":[]}"#
    )
    #expect(
      try Fixture.jobLine(["get", "http://h/x", "--auth-type", "digest", "-a", "ann:pw"])
        == #"{"id":"t","method":"GET","url":"http://h/x","auth":{"digest":{"username":"ann","password":"pw"}},"events":[]}"#
    )
    #expect(throws: UsageError.self) {
      try Fixture.jobLine(["get", "http://h/x", "-a", "ann"], password: nil)
    }
    #expect(Fixture.usageError(["get", "http://h/x", "--auth-type", "ntlm"]) != nil)
  }

  @Test func asksForProgressEventsOnlyWhenABarCanBeDrawn() throws {
    #expect(
      try Fixture.jobLine(["get", "http://h/x"], progress: true)
        == #"{"id":"t","method":"GET","url":"http://h/x","events":["progress"]}"#)
  }

  @Test func relativePathsBecomeAbsoluteWithoutDotSegments() {
    let context = Fixture.context()
    #expect(context.absolute("a.txt") == "/home/u/a.txt")
    #expect(context.absolute("./sub/./b") == "/home/u/sub/b")
    #expect(context.absolute("/etc//hosts") == "/etc/hosts")
  }

  @Test func appendsQueryParametersBeforeTheFragment() {
    #expect(QueryEscaping.append([("a", "1")], to: "http://h/p") == "http://h/p?a=1")
    #expect(QueryEscaping.append([("a", "1")], to: "http://h/p?") == "http://h/p?a=1")
    #expect(QueryEscaping.append([("a", "1"), ("b", "")], to: "http://h/p?x#f") == "http://h/p?x&a=1&b=#f")
    #expect(QueryEscaping.append([], to: "http://h/p?") == "http://h/p?")
  }

  @Test func escapesLikeTheDaemonsSerializer() {
    #expect(QueryEscaping.escape("AZaz09-._~/?") == "AZaz09-._~/?")
    #expect(QueryEscaping.escape("a b+c&d=e[f]#é") == "a%20b%2Bc%26d%3De%5Bf%5D%23%C3%A9")
  }
}
