import FerryClient
import Testing

/// curl's and HTTPie's options (issue 25): each accepted with its meaning, as the job it builds,
/// or refused with a message that names ferry's equivalent (docs/CLI.md "curl and HTTPie habits").
struct CurlHabitsTests {
  static let accepted: [([String], String)] = [
    (
      ["post", "http://h/x", "-d", "a=1", "--data", "b=2"],
      #"{"id":"t","method":"POST","url":"http://h/x","body":{"text":"a=1&b=2","type":"application/x-www-form-urlencoded"},"events":[]}"#
    ),
    (
      ["http://h/x", "-d@note.txt"],
      #"{"id":"t","method":"POST","url":"http://h/x","body":{"text":"hello","type":"application/x-www-form-urlencoded"},"events":[]}"#
    ),
    (
      ["http://h/x", "--data-raw", "@note.txt", "--data-ascii", "z"],
      #"{"id":"t","method":"POST","url":"http://h/x","body":{"text":"@note.txt&z","type":"application/x-www-form-urlencoded"},"events":[]}"#
    ),
    (
      ["put", "http://h/x", "--data-binary", "@note.txt", "Content-Type:text/plain"],
      #"{"id":"t","method":"PUT","url":"http://h/x","headers":{"Content-Type":"text/plain"},"body":{"fd":0},"events":[]}"#
    ),
    (
      ["post", "http://h/x", "--data-binary", "@-"],
      #"{"id":"t","method":"POST","url":"http://h/x","body":{"fd":0,"type":"application/x-www-form-urlencoded"},"events":[]}"#
    ),
    (
      [
        "post", "http://h/x", "--data-urlencode", "q=a b&c", "--data-urlencode", "=é", "--data-urlencode",
        "n@note.txt",
      ],
      #"{"id":"t","method":"POST","url":"http://h/x","body":{"text":"q=a%20b%26c&%C3%A9&n=hello%0A","type":"application/x-www-form-urlencoded"},"events":[]}"#
    ),
    (
      ["-G", "http://h/x?z=0#f", "-d", "a=1", "--data-urlencode", "b=x y"],
      #"{"id":"t","method":"GET","url":"http://h/x?z=0&a=1&b=x%20y#f","events":[]}"#
    ),
    (
      ["http://h/x", "--json", #"{"a":1}"#],
      #"{"id":"t","method":"POST","url":"http://h/x","headers":{"Accept":"application/json"},"body":{"text":"{\"a\":1}","type":"application/json"},"events":[]}"#
    ),
    (
      ["post", "http://h/x", "--json", "a=1"],
      #"{"id":"t","method":"POST","url":"http://h/x","parameters":{"a":"1"},"encoding":"json","events":[]}"#
    ),
    (
      ["get", "http://h/x", "-u", "ann:pw"],
      #"{"id":"t","method":"GET","url":"http://h/x","auth":{"basic":{"username":"ann","password":"pw"}},"events":[]}"#
    ),
    (
      ["get", "http://h/x", "--user=ann:pw", "--auth-type", "digest"],
      #"{"id":"t","method":"GET","url":"http://h/x","auth":{"digest":{"username":"ann","password":"pw"}},"events":[]}"#
    ),
    (["-X", "DELETE", "http://h/x"], #"{"id":"t","method":"DELETE","url":"http://h/x","events":[]}"#),
    (
      ["-XPATCH", "http://h/x", "a=1"],
      #"{"id":"t","method":"PATCH","url":"http://h/x","parameters":{"a":"1"},"encoding":"json","events":[]}"#
    ),
    (
      ["--request", "OPTIONS", "http://h/x"],
      #"{"id":"t","method":"OPTIONS","url":"http://h/x","encoding":"json","events":[]}"#
    ),
    (
      ["POST", "http://h/x", "a=1"],
      #"{"id":"t","method":"POST","url":"http://h/x","parameters":{"a":"1"},"encoding":"json","events":[]}"#
    ),
    (
      ["PROPFIND", "http://h/x"],
      #"{"id":"t","method":"PROPFIND","url":"http://h/x","encoding":"json","events":[]}"#
    ),
    (["--head", "http://h/x"], #"{"id":"t","method":"HEAD","url":"http://h/x","events":[]}"#),
    (
      ["get", "-sSL", "http://h/x", "--no-follow", "-L"],
      #"{"id":"t","method":"GET","url":"http://h/x","events":[]}"#
    ),
    (
      ["get", "http://h/x", "--follow", "--compressed", "--fail", "--check-status"],
      #"{"id":"t","method":"GET","url":"http://h/x","events":[]}"#
    ),
    (
      ["get", "http://h/d/f.iso?v=1", "-O"],
      #"{"id":"t","method":"GET","url":"http://h/d/f.iso?v=1","output_fd":0,"events":[]}"#
    ),
    (
      ["get", "http://h/d/f.iso", "--download", "-C", "-"],
      #"{"id":"t","method":"GET","url":"http://h/d/f.iso","output_fd":0,"validator_fd":1,"resume":true,"events":[]}"#
    ),
    (
      ["get", "http://h/x", "-o", "out", "--continue"],
      #"{"id":"t","method":"GET","url":"http://h/x","output_fd":0,"validator_fd":1,"resume":true,"events":[]}"#
    ),
    (
      ["get", "http://h/x", "-m", "2.5", "--connect-timeout", "1", "--max-redirs", "3"],
      #"{"id":"t","method":"GET","url":"http://h/x","timeout":2.5,"connect_timeout":1,"max_redirects":3,"events":[]}"#
    ),
    (
      ["get", "http://h/x", "--max-time=9"],
      #"{"id":"t","method":"GET","url":"http://h/x","timeout":9,"events":[]}"#
    ),
    (
      ["post", "http://h/x", "-F", "a=1", "-F", "f=@photo.png;type=image/png", "-F", "t=<note.txt"],
      #"{"id":"t","method":"POST","url":"http://h/x","parameters":{"a":"1","t":"hello\n"},"encoding":"multipart","parts":[{"name":"f","fd":0,"filename":"photo.png","type":"image/png"}],"events":[]}"#
    ),
    (
      ["get", "http://h/x", "-b", "a=1; b=2", "-e", "http://h/", "--user-agent", "me/1.0"],
      #"{"id":"t","method":"GET","url":"http://h/x","headers":{"Cookie":"a=1; b=2","Referer":"http://h/","User-Agent":"me/1.0"},"events":[]}"#
    ),
    (
      ["get", "127.0.0.1:8081/get"],
      #"{"id":"t","method":"GET","url":"http://127.0.0.1:8081/get","events":[]}"#
    ),
    (["localhost/x"], #"{"id":"t","method":"GET","url":"http://localhost/x","events":[]}"#),
    (["get", "[::1]:80/"], #"{"id":"t","method":"GET","url":"http://[::1]:80/","events":[]}"#),
    (["get", "users/7"], #"{"id":"t","method":"GET","url":"users/7","events":[]}"#),
    (["get", "example.org/x"], #"{"id":"t","method":"GET","url":"example.org/x","events":[]}"#),
  ]

  @Test(arguments: accepted)
  func acceptsCurlAndHTTPieOptionsWithTheirMeaning(arguments: [String], expected: String) throws {
    #expect(try Fixture.jobLine(arguments, stdin: Array("x".utf8)) == expected, "\(arguments)")
  }

  @Test func printAndSilentShapeTheOutput() throws {
    let hb = try ArgumentParser.parse(["get", "http://h/", "--print", "hb"])
    guard case .request(let options) = hb.command else { throw FixtureError("not a request") }
    #expect(options.includeHeaders && !options.verbose)
    let all = try ArgumentParser.parse(["get", "http://h/", "--print=HBhb"])
    guard case .request(let verbose) = all.command else { throw FixtureError("not a request") }
    #expect(verbose.includeHeaders && verbose.verbose)
    let offline = try ArgumentParser.parse(["post", "http://h/", "a=1", "--offline"])
    guard case .explain(let explained) = offline.command else { throw FixtureError("not explain") }
    #expect(explained.method == "POST")
    // `-s` draws no progress bar: the job asks for no progress events even on a terminal.
    let terminals = CommandPlan.Terminals(stdout: true, stderr: true)
    for (arguments, events) in [
      (["get", "-s", "http://h/x"], "[]"), (["get", "http://h/x"], #"["progress"]"#),
    ] {
      let plan = try CommandPlan.make(
        try ArgumentParser.parse(arguments).command, context: Fixture.context(), terminals: terminals)
      guard case .converse(let lines, _, _) = plan, let job = lines.last else { throw FixtureError("no job") }
      #expect(String(decoding: job, as: UTF8.self).hasSuffix(#""events":\#(events)}"#), "\(arguments)")
    }
  }

  static let refused: [([String], String)] = [
    (["post", "-f", "http://h/", "a=1"], "-f is curl's --fail and HTTPie's --form: write --form"),
    (["get", "-fsSL", "http://h/"], "-f is curl's --fail and HTTPie's --form"),
    (["get", "http://h/", "-A", "myagent/1.0"], "-A is curl's --user-agent and HTTPie's --auth-type"),
    (["-I", "http://h/"], "-I is curl's --head and HTTPie's --ignore-stdin: write ferry head URL"),
    (["get", "http://h/", "-c", "jar.txt"], "-c is curl's --cookie-jar"),
    (["get", "http://h/", "-b", "jar.txt"], "-b 'jar.txt': a cookie file is curl's"),
    (["get", "http://h/", "-w", "%{http_code}"], "-w: ferry has no --write-out; ferry events"),
    (["get", "http://h/", "-4"], "-4: ferry does not choose the address family"),
    (["get", "http://h/", "--ipv6"], "--ipv6: ferry does not choose the address family"),
    (["get", "http://h/", "-p", "hb"], "-p is curl's --proxytunnel and HTTPie's --print"),
    (["get", "http://h/", "--print", "h"], "--print 'h': ferry always prints the response body"),
    (["get", "http://h/", "-C", "100", "-o", "f"], "-C '100': ferry resumes from what the file holds"),
    (["get", "http://h/", "-d"], "-d needs a value (curl's --data; HTTPie's -d is --download)"),
    (["get", "http://h/", "-F"], "-F needs a value (curl's --form; HTTPie's -F is --follow"),
    (["get", "-F", "http://h/"], "-F 'http://h/': expected name=value"),
    (["post", "http://h/", "-d", "@-"], "--data @-: ferry passes stdin to the daemon unread"),
    (["post", "http://h/", "-d", "a=1", "b=2"], "curl's -d/--data-*/--json and data fields"),
    (["post", "http://h/", "-G", "--data-binary", "@-"], "--data-binary @- is passed to the daemon unread"),
    (["get", "-X", "POST", "http://h/"], "-X POST (or --head) and the command's method GET disagree"),
    (["get", "http://h/", "-O"], "-O: the URL names no file"),
    (["get", "http://h/f", "-O", "-o", "g"], "-O and -o both name the output"),
    (["get", "http://h/", "--max-redirs", "101"], "--max-redirs '101': expected a count from 0 to 100"),
  ]

  @Test(arguments: refused)
  func refusesWhatWouldMeanSomethingElseNamingTheEquivalent(arguments: [String], messageStart: String) {
    let error = Fixture.usageError(arguments)
    #expect(error?.message.hasPrefix(messageStart) == true, "\(String(describing: error?.message))")
  }
}
