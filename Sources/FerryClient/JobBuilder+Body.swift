import FerrySerializer
import FerryWire

/// The job's raw `body`: text, bytes, a file or stdin passed as a descriptor.
extension JobBuilder {
  /// The `body` object for `r.rawBody`, or nil; descriptors it indexes are added to `passing`.
  static func rawBodyObject(
    _ r: RequestOptions, context: JobContext, passing: inout [PassedDescriptor]
  ) -> JSONObject? {
    switch r.rawBody {
    case .text(let text):
      var body = JSONObject()
      body.append(key: "text", value: .string(text))
      return body
    case .file(let path):
      // Opened by the CLI with the user's permissions: the daemon's read_roots do not apply.
      let absolute = context.absolute(path)
      passing.append(.readFile(absolute))
      var body = JSONObject()
      body.append(key: "fd", value: .number(JSONNumber(passing.count - 1)))
      // Typed by its extension from the system's table, as the daemon types a `file` body.
      let table = context.readFile("/etc/mime.types").map {
        MIMETypes(parsing: String(decoding: $0, as: UTF8.self))
      }
      if let ext = absolute.split(separator: "/").last?.split(separator: ".").last, ext.count > 0,
        absolute.split(separator: "/").last?.contains(".") == true,
        let type = table?.type(forExtension: String(ext))
      {
        body.append(key: "type", value: .string(type))
      }
      return body
    case .stdin(let isJSON):
      passing.append(.stdin)
      var body = JSONObject()
      body.append(key: "fd", value: .number(JSONNumber(passing.count - 1)))
      if r.encoding == .form {
        body.append(key: "type", value: "application/x-www-form-urlencoded")
      } else if isJSON {
        body.append(key: "type", value: "application/json")
      }
      return body
    case .bytes(let bytes):
      var body = JSONObject()
      if let text = String(validating: bytes, as: UTF8.self), !bytes.contains(0) {
        body.append(key: "text", value: .string(text))
      } else {
        var encoded: [UInt8] = []
        Base64.encode(bytes, into: &encoded)
        body.append(key: "base64", value: .string(String(decoding: encoded, as: UTF8.self)))
      }
      // As HTTPie labels stdin: JSON by default (when it is JSON), a form with --form.
      if r.encoding == .form {
        body.append(key: "type", value: "application/x-www-form-urlencoded")
      } else if (try? JSONReader().read(bytes)) != nil {
        body.append(key: "type", value: "application/json")
      }
      return body
    case nil: return nil
    }
  }
}
