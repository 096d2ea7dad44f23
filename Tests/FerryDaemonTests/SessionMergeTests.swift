import FerrySerializer
import FerryWire
import Testing

@testable import FerryDaemon

/// The profile of session `name` in `config`.
private func profile(_ config: String, _ name: String) throws -> SessionProfile {
  let parsed = try DaemonConfig.parse(Array(config.utf8), file: "test.json")
  let session = try #require(parsed.sessions[name])
  let environment = DaemonEnvironment(mimeTypes: MIMETypes(parsing: ""))
  return SessionProfile(config: session, environment: environment, egress: nil)
}

@Test func aJobTakesTheFieldsItLeftOutFromItsSessionsDefaults() throws {
  let api = try profile(
    #"{"sessions":{"api":{"timeout":30,"response":"text","lane":"bulk","follow_redirects":false}}}"#, "api")
  var job = Job()
  job.url = "/a"
  job.response = .base64
  let merged = api.merged(job)
  #expect(merged.timeout == 30)
  #expect(merged.lane == "bulk")
  #expect(merged.followRedirects == false)
  // The job's own value wins.
  #expect(merged.response == .base64)
  #expect(merged.url == "/a")
}

@Test func aSessionWithoutDefaultsLeavesTheJobAsItIs() throws {
  let plain = try profile(#"{"sessions":{"plain":{"max_concurrent":2}}}"#, "plain")
  var job = Job()
  job.url = "/a"
  job.id = "j"
  job.events = []
  #expect(plain.merged(job) == job)
}
