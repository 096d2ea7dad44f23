import FerryWire
/// A request rendered as an equivalent `curl` command line, ready to paste into a shell.
///
/// Arguments are single-quoted for POSIX shells; only an argument holding control characters
/// (a header value cannot, a body can) uses bash's `$'...'`. The method is given with `-X` only
/// when curl would not infer it (GET without a body, POST with one), and HEAD as `--head`.
/// Bodies: a multipart form as `-F` / `--form-string` arguments when curl can express every part
/// (curl then picks its own boundary; the part names, filenames, types and contents are the
/// same); text as `--data-raw`; a whole file as `--data-binary @file`; anything else (binary
/// bytes, a form mixing bytes and files) as `{ printf ...; head -c N file; ...; } | curl
/// --data-binary @-`, which reproduces the body byte for byte. A body without Content-Type
/// gets `-H 'Content-Type:'` so that curl adds none of its own, and `--compressed` goes with
/// an Accept-Encoding header so that curl decodes the response as ferry does.
///
/// A form's Content-Type (multipart, or `application/x-www-form-urlencoded`) is left to curl,
/// which sets the same one itself. One difference remains: when a redirect turns a POST into a
/// GET, ferry drops any other body's Content-Type, while curl keeps a header given with `-H`
/// on every hop (curl 7.88 has no option to drop it).
public enum CurlCommand {
  /// What ferry's transfer does around the request, as curl options: redirects, timeouts and
  /// retries (`-L`, `--max-redirs`, `--connect-timeout`, `-m`, `--retry`).
  public struct Behaviour: Sendable, Equatable {
    public var followRedirects: Bool
    public var maxRedirects: Int
    /// Seconds.
    public var connectTimeout: Double
    /// Seconds for the whole transfer; nil for no limit.
    public var timeout: Double?
    /// Further attempts after the first; curl's `--retry` retries the same outcomes as ferry's
    /// `retry` (timeouts, connection failures, 408, 429, 500, 502, 503, 504).
    public var retries: Int?

    public init(
      followRedirects: Bool = true, maxRedirects: Int = 10, connectTimeout: Double = 30,
      timeout: Double? = nil, retries: Int? = nil
    ) {
      self.followRedirects = followRedirects
      self.maxRedirects = maxRedirects
      self.connectTimeout = connectTimeout
      self.timeout = timeout
      self.retries = retries
    }
  }

  /// The command line for `request`; `form` is the multipart form behind its body, if any.
  /// Secret header values (`Request.secretHeaderNames`) show as `<redacted>` when asked.
  /// The request's headers are exactly what curl sends besides Host and framing: a request
  /// without Accept gets `-H 'Accept:'` (curl would add `Accept: */*`), one without User-Agent
  /// `-H 'User-Agent:'`, one with a body `-H 'Expect:'` (ferry never waits for `100 Continue`).
  public static func render(
    _ request: Request, form: MultipartForm? = nil, behaviour: Behaviour? = nil, redactingSecrets: Bool = true
  ) -> String {
    let body = bodyArguments(request.body, form: form)
    var words = ["curl"]
    if request.method == "HEAD" {
      words.append("--head")
    } else if request.method != (body.isNone ? "GET" : "POST") {
      words += ["-X", shellWord(request.method)]
    }
    if let behaviour { words += options(behaviour) }
    if let digest = request.digest {
      let credentials = redactingSecrets ? Request.redacted : "\(digest.username):\(digest.password)"
      words += ["--digest", "-u", shellWord(credentials)]
    }
    // Removals first (where an `-H 'Name:'` stands does not change the order on the wire):
    // the curl tool's own User-Agent and Accept go only when the request has them.
    for name in ["User-Agent", "Accept"]
    where !request.headers.contains(where: { TextCheck.equalsIgnoringASCIICase($0.name, name) }) {
      words += ["-H", shellWord(name + ":")]
    }
    if !body.isNone { words += ["-H", shellWord("Expect:")] }
    var hasContentType = false
    for (name, value) in redactingSecrets ? request.redactedHeaders : request.headers {
      if TextCheck.equalsIgnoringASCIICase(name, "Content-Type") {
        hasContentType = true
        // curl sets these itself (-F's multipart type, -d's form type), and drops its own
        // form type when a redirect turns the POST into a GET, as ferry does.
        if body.isForm || (!body.isNone && value == RequestSerializer.formType) { continue }
      }
      if TextCheck.equalsIgnoringASCIICase(name, "Accept-Encoding") { words.append("--compressed") }
      // `Name;` is curl's way to send a header with an empty value (`Name:` removes one).
      words += ["-H", shellWord(value.isEmpty ? "\(name);" : "\(name): \(value)")]
    }
    if !body.isNone, !body.isForm, !hasContentType { words += ["-H", shellWord("Content-Type:")] }
    words += body.arguments
    // Without --globoff curl reads [] and {} in a URL as ranges and sets to expand.
    if request.url.utf8.contains(where: { $0 == 0x5B || $0 == 0x5D || $0 == 0x7B || $0 == 0x7D }) {
      words.append("--globoff")
    }
    words.append(shellWord(request.url))
    let command = words.joined(separator: " ")
    return body.pipedFrom.map { "\($0) | \(command)" } ?? command
  }

  /// The curl options for `behaviour`.
  static func options(_ behaviour: Behaviour) -> [String] {
    var words: [String] = []
    if behaviour.followRedirects { words += ["-L", "--max-redirs", String(behaviour.maxRedirects)] }
    words += ["--connect-timeout", seconds(behaviour.connectTimeout)]
    if let timeout = behaviour.timeout { words += ["-m", seconds(timeout)] }
    if let retries = behaviour.retries, retries > 0 { words += ["--retry", String(retries)] }
    return words
  }

  /// `30`, `2.5`, `0.001`: seconds as curl reads them, without a needless fraction.
  static func seconds(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
  }

  /// How the body appears on the command line.
  struct BodyArguments {
    var arguments: [String] = []
    var isNone = false
    var isForm = false
    /// A shell command whose output is the body, piped into curl reading `@-`.
    var pipedFrom: String?
  }

  static func bodyArguments(_ body: BodyPlan?, form: MultipartForm?) -> BodyArguments {
    guard let body else { return BodyArguments(isNone: true) }
    if let form, let arguments = formArguments(form) {
      return BodyArguments(arguments: arguments, isForm: true)
    }
    if body.segments.isEmpty { return BodyArguments(arguments: ["--data-raw", "''"]) }
    if body.segments.count == 1 {
      switch body.segments[0] {
      case .bytes(let bytes):
        if let text = String(validating: bytes, as: UTF8.self), !bytes.contains(0) {
          return BodyArguments(arguments: ["--data-raw", shellWord(text)])
        }
      case .file(let path, let offset, _):
        if offset == 0, !path.utf8.contains(0) {
          return BodyArguments(arguments: ["--data-binary", shellWord("@" + path)])
        }
      case .descriptor(let d):
        // A file the client named (explain's `files`) by its path, else curl's stdin, which
        // reads the same bytes as the client's own descriptor.
        let source = d.displayPath.map { "@" + $0 } ?? "@-"
        return BodyArguments(arguments: ["--data-binary", shellWord(source)])
      }
    }
    return BodyArguments(arguments: ["--data-binary", "@-"], pipedFrom: pipeline(body))
  }

  /// `{ printf '...'; head -c N 'file'; ...; }`: a shell command writing exactly the body.
  static func pipeline(_ body: BodyPlan) -> String {
    var commands: [String] = []
    for segment in body.segments {
      switch segment {
      case .bytes(let bytes) where bytes.isEmpty: continue
      case .bytes(let bytes): commands.append("printf '\(printfFormat(bytes))'")
      case .file(let path, let offset, let length):
        let head = "head -c \(length)"
        commands.append(
          offset == 0 ? "\(head) \(shellWord(path))" : "tail -c +\(offset + 1) \(shellWord(path)) | \(head)")
      case .descriptor(let d):
        commands.append(d.displayPath.map { "cat \(shellWord($0))" } ?? "cat")
      }
    }
    if commands.isEmpty { commands.append("printf ''") }
    return "{ " + commands.joined(separator: "; ") + "; }"
  }

  /// A printf format writing exactly `bytes`, safe inside single quotes: `%` and `\` escaped,
  /// everything outside printable ASCII (and `'`, and a leading `-` that printf would read as
  /// an option) as a three-digit octal escape.
  static func printfFormat(_ bytes: [UInt8]) -> String {
    var out: [UInt8] = []
    for (i, b) in bytes.enumerated() {
      switch b {
      case UInt8(ascii: "%"): out.append(contentsOf: "%%".utf8)
      case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
      case UInt8(ascii: "\n"): out.append(contentsOf: "\\n".utf8)
      case UInt8(ascii: "\r"): out.append(contentsOf: "\\r".utf8)
      case UInt8(ascii: "-") where i == 0, UInt8(ascii: "'"), 0..<0x20, 0x7F...:
        out.append(UInt8(ascii: "\\"))
        out.append(0x30 + (b >> 6))
        out.append(0x30 + ((b >> 3) & 7))
        out.append(0x30 + (b & 7))
      default: out.append(b)
      }
    }
    return String(decoding: out, as: UTF8.self)
  }
}
