import FerryTestSupport
import FerryWire
import Foundation
import Testing

/// Black-box: the built `ferry` command against a real ferryd and the fixture server.
@Suite(.serialized) struct CLITests {
  /// What one run of `ferry` left behind.
  struct Run {
    let status: Int32
    let stderr: String
    /// stdout as it came, byte for byte.
    let stdoutBytes: [UInt8]
    /// stdout read as UTF-8 (repaired), made when asked for: a large binary body stays bytes.
    var stdout: String { String(decoding: stdoutBytes, as: UTF8.self) }

    /// stdout read as one JSON object.
    func json() throws -> JSONObject {
      guard case .object(let o) = try JSONReader().read(stdout) else {
        throw TestFailure("not an object: \(stdout)")
      }
      return o
    }
  }

  /// Runs `.build/debug/ferry` with `arguments`, stdout and stderr piped (so no terminal
  /// output), `FERRY_SOCKET` set to `socket` when given, in `directory` when given.
  static func ferry(
    _ arguments: [String], socket: String? = nil, directory: String? = nil, stdin: String? = nil,
    stdinFile: String? = nil, timeoutMs: Int = 20_000
  ) throws -> Run {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Paths.product("ferry"))
    process.arguments = arguments
    // Its own home and runtime directories: without FERRY_SOCKET it must not find the user's daemon.
    let home = Paths.tempDirectory("env")
    defer { try? FileManager.default.removeItem(atPath: home) }
    var environment = TestEnvironment.isolated(nil, under: home)
    environment["FERRY_SOCKET"] = socket
    process.environment = environment
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let input = Pipe()
    if let stdinFile {
      process.standardInput = FileHandle(forReadingAtPath: stdinFile)
    } else {
      process.standardInput = stdin == nil ? FileHandle.nullDevice : input
    }
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    try process.run()
    if let stdin {
      // A ferry that exits before reading its input must not end this test process by SIGPIPE.
      signal(SIGPIPE, SIG_IGN)
      // Small enough for the pipe's buffer: written whole, then closed for the end of input.
      // A ferry that never reads it (a GET) may already have exited: the write then fails with
      // EPIPE, which the throwing write reports (the old `write(_:)` traps on it, ending the run).
      try? input.fileHandleForWriting.write(contentsOf: Data(stdin.utf8))
      try? input.fileHandleForWriting.close()
    }
    // Read both pipes to the end before waiting, so a large body cannot fill a pipe and stall.
    let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
    let stderrData = err.fileHandleForReading.readDataToEndOfFile()
    // The exit itself, not a poll of `isRunning`.
    if exited.wait(timeout: .now() + .milliseconds(TestTime.ms(timeoutMs))) == .timedOut {
      process.terminate()
      throw TestFailure("ferry \(arguments) did not exit")
    }
    return Run(
      status: process.terminationStatus, stderr: String(decoding: stderrData, as: UTF8.self),
      stdoutBytes: [UInt8](stdoutData))
  }

  @Test func pipedStdinIsThePostBodyAndNeverAGetBody() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let post = try Self.ferry(["post", fixture.url("/echo")], socket: daemon.socket, stdin: #"{"a":1}"#)
    #expect(post.status == 0)
    #expect(try post.json()["body_length"] == .number(JSONNumber(7)))
    #expect(try post.json()["body_sha256"]?.stringValue == SHA256.hex(Array(#"{"a":1}"#.utf8)))
    let get = try Self.ferry(["get", fixture.url("/echo")], socket: daemon.socket, stdin: "ignored")
    #expect(try get.json()["body_length"] == .number(JSONNumber(0)))
    let ignored = try Self.ferry(
      ["post", "--ignore-stdin", fixture.url("/echo")], socket: daemon.socket, stdin: "ignored")
    #expect(try ignored.json()["body_length"] == .number(JSONNumber(0)))
  }

  @Test func latin1TextIsPrintedAsTextNotCalledBinary() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let run = try Self.ferry(["get", fixture.url("/latin1")], socket: daemon.socket)
    #expect(run.status == 0)
    // Piped, the body goes out as the server sent it (a terminal gets it as text, decoded).
    #expect(
      run.stdoutBytes == [0x68, 0xE9, 0x6C, 0x6C, 0x6F, 0x2C, 0x20, 0x77, 0xF6, 0x72, 0x6C, 0x64, 0x0A])
    let client = try daemon.connect()
    let events = try client.run(#"{"id":"l","url":"\#(fixture.url("/latin1"))","events":[]}"#, id: "l")
    #expect(events.last?["charset"]?.stringValue == "iso-8859-1")
  }

  @Test func headPrintsTheStatusLineAndHeaders() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let head = try Self.ferry(["head", fixture.url("/json")], socket: daemon.socket)
    #expect(head.status == 0)
    #expect(head.stdout.hasPrefix("HTTP/1.1 200 OK\n"))
    #expect(head.stdout.contains("content-type: application/json\n"))
  }

  @Test func unfollowedRedirectIsAResponseAndFailuresExitByKind() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let redirect = try Self.ferry(
      ["get", "-i", "--no-follow", fixture.url("/redirect/1")], socket: daemon.socket)
    #expect(redirect.status == 0)
    #expect(redirect.stdout.hasPrefix("HTTP/1.1 302 Found\n"))
    #expect(redirect.stderr.isEmpty)
    #expect(try Self.ferry(["get", fixture.url("/status/404")], socket: daemon.socket).status == 14)
    #expect(try Self.ferry(["get", fixture.url("/status/503")], socket: daemon.socket).status == 15)
    #expect(
      try Self.ferry(
        ["get", "--accept-status", "200", fixture.url("/redirect-to?url=/x&status=301"), "--no-follow"],
        socket: daemon.socket
      ).status == 13)
    // curl's -sS: no progress bar, and the error is still reported (issue 25).
    let silent = try Self.ferry(["get", "-sS", fixture.url("/status/404")], socket: daemon.socket)
    #expect(silent.status == 14)
    #expect(silent.stderr.hasPrefix("ferry: request failed: unacceptable status 404"), "\(silent.stderr)")
  }

  @Test func getPrintsTheBodyAndExitsZero() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let text = try Self.ferry(["get", fixture.url("/text")], socket: daemon.socket)
    #expect(text.status == 0)
    #expect(text.stdout == FixtureRoutes.sampleText)
    #expect(text.stderr == "")
    let json = try Self.ferry(["get", fixture.url("/json")], socket: daemon.socket)
    #expect(json.status == 0)
    // Piped: the server's bytes (a terminal gets it pretty-printed).
    #expect(json.stdout == JSONWriter.string(FixtureRoutes.sampleJSON))
  }

  @Test func notFoundExitsFourteenWithTheMessageAndTheBody() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let run = try Self.ferry(["get", fixture.url("/status/404")], socket: daemon.socket)
    #expect(run.status == 14)
    #expect(run.stderr.hasPrefix("ferry: "))
    #expect(run.stderr.hasSuffix("(unacceptable_status)\n"))
    #expect(run.stderr.contains("404"))
    #expect(run.stdout == #"{"status":404}"# + "\n")
    let accepted = try Self.ferry(
      ["get", fixture.url("/status/404"), "--accept-status", "200-299,404"], socket: daemon.socket)
    #expect(accepted.status == 0)
  }

  @Test func unreachableDaemonExitsThreeNamingTheSocket() throws {
    let dir = Paths.tempDirectory("cli")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let socket = dir + "/none.sock"
    let run = try Self.ferry(["--socket", socket, "get", "http://127.0.0.1:1/"])
    #expect(run.status == 3)
    #expect(
      run.stderr.hasPrefix("ferry: cannot reach ferryd at \(socket) (--socket): No such file or directory\n"))
    #expect(run.stderr.contains("make run"))
    let viaEnvironment = try Self.ferry(["ping"], socket: socket)
    #expect(viaEnvironment.status == 3)
    #expect(viaEnvironment.stderr.contains("\(socket) ($FERRY_SOCKET)"))
    #expect(viaEnvironment.stdout == "")
  }

  @Test func postSendsDataFieldsAsAJSONBody() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let run = try Self.ferry(
      ["post", fixture.url("/echo?z=0"), "name=Ada", "n:=12345678901234567890", "q==a b", "X-Trace:7"],
      socket: daemon.socket)
    #expect(run.status == 0, "\(run.stderr)")
    let echo = try run.json()
    let body = #"{"name":"Ada","n":12345678901234567890}"#
    #expect(echo["method"]?.stringValue == "POST")
    #expect(echo["query"]?.stringValue == "z=0&q=a%20b")
    #expect(echo["body_sha256"]?.stringValue == SHA256.hex(Array(body.utf8)))
    #expect(echo.int("body_length") == body.utf8.count)
    let headers = echo["headers"]?.objectValue
    #expect(headers?["content-type"]?.stringValue == "application/json")
    #expect(headers?["x-trace"]?.stringValue == "7")
  }

  @Test func getPutsItemsInTheQueryString() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let run = try Self.ferry(["get", fixture.url("/echo"), "x==1", "q==a b", "n:=2"], socket: daemon.socket)
    #expect(run.status == 0, "\(run.stderr)")
    let echo = try run.json()
    #expect(echo["method"]?.stringValue == "GET")
    #expect(echo["query"]?.stringValue == "n=2&q=a%20b&x=1")
    #expect(echo.int("body_length") == 0)
  }

  @Test func formAndMultipartBodiesReachTheServer() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let form = try Self.ferry(["put", "--form", fixture.url("/echo"), "a=1 2", "b=x"], socket: daemon.socket)
    #expect(form.status == 0, "\(form.stderr)")
    let formEcho = try form.json()
    #expect(formEcho["body_sha256"]?.stringValue == SHA256.hex(Array("a=1%202&b=x".utf8)))
    #expect(
      formEcho["headers"]?.objectValue?["content-type"]?.stringValue == "application/x-www-form-urlencoded")

    let dir = Paths.tempDirectory("cli")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try String(repeating: "z", count: 5000).write(toFile: dir + "/up.txt", atomically: true, encoding: .utf8)
    let multipart = try Self.ferry(
      ["post", fixture.url("/echo"), "note=hi", "file@up.txt"], socket: daemon.socket, directory: dir)
    #expect(multipart.status == 0, "\(multipart.stderr)")
    let echo = try multipart.json()
    let type = echo["headers"]?.objectValue?["content-type"]?.stringValue ?? ""
    #expect(type.hasPrefix("multipart/form-data; boundary="))
    #expect(echo.int("body_length") > 5000)
  }

  @Test func outputWritesTheFileRelativeToTheWorkingDirectory() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let dir = Paths.tempDirectory("cli")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let run = try Self.ferry(
      ["get", fixture.url("/bytes/70000"), "-o", "out.bin"], socket: daemon.socket, directory: dir)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout == "")
    #expect(run.stderr == "")
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/out.bin")))
    #expect(bytes.count == 70000)
    #expect(bytes.prefix(300).elementsEqual((0..<300).map { UInt8($0 % 251) }))
  }

  /// The fixture's `/bytes/N` body: byte i is i mod 251.
  static func fixtureBytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8($0 % 251) } }

  @Test func aBodyOfAnySizeStreamsIntoThePassedStdoutOrFile() throws {
    let fixture = try FixtureHarness()
    // No roots at all: the CLI opens what it passes, with its own permissions.
    let daemon = try DaemonHarness(fileRoots: false)
    let size = 9 << 20  // past max_inline_bytes (8 MiB): response_too_large before issue 15
    let expected = SHA256.hex(Self.fixtureBytes(size))
    let piped = try Self.ferry(["get", fixture.url("/bytes/\(size)")], socket: daemon.socket)
    #expect(piped.status == 0, "\(piped.stderr)")
    #expect(piped.stdoutBytes.count == size)
    #expect(SHA256.hex(piped.stdoutBytes) == expected)
    #expect(piped.stderr == "")
    let dashed = try Self.ferry(["get", fixture.url("/bytes/1000"), "-o", "-"], socket: daemon.socket)
    #expect(dashed.status == 0, "\(dashed.stderr)")
    #expect(dashed.stdoutBytes == Self.fixtureBytes(1000))
    let dir = Paths.tempDirectory("cliout")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let saved = try Self.ferry(
      ["get", fixture.url("/bytes/\(size)"), "-o", "big.bin"], socket: daemon.socket, directory: dir)
    #expect(saved.status == 0, "\(saved.stderr)")
    #expect(saved.stdout == "")
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/big.bin")))
    #expect(bytes.count == size)
    #expect(SHA256.hex(bytes) == expected)
    // `-o -` is stdout, not a file named `-`.
    #expect(!FileManager.default.fileExists(atPath: dir + "/-"))
  }

  @Test func bodiesFromStdinAndFilesArePassedWithoutRoots() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness(fileRoots: false)
    let dir = Paths.tempDirectory("cliin")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let body = Self.fixtureBytes(9 << 20)
    try Data(body).write(to: URL(fileURLWithPath: dir + "/body.bin"))
    try Data(#"{"a":[1,2]}"#.utf8).write(to: URL(fileURLWithPath: dir + "/small.json"))
    // `< body.bin`: a regular file as stdin, sent with its Content-Length.
    let redirected = try Self.ferry(
      ["post", fixture.url("/echo")], socket: daemon.socket, stdinFile: dir + "/body.bin")
    #expect(redirected.status == 0, "\(redirected.stderr)")
    let echo = try redirected.json()
    #expect(echo["body_sha256"]?.stringValue == SHA256.hex(body))
    #expect(echo["headers"]?.objectValue?["content-length"]?.stringValue == String(body.count))
    // `@FILE` and `field@FILE`.
    let raw = try Self.ferry(
      ["put", fixture.url("/echo"), "@body.bin"], socket: daemon.socket, directory: dir)
    #expect(raw.status == 0, "\(raw.stderr)")
    #expect(try raw.json()["body_sha256"]?.stringValue == SHA256.hex(body))
    let form = try Self.ferry(
      ["post", fixture.url("/echo"), "doc@small.json", "x=1"], socket: daemon.socket, directory: dir)
    #expect(form.status == 0, "\(form.stderr)")
    let formEcho = try form.json()
    #expect(
      formEcho["headers"]?.objectValue?["content-type"]?.stringValue?.hasPrefix("multipart/form-data") == true
    )
    #expect(formEcho.int("body_length") > 11)
    // A small piped body keeps its JSON label.
    let piped = try Self.ferry(["post", fixture.url("/echo")], socket: daemon.socket, stdin: #"{"a":1}"#)
    #expect(try piped.json()["headers"]?.objectValue?["content-type"]?.stringValue == "application/json")
    // A file that cannot be opened is the CLI's own error: nothing is sent.
    let missing = try Self.ferry(
      ["post", fixture.url("/echo"), "@nope.bin"], socket: daemon.socket, directory: dir)
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("cannot open \(dir)/nope.bin"))
  }

  @Test func includeAndVerbosePrintTheHeads() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let run = try Self.ferry(["get", "-iv", fixture.url("/text")], socket: daemon.socket)
    #expect(run.status == 0)
    #expect(run.stdout.hasPrefix("HTTP/1.1 200 OK\n"))
    #expect(run.stdout.contains("\ncontent-type: text/plain; charset=utf-8\n"))
    #expect(run.stdout.hasSuffix("\n\n" + FixtureRoutes.sampleText))
    #expect(run.stderr.hasPrefix("> GET \(fixture.url("/text"))\n> User-Agent: ferry/"))
    #expect(run.stderr.contains("\n< HTTP/1.1 200 OK\n"))
  }

  @Test func eventsPrintsEveryLineOfTheJobForScripts() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let run = try Self.ferry(["events", fixture.url("/json"), "--id", "e1"], socket: daemon.socket)
    #expect(run.status == 0)
    let events = try run.stdout.split(separator: "\n").map { line -> JSONObject in
      guard case .object(let o) = try JSONReader().read(String(line)) else {
        throw TestFailure("not an object")
      }
      return o
    }
    #expect(events.first?.event == "queued")
    #expect(events.map(\.event).contains("response"))
    #expect(events.last?.event == "done")
    #expect(events.allSatisfy { $0.id == "e1" })
    #expect(events.map(\.seq) == Array(1...events.count))
  }

  @Test func explainPrintsTheRequestAndTheCurlCommandWithoutSending() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let run = try Self.ferry(
      ["explain", fixture.url("/echo"), "a=1", "Authorization:Bearer secret"], socket: daemon.socket)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.hasPrefix("POST \(fixture.url("/echo"))\n"))
    #expect(run.stdout.contains("Content-Type: application/json\n"))
    #expect(run.stdout.contains("body: 9 bytes, sha256 \(SHA256.hex(Array(#"{"a":"1"}"#.utf8)))"))
    #expect(run.stdout.contains("\ncurl "))
    #expect(!run.stdout.contains("secret"))
    let stats = try Self.ferry(["stats"], socket: daemon.socket).json()
    #expect(stats["jobs"]?.objectValue?["done"] == .number(JSONNumber(0)))
  }

  @Test func opsAnswerAndAnUnknownCancelFails() throws {
    let daemon = try DaemonHarness()
    let ping = try Self.ferry(["ping"], socket: daemon.socket)
    #expect(ping.status == 0)
    #expect(ping.stdout == "pong\n")
    let hello = try Self.ferry(["hello"], socket: daemon.socket).json()
    #expect(hello["protocol"] == .number(JSONNumber(1)))
    let cancel = try Self.ferry(["cancel", "nope"], socket: daemon.socket)
    #expect(cancel.status == 1)
    #expect(cancel.stderr.hasSuffix("(unknown_id)\n"))
  }

  @Test func timeoutFailsNamingTheTimer() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let run = try Self.ferry(["get", fixture.url("/delay/3000"), "--timeout", "0.3"], socket: daemon.socket)
    #expect(run.status == 28)
    #expect(run.stderr.hasSuffix("(timeout, timer total)\n"), "\(run.stderr)")
    #expect(run.stdout == "")
  }

  @Test func badUsageExitsTwoWithoutContactingTheDaemon() throws {
    let run = try Self.ferry(["get", "http://h/", "--retry", "many"], socket: "/nonexistent/ferryd.sock")
    #expect(run.status == 2)
    #expect(
      run.stderr == "ferry: --retry 'many': expected a count from 0 to 20\nferry: see `ferry help request`\n")
    let help = try Self.ferry(["--help"])
    #expect(help.status == 0)
    #expect(help.stdout.contains("Exit status:"))
  }
}
