import FerryWire
import Testing

/// Black-box: the curl command `explain` prints sends what ferry sends. Each job goes once
/// through ferry and once through the printed line (run by bash with curl 7.88) to the
/// fixture's `/echo`, which reports the method, target, headers in order and body received.
@Suite(.serialized) struct ExplainCurlTests {
  static let jobs: [String] = [
    #""parameters":{"a":"1 2","b":[1,2]}"#,
    #""method":"POST","parameters":{"a":"x&y","n":1.50}"#,
    #""method":"POST","encoding":"json","parameters":{"k":["v",null]}"#,
    #""method":"PUT","body":{"text":"line one\nline 'two'"}"#,
    #""headers":{"Accept":null,"Accept-Encoding":null,"X-Thing":"a b"}"#,
    #""headers":{"Accept":"application/json","User-Agent":null}"#,
    #""method":"DELETE","retry":{"max":2},"timeout":20,"connect_timeout":2.5"#,
  ]

  @Test(arguments: jobs)
  func explainedCurlLineSendsWhatFerrySends(fields: String) throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    // A redirect that turns a POST into a GET is left out for a text or JSON body: ferry
    // drops the Content-Type then, and curl 7.88 has no way to drop a header given with -H
    // (CurlCommand says so). A form's type is curl's own, which it drops as ferry does.
    let hasBody = fields.contains("\"POST\"") || fields.contains("\"PUT\"")
    let isForm = hasBody && !fields.contains("\"json\"") && !fields.contains("\"body\"")
    for path in hasBody && !isForm ? ["/echo"] : ["/echo", "/redirect/2"] {
      let job = #"{"url":"\#(fixture.url(path))",\#(fields)}"#
      let events = try client.run(#"{"id":"f",\#(job.dropFirst().dropLast()),"events":[]}"#, id: "f")
      let viaFerry = try #require(
        events.last?["body"]?.objectValue, "ferry: \(String(describing: events.last))")
      try client.send(#"{"op":"explain","job":\#(job)}"#)
      let line = try #require(try client.readEvent()["curl"]?.stringValue)
      let viaCurl = try Self.runCurl(line)
      for key in ["method", "path", "query", "body_length", "body_sha256"] {
        #expect(viaCurl[key] == viaFerry[key], "\(key) for \(line)")
      }
      let curlHeaders = viaCurl["headers"]?.objectValue ?? JSONObject()
      let ferryHeaders = viaFerry["headers"]?.objectValue ?? JSONObject()
      // curl places the form type it sets itself after Content-Length; ferry before it.
      let order = { (o: JSONObject) in o.members.map(\.key).filter { $0 != "content-type" } }
      #expect(order(curlHeaders) == order(ferryHeaders), "header order for \(line)")
      #expect(
        Dictionary(uniqueKeysWithValues: curlHeaders.members.map { ($0.key, $0.value) })
          == Dictionary(uniqueKeysWithValues: ferryHeaders.members.map { ($0.key, $0.value) }),
        "headers for \(line)")
    }
  }

  @Test func explainedCurlLineCarriesRedirectTimeoutAndRetryOptions() throws {
    let daemon = try DaemonHarness()
    let client = try daemon.connect()
    try client.send(
      #"{"op":"explain","job":{"url":"http://127.0.0.1:9/x","max_redirects":3,"timeout":1.5,"retry":{"max":4}}}"#
    )
    let line = try #require(try client.readEvent()["curl"]?.stringValue)
    #expect(line.hasPrefix("curl -L --max-redirs 3 --connect-timeout 30 -m 1.5 --retry 4 "))
    #expect(line.contains("-H 'Accept: */*'"))
    try client.send(
      #"{"op":"explain","job":{"method":"POST","url":"http://127.0.0.1:9/x","follow_redirects":false,"retry":{"max":4}}}"#
    )
    let post = try #require(try client.readEvent()["curl"]?.stringValue)
    #expect(post.hasPrefix("curl --connect-timeout 30 -H "))
    #expect(!post.contains("--retry"))
  }

  /// Runs `line` with bash, without the environment's proxies or a curlrc, and parses the
  /// echo it printed.
  static func runCurl(_ line: String) throws -> JSONObject {
    let (status, output) = try run(
      "/bin/bash", ["-c", line + " --silent --show-error"],
      environment: ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent"])
    guard status == 0, case .object(let o) = try JSONReader().read(Array(output.utf8)) else {
      throw TestFailure("curl exited \(status): \(output)")
    }
    return o
  }
}
