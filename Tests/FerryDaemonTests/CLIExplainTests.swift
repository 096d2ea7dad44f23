import FerryTestSupport
import FerryWire
import Foundation
import Testing

/// Black-box: `ferry explain` accounts for the files and stdin `ferry` opens itself (issue 25):
/// true lengths, and a curl command that names the files.
@Suite(.serialized) struct CLIExplainTests {
  static let fileBytes: [UInt8] = (0..<1000).map { UInt8($0 % 251) }

  private static func directoryWithFile() throws -> String {
    let directory = Paths.tempDirectory("explain")
    try Data(fileBytes).write(to: URL(fileURLWithPath: directory + "/photo.png"))
    return directory
  }

  @Test func filePartsShowTheirLengthAndTheCurlLineNamesTheFile() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let directory = try Self.directoryWithFile()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let items = ["note=hi", "f@photo.png"]
    let explain = try CLITests.ferry(
      ["explain", "post", fixture.url("/echo")] + items, socket: daemon.socket, directory: directory)
    #expect(explain.status == 0, "\(explain.stderr)")
    #expect(
      explain.stdout.contains(#"part "f" (filename photo.png, image/png): 1000 bytes"#), "\(explain.stdout)")
    #expect(
      explain.stdout.contains(#"-F 'f=@"\#(directory)/photo.png";filename="photo.png";type=image/png'"#))
    #expect(!explain.stdout.contains("@-"))
    let sent = try CLITests.ferry(
      ["post", fixture.url("/echo")] + items, socket: daemon.socket, directory: directory
    ).json()
    let length = sent.int("body_length")
    #expect(explain.stdout.contains("body: \(length) bytes"), "\(explain.stdout)")
  }

  @Test func bodyFilesAndRedirectedStdinShowTheirLengthAndCurlReadsTheFile() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let directory = try Self.directoryWithFile()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let explain = try CLITests.ferry(
      ["explain", "post", fixture.url("/echo"), "--body-file", "photo.png"], socket: daemon.socket,
      directory: directory)
    #expect(explain.stdout.contains("body: 1000 bytes\n"), "\(explain.stdout)")
    let curl = try #require(explain.stdout.split(separator: "\n").last { $0.hasPrefix("curl ") })
    #expect(curl.contains("--data-binary @\(directory)/photo.png"))
    let viaCurl = try ExplainCurlTests.runCurl(String(curl))
    #expect(viaCurl["body_sha256"]?.stringValue == SHA256.hex(Self.fileBytes))
    let redirected = try CLITests.ferry(
      ["explain", "post", fixture.url("/echo")], socket: daemon.socket, stdinFile: directory + "/photo.png")
    #expect(redirected.stdout.contains("body: 1000 bytes\n"), "\(redirected.stdout)")
  }

  @Test func aPipedBodyIsSaidToBeAPipe() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let piped = try CLITests.ferry(
      ["explain", "post", fixture.url("/echo")], socket: daemon.socket, stdin: "abc")
    #expect(piped.status == 0, "\(piped.stderr)")
    #expect(piped.stdout.contains("body: a pipe, read only when the request is sent"), "\(piped.stdout)")
  }
}
