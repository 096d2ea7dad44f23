import FerryClient
import Testing

struct ArgumentParserTests {
  private func request(
    _ method: String?, _ url: String, _ configure: (inout RequestOptions) -> Void = { _ in }
  )
    -> RequestOptions
  {
    var options = RequestOptions(method: method, url: url)
    configure(&options)
    return options
  }

  @Test func readsCommandsAndTheirArguments() throws {
    let table: [([String], Invocation)] = [
      (["ping"], Invocation(command: .op(.ping))),
      (["--socket", "/s", "stats"], Invocation(socket: "/s", command: .op(.stats))),
      (["hello", "--socket=/s"], Invocation(socket: "/s", command: .op(.hello))),
      (["sessions"], Invocation(command: .op(.sessions))),
      (["metrics"], Invocation(command: .op(.metrics))),
      (["cancel", "J"], Invocation(command: .cancel(id: "J"))),
      (["attach", "J", "-i"], Invocation(command: .attach(id: "J", includeHeaders: true))),
      (["--help"], Invocation(command: .help(.general))),
      (["-h"], Invocation(command: .help(.general))),
      (["post", "--help"], Invocation(command: .help(.request))),
      (["help"], Invocation(command: .help(.general))),
      (["help", "explain"], Invocation(command: .help(.explain))),
      (["help", "delete"], Invocation(command: .help(.request))),
      (["cancel", "-h"], Invocation(command: .help(.cancel))),
      (["--version"], Invocation(command: .version)),
      (["get", "http://h/"], Invocation(command: .request(request("GET", "http://h/")))),
      (["explain", "http://h/"], Invocation(command: .explain(request(nil, "http://h/")))),
      (["explain", "PUT", "http://h/"], Invocation(command: .explain(request("PUT", "http://h/")))),
      (
        ["events", "request", "MOVE", "http://h/"], Invocation(command: .events(request("MOVE", "http://h/")))
      ),
      (["job", "delete", "http://h/"], Invocation(command: .printJob(request("DELETE", "http://h/")))),
      (
        ["get", "-iv", "http://h/", "-j"],
        Invocation(
          command: .request(
            request("GET", "http://h/") {
              $0.includeHeaders = true
              $0.verbose = true
              $0.encoding = .json
            }))
      ),
      (
        ["-H", "A: 1", "post", "http://h/", "--detach", "b=2"],
        Invocation(
          command: .request(
            request("POST", "http://h/") {
              $0.items = [.header(name: "A", value: "1"), .field(name: "b", value: "2")]
              $0.detach = true
            }))
      ),
    ]
    for (arguments, expected) in table {
      #expect(try ArgumentParser.parse(arguments) == expected, "\(arguments)")
    }
  }

  @Test func networkIsAnOpAndWaitForNetworkAFlag() throws {
    #expect(try ArgumentParser.parse(["network"]) == Invocation(command: .op(.network)))
    let wait = try ArgumentParser.parse(["get", "http://h/", "--wait-for-network"])
    #expect(wait.command == .request(request("GET", "http://h/") { $0.waitsForNetwork = true }))
  }

  @Test func laterEncodingFlagWins() throws {
    let invocation = try ArgumentParser.parse(["post", "http://h/", "--json", "--form"])
    #expect(invocation.command == .request(request("POST", "http://h/") { $0.encoding = .form }))
  }

  static let usageErrors: [([String], String)] = [
    ([], "no command given"),
    (["frob"], "unknown command 'frob'"),
    (["get"], "a URL is needed"),
    (["explain"], "a URL is needed"),
    (["request", "GET"], "a URL is needed"),
    (["request"], "request needs a METHOD and a URL"),
    (["request", "BAD METHOD", "http://h/"], "'BAD METHOD' is not an HTTP method"),
    (["get", "http://h/", "--timeout", "0"], "--timeout '0': expected seconds"),
    (["get", "http://h/", "--timeout", "1e3"], "--timeout '1e3': expected seconds"),
    (["get", "http://h/", "--timeout", "99999999"], "--timeout '99999999': expected seconds"),
    (["get", "http://h/", "--accept-status", "99"], "--accept-status '99': expected codes or ranges"),
    (["get", "http://h/", "--accept-status", "300-200"], "--accept-status '300-200'"),
    (["get", "http://h/", "--accept-status", "200,"], "--accept-status '200,'"),
    (["get", "http://h/", "--retry", "21"], "--retry '21': expected a count from 0 to 20"),
    (["get", "http://h/", "--array-encoding", "commas"], "--array-encoding 'commas'"),
    (["get", "http://h/", "--resume"], "--resume needs --output FILE"),
    (["get", "http://h/", "-H", "nocolon"], "-H 'nocolon': expected 'Name: value'"),
    (["get", "http://h/", "-a", ":pw"], "--auth needs USER[:PASSWORD]"),
    // `-s` is curl's --silent; ferry's --session has no short form.
    (["get", "-s", "http://h/", "--session"], "--session needs a value"),
    (
      ["get", "http://ann:pw@h/x?a=b@c"],
      "credentials in the URL are not sent (they would show in logs and events); use -a USER:PASSWORD"
    ),
    (["get", "http://h/", "--bogus"], "unknown option --bogus"),
    (["get", "http://h/", "-ix"], "unknown option -ix"),
    (["get", "http://h/", "-H"], "-H needs a value"),
    (["get", "http://h/", "--form=yes"], "--form takes no value"),
    (["get", "http://h/", "--session", ""], "--session needs a non-empty value"),
    (["ping", "-H", "a:b"], "-H does not apply to ping"),
    (["stats", "-i"], "-i does not apply to stats"),
    (["cancel", "J", "--timeout", "1"], "--timeout does not apply to cancel"),
    (["ping", "extra"], "ping takes no arguments"),
    (["cancel"], "cancel needs exactly one job ID"),
    (["attach", "a", "b"], "attach needs exactly one job ID"),
    (["help", "frob"], "no help for 'frob'"),
    (["--version", "ping"], "--version takes no command"),
    (["post", "http://h/", "a=1", "--raw", "x"], "--raw and --body-file take the place of data fields"),
    (["post", "http://h/", "--json", "f@x.png"], "file parts need a multipart body"),
    (["put", "http://h/", "x=@missing.txt"], "cannot read 'missing.txt' for the field x"),
    (["put", "http://h/", "x:=@note.txt"], "'x:=@note.txt': not valid JSON"),
  ]

  @Test(arguments: usageErrors)
  func refusesBadCommandLinesWithAUsageError(arguments: [String], messageStart: String) {
    let error = Fixture.usageError(arguments)
    #expect(error?.message.hasPrefix(messageStart) == true, "\(String(describing: error?.message))")
  }

  @Test func usageErrorsPointAtTheRightHelpPage() {
    #expect(Fixture.usageError(["get", "http://h/", "--retry", "x"])?.topic == .request)
    #expect(
      Fixture.usageError(["get", "http://h/", "--cache", "offline"])?.message.hasPrefix("--cache 'offline'")
        == true)
    #expect(Fixture.usageError(["cancel"])?.topic == .cancel)
    #expect(Fixture.usageError(["explain"])?.topic == .explain)
    #expect(Fixture.usageError(["frob"])?.topic == .general)
  }
}
