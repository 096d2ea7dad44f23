import FerryClient
import FerryWire
import Testing

struct HelpAndPlanTests {
  @Test func exitCodesAreDistinctAndStable() {
    #expect(ExitCode.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 6, 7, 13, 14, 15, 28, 35, 47, 60])
    #expect(Set(ExitCode.allCases.map(\.meaning)).count == 14)
  }

  @Test func generalHelpNamesEveryCommandTheSocketLookupAndTheExitCodes() {
    let text = HelpTopic.general.text
    for command in [
      "get", "post", "put", "patch", "delete", "head", "options", "request", "explain", "events",
    ]
      + ["job", "ping", "hello", "stats", "sessions", "cancel", "attach"]
    {
      #expect(text.contains(command), "\(command)")
    }
    #expect(text.contains("$FERRY_SOCKET"))
    #expect(text.contains("/tmp/ferryd-$UID/ferryd.sock"))
    for code in ExitCode.allCases { #expect(text.contains("  \(code.rawValue)  \(code.meaning)\n")) }
  }

  @Test func requestHelpDocumentsEveryOption() {
    let text = HelpTopic.general.text + HelpTopic.request.text
    let spellings = [
      "--header", "--json", "--form", "--multipart", "--raw", "--body-file", "--auth", "--bearer",
      "--session",
      "--output", "--resume", "--timeout", "--lane", "--detach", "--id", "--accept-status", "--no-follow",
      "--retry", "--array-encoding", "--include", "--verbose", "--socket", "--help", "--version", "--cache",
      "--wait-for-network",
    ]
    for spelling in spellings { #expect(text.contains(spelling), "\(spelling)") }
  }

  @Test func everyTopicHasAUsageLine() {
    for topic in HelpTopic.allCases {
      #expect(topic.text.contains("Usage:"), "\(topic)")
      #expect(topic.text.hasSuffix("\n"))
    }
  }

  private func plan(_ arguments: [String], stderrIsTerminal: Bool = false) throws -> CommandPlan {
    let invocation = try ArgumentParser.parse(arguments)
    return try CommandPlan.make(
      invocation.command, context: Fixture.context(),
      terminals: .init(stdout: false, stderr: stderrIsTerminal))
  }

  private func lines(_ plan: CommandPlan) -> [String] {
    guard case .converse(let lines, _, _) = plan else { return [] }
    return lines.map { String(decoding: $0, as: UTF8.self) }
  }

  @Test func requestsAskForProgressOnlyWhenStderrIsATerminal() throws {
    #expect(
      try lines(plan(["get", "http://h/"]))
        == [#"{"id":"t","method":"GET","url":"http://h/","output_fd":0,"events":[]}"#])
    #expect(
      try lines(plan(["get", "http://h/"], stderrIsTerminal: true))
        == [#"{"id":"t","method":"GET","url":"http://h/","output_fd":0,"events":["progress"]}"#])
  }

  @Test func theBodyGoesIntoAPassedStdoutOrFileUnlessStdoutIsATerminal() throws {
    func sent(_ arguments: [String], stdoutIsTerminal: Bool = false) throws -> (String, [PassedDescriptor]) {
      let invocation = try ArgumentParser.parse(arguments)
      let plan = try CommandPlan.make(
        invocation.command, context: Fixture.context(),
        terminals: .init(stdout: stdoutIsTerminal, stderr: false))
      guard case .converse(let lines, _, let passing) = plan else { return ("", []) }
      return (String(decoding: lines.last ?? [], as: UTF8.self), passing)
    }
    #expect(try sent(["get", "http://h/"]).1 == [.stdout])
    // A terminal gets the body printed; -i puts heads before it; HEAD has none.
    for (arguments, terminal) in [
      (["get", "http://h/"], true), (["get", "-i", "http://h/"], false), (["head", "http://h/"], false),
    ] {
      let (line, passing) = try sent(arguments, stdoutIsTerminal: terminal)
      #expect(!line.contains("output_fd") && passing.isEmpty, "\(arguments)")
    }
    #expect(try sent(["get", "http://h/", "-o", "-"], stdoutIsTerminal: true).1 == [.stdout])
    let (file, filePassed) = try sent(["get", "http://h/", "-o", "out.bin"])
    #expect(file.contains(#""output_fd":0"#) && !file.contains(#""output""#))
    #expect(filePassed == [.writeFile("/home/u/out.bin")])
    // --resume passes FILE.part and its validator file, opened by the CLI (decision 40).
    let (resumed, resumedPassed) = try sent(["get", "http://h/", "-o", "out.bin", "--resume"])
    #expect(
      resumed.contains(#""output_fd":0,"validator_fd":1,"resume":true"#) && !resumed.contains(#""output""#))
    #expect(
      resumedPassed == [
        .continueFile("/home/u/out.bin.part"), .validatorFile("/home/u/out.bin.part.validator"),
      ])
    // A body file and the output go in that order.
    #expect(
      try sent(["put", "http://h/", "@up.bin", "-o", "out.bin"]).1 == [
        .readFile("/home/u/up.bin"), .writeFile("/home/u/out.bin"),
      ])
  }

  @Test func verboseSendsAnExplainBeforeTheJob() throws {
    let sent = try lines(plan(["get", "-v", "http://h/"]))
    #expect(
      sent == [
        #"{"op":"explain","job":{"id":"t","method":"GET","url":"http://h/","events":[]}}"#,
        #"{"id":"t","method":"GET","url":"http://h/","events":[]}"#,
      ])
  }

  @Test func headPrintsTheStatusLineAndHeaders() throws {
    guard case .converse(_, let head, _) = try plan(["head", "http://h/"]),
      case .converse(_, let get, _) = try plan(["get", "http://h/"])
    else {
      Issue.record("not a conversation")
      return
    }
    #expect(head.includeHeaders)
    #expect(!get.includeHeaders)
  }

  @Test func detachedJobsKeepEveryEventForALaterAttach() throws {
    let p = try plan(["post", "http://h/", "--detach", "--id", "j9"])
    #expect(lines(p) == [#"{"id":"j9","method":"POST","url":"http://h/","encoding":"json","detach":true}"#])
    guard case .converse(_, let settings, _) = p else { return }
    #expect(settings.mode == .detached)
    #expect(settings.jobID == "j9")
  }

  @Test func opsCancelAttachAndExplainSendTheirLines() throws {
    #expect(try lines(plan(["stats"])) == [#"{"op":"stats"}"#])
    #expect(try lines(plan(["jobs"])) == [#"{"op":"jobs"}"#])
    #expect(try lines(plan(["cancel", "J"])) == [#"{"op":"cancel","id":"J"}"#, #"{"op":"ping"}"#])
    #expect(try lines(plan(["attach", "J"])) == [#"{"op":"attach","id":"J"}"#])
    #expect(
      try lines(plan(["explain", "http://h/", "a=1"]))
        == [
          #"{"op":"explain","job":{"id":"t","method":"POST","url":"http://h/","parameters":{"a":"1"},"encoding":"json"}}"#
        ])
    #expect(try lines(plan(["events", "http://h/"])) == [#"{"id":"t","method":"GET","url":"http://h/"}"#])
  }

  @Test func jobHelpAndVersionPrintWithoutTheDaemon() throws {
    #expect(try plan(["job", "http://h/"]) == .print(#"{"id":"t","method":"GET","url":"http://h/"}"# + "\n"))
    #expect(try plan(["--version"]) == .print("ferry 0.1.0 (protocol 1)\n"))
    #expect(try plan(["help", "stats"]) == .print(HelpTopic.stats.text))
  }

  @Test func prettyPrinterIndentsNestedValuesAndKeepsScalarsAsWritten() throws {
    let value = try JSONReader().read(#"{"a":[],"b":[{"c":null}],"d":1e2,"e":"x\"y"}"#)
    #expect(
      String(decoding: JSONPrettyPrinter.bytes(value), as: UTF8.self) == """
        {
          "a": [],
          "b": [
            {
              "c": null
            }
          ],
          "d": 1e2,
          "e": "x\\"y"
        }
        """)
  }
}
