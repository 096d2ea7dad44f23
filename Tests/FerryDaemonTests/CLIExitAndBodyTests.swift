import FerryTestSupport
import FerryWire
import Foundation
import Testing

/// Black-box: `ferry`'s exit status and request bodies match curl's where docs/CLI.md says so
/// (issue 25).
@Suite(.serialized) struct CLIExitAndBodyTests {
  @Test func anUntrustedCertificateExitsSixtyAsCurlDoes() throws {
    let nginx = try NginxHarness()
    let daemon = try DaemonHarness()
    let run = try CLITests.ferry(["get", nginx.https("/small")], socket: daemon.socket)
    #expect(run.status == 60, "\(run.stderr)")
    #expect(run.stderr.contains("(tls_failed)"), "\(run.stderr)")
  }
}

extension CLIExitAndBodyTests {
  @Test func aBodylessPostSendsNoContentType() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    for method in ["post", "put", "patch"] {
      let run = try CLITests.ferry([method, fixture.url("/echo")], socket: daemon.socket)
      #expect(run.status == 0, "\(run.stderr)")
      let headers = try run.json()["headers"]?.objectValue ?? JSONObject()
      #expect(headers["content-type"] == nil, "\(method): \(headers)")
      // The daemon keeps `Content-Length: 0` on a bodyless POST and PUT (RFC 9110 8.6 asks for
      // it, HTTPie's requests sends it, and servers may answer 411 without it); curl sends none.
      #expect([nil, .string("0")].contains(headers["content-length"]), "\(method): \(headers)")
    }
    // --form asks for AFNetworking's form, which sends its empty body typed.
    let form = try CLITests.ferry(["post", "--form", fixture.url("/echo")], socket: daemon.socket).json()
    #expect(form["headers"]?.objectValue?["content-type"]?.stringValue == "application/x-www-form-urlencoded")
  }
}

extension CLIExitAndBodyTests {
  @Test func jobsListsTheDetachedJobsOfTheCaller() throws {
    let fixture = try FixtureHarness()
    let daemon = try DaemonHarness()
    // Still running when listed: a job whose ending reached its connected client is collected
    // and no longer listed, so a fast one can be gone before `ferry jobs` asks (a busy CI).
    let detached = try CLITests.ferry(
      ["get", fixture.url("/delay/20000"), "--detach", "--id", "slow"], socket: daemon.socket)
    #expect(detached.status == 0, "\(detached.stderr)")
    let jobs = try CLITests.ferry(["jobs"], socket: daemon.socket)
    #expect(jobs.status == 0, "\(jobs.stderr)")
    let listed = try jobs.json()["jobs"]
    guard case .array(let entries)? = listed, case .object(let first)? = entries.first else {
      Issue.record("no jobs listed: \(jobs.stdout)")
      return
    }
    #expect(first["id"]?.stringValue == "slow")
  }
}
