import FerrySerializer
import FerryWire
import Glibc

/// Files held in memory: the probe answers their sizes, and `bytes(of:)` lays out a body plan
/// with their contents, as the engine would read them.
struct MemoryFiles: FileProbe {
  var contents: [String: [UInt8]] = [:]

  func size(ofFileAt path: String) throws(WireError) -> Int64 {
    guard let bytes = contents[path] else { throw WireError(.fileUnreadable, "no such file: \(path)") }
    return Int64(bytes.count)
  }

  /// The body's bytes, file segments read from memory.
  func bytes(of plan: BodyPlan?) -> [UInt8]? {
    guard let plan else { return nil }
    var out: [UInt8] = []
    for segment in plan.segments {
      switch segment {
      case .bytes(let b): out += b
      case .file(let path, let offset, let length):
        out += (contents[path] ?? [])[Int(offset)..<Int(offset + length)]
      case .descriptor: return nil
      }
    }
    return out
  }
}

let fixedBoundary = "Boundary+0123456789ABCDEF"

/// A serializer with a fixed boundary and no ambient defaults beyond User-Agent.
func makeSerializer(
  _ settings: SerializerSettings = SerializerSettings(version: "1.0"),
  files: MemoryFiles = MemoryFiles(), mimeTypes: MIMETypes = MIMETypes()
) -> RequestSerializer {
  RequestSerializer(settings: settings, mimeTypes: mimeTypes, files: files, makeBoundary: { fixedBoundary })
}

/// A job from the fields tests use most.
func makeJob(
  _ method: String? = nil, _ url: String? = "http://example.com", parameters: JSONValue? = nil,
  encoding: BodyEncoding? = nil, headers: [HeaderField]? = nil
) -> Job {
  var job = Job()
  job.method = method
  job.url = url
  job.parameters = parameters
  job.encoding = encoding
  job.headers = headers
  return job
}

/// The error `body` throws, or `nil`.
func thrownError(_ body: () throws(WireError) -> Void) -> WireError? {
  do throws(WireError) {
    try body()
    return nil
  } catch {
    return error
  }
}

func text(_ bytes: [UInt8]?) -> String? {
  bytes.map { String(decoding: $0, as: UTF8.self) }
}

/// Reads a file next to this source file (no Foundation in this package's pure targets).
func readFixture(_ name: String, from filePath: String = #filePath) -> [UInt8] {
  let directory = filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast()
  let path = (directory + ["Fixtures", name[...]]).joined(separator: "/")
  guard let file = fopen(path, "rb") else { return [] }
  defer { fclose(file) }
  var out: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 65536)
  while true {
    let n = fread(&buffer, 1, buffer.count, file)
    if n <= 0 { break }
    out += buffer[0..<n]
  }
  return out
}

/// The object of a JSON literal (JSONObject itself takes no dictionary literal).
func object(_ value: JSONValue) -> JSONObject {
  value.objectValue ?? JSONObject()
}
