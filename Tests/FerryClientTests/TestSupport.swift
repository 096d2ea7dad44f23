import FerryClient
import FerryWire

/// Shared helpers: command lines to job lines, event lines to renderings.
enum Fixture {
  static let files: [String: String] = [
    "/home/u/note.txt": "hello\n",
    "/home/u/data.json": #"{"k": [1, 2]}"#,
    "/etc/mime.types": "application/json json\n",
  ]

  static func context(
    progress: Bool = false, stdin: [UInt8]? = nil, password: String? = nil
  ) -> JobContext {
    JobContext(
      id: "t", workingDirectory: "/home/u", events: .forResponse(progress: progress),
      readFile: { path in files[path].map { Array($0.utf8) } },
      probeStdin: {
        guard let stdin else { return .unusable }
        return stdin.isEmpty ? .empty : .body(isJSON: (try? JSONReader().read(stdin)) != nil)
      },
      askPassword: { _ in password })
  }

  /// The job line `ferry ARGS` sends for a request command (no progress bar).
  static func jobLine(
    _ arguments: [String], progress: Bool = false, stdin: [UInt8]? = nil, password: String? = nil
  ) throws -> String {
    let invocation = try ArgumentParser.parse(arguments)
    guard case .request(let options) = invocation.command else {
      throw FixtureError("not a request: \(invocation.command)")
    }
    let context = context(progress: progress, stdin: stdin, password: password)
    return JSONWriter.string(.object(try JobBuilder.build(options, context: context)))
  }

  /// The usage error of `ferry ARGS`, parsing and building.
  static func usageError(_ arguments: [String]) -> UsageError? {
    do throws(UsageError) {
      let invocation = try ArgumentParser.parse(arguments)
      _ = try CommandPlan.make(
        invocation.command, context: context(), terminals: .init(stdout: false, stderr: false))
      return nil
    } catch {
      return error
    }
  }

  static func renderer(
    _ mode: EventRenderer.Mode, id: String = "t", configure: (inout EventRenderer.Settings) -> Void = { _ in }
  ) -> EventRenderer {
    var settings = EventRenderer.Settings(mode: mode, jobID: id)
    configure(&settings)
    return EventRenderer(settings)
  }
}

extension EventRenderer {
  mutating func render(_ line: String) -> Rendering { render(line: Array(line.utf8)) }
}

extension Rendering {
  var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
  var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}

struct FixtureError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
