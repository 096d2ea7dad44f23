import Foundation
import Testing

/// The socat lines of the README and docs, run as written (issue 25): socat gives up 0.5 s
/// after its input ends unless told otherwise, so a documented line that lacks `-t` loses the
/// result of any job slower than that.
@Suite struct ReadmeSocatTests {
  /// The documents a user copies socat lines from.
  static let documents = ["README.md", "docs/PROTOCOL.md", "docs/CLI.md"]

  /// Every line of `document` that pipes into socat.
  static func socatLines(_ document: String) throws -> [String] {
    let text = try String(contentsOfFile: Paths.repo + "/" + document, encoding: .utf8)
    return text.split(separator: "\n").map(String.init).filter { $0.contains("| socat ") }
  }

  /// The socat command of `line`, from `socat` to the end of its address, with the address's
  /// socket path replaced by `socket`.
  static func socatCommand(_ line: String, socket: String) throws -> String {
    guard let start = line.range(of: "socat "),
      let address = line.range(of: "UNIX-CONNECT:", range: start.upperBound..<line.endIndex)
    else { throw TestFailure("no socat address in: \(line)") }
    return String(line[start.lowerBound..<address.upperBound]) + socket
  }

  @Test func everyDocumentedSocatLineWaitsForFerrydToClose() throws {
    var count = 0
    for document in Self.documents {
      for line in try Self.socatLines(document) {
        count += 1
        #expect(line.contains("socat -t 3600 - UNIX"), "\(document): \(line)")
      }
    }
    #expect(count >= 8)
  }

  @Test func theReadmesLinesGetTheResultOfAJobSlowerThanSocatsDefaultWait() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    let lines = try Self.socatLines("README.md")
    let commands = Set(try lines.map { try Self.socatCommand($0, socket: daemon.socket) })
    #expect(!commands.isEmpty)
    for command in commands {
      // Two seconds: four times socat's default -t of 0.5 s.
      let job = #"{"id":"slow","url":"\#(fixture.url("/delay/2000"))","events":[]}"#
      let (status, text) = try run("/bin/sh", ["-c", "echo '\(job)' | \(command)"])
      let last = text.split(separator: "\n").last.map(String.init) ?? ""
      #expect(status == 0, "\(command)")
      #expect(last.hasPrefix(#"{"event":"done","id":"slow","seq":2,"status":200"#), "\(command): \(text)")
    }
  }
}
