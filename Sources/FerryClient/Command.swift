/// What one run of `ferry` does, as read from its arguments by `ArgumentParser`.
public enum Command: Sendable, Equatable {
  /// `ferry get URL …` and the other methods: send the job, print the response.
  case request(RequestOptions)
  /// `ferry explain …`: ask the daemon how it would send the request, print that and the curl
  /// command; nothing is sent.
  case explain(RequestOptions)
  /// `ferry events …`: send the job and print its event lines as they come, for scripts.
  case events(RequestOptions)
  /// `ferry job …`: print the job line that would be sent, without contacting the daemon.
  case printJob(RequestOptions)
  /// `ferry ping|hello|stats|metrics|sessions|jobs`: one op, its answer printed.
  case op(SimpleOp)
  /// `ferry cancel ID`.
  case cancel(id: String)
  /// `ferry attach ID`: the rest of a detached job, printed like a response.
  case attach(id: String, includeHeaders: Bool)
  /// `ferry cache`, `ferry purge URL|--all`: a session's HTTP cache.
  case cache(CacheCommand)
  /// `ferry cookies`, `ferry clear-cookies`: your cookie jar in a session.
  case cookies(CookieCommand)
  /// `ferry help [COMMAND]`, `--help`.
  case help(HelpTopic)
  /// `ferry --version`.
  case version
  /// `ferry --complete-…`: what the shell completions ask (hidden).
  case complete(CompletionQuery)
  /// `ferry top`: the live view.
  case top(TopOptions)
}

/// A parsed command line: the command and the socket chosen with `--socket`, if any.
public struct Invocation: Sendable, Equatable {
  public var socket: String?
  public var command: Command

  public init(socket: String? = nil, command: Command) {
    self.socket = socket
    self.command = command
  }
}

/// Ops that take no argument and answer with one event.
public enum SimpleOp: String, Sendable, Equatable, CaseIterable {
  case ping, hello, stats, metrics, sessions
  /// `ferry jobs`: the caller's detached and durable jobs (the `jobs` op).
  case jobs
  /// `ferry network`: the daemon's network monitor's reading (issue 31).
  case network

  /// The event that answers the op.
  public var answer: String {
    switch self {
    case .ping: "pong"
    case .hello: "hello"
    case .stats: "stats"
    case .metrics: "metrics"
    case .sessions: "sessions"
    case .jobs: "jobs"
    case .network: "network"
    }
  }
}

/// Everything a request command line says about the job to build, checked for form but not yet
/// turned into a job (that needs the working directory and file contents: `JobBuilder`).
public struct RequestOptions: Sendable, Equatable {
  /// Upper-cased; nil when the command named none (`ferry explain URL`): then GET, or POST when
  /// there are data fields, files or a raw body, as HTTPie does.
  public var method: String?
  public var url: String
  /// Request items and `-H` headers, in command-line order.
  public var items: [RequestItem] = []
  public var encoding: EncodingChoice?
  public var rawBody: RawBodyChoice?
  public var auth: AuthChoice?
  public var session: String?
  public var output: String?
  public var resume = false
  public var timeout: JSONNumberText?
  public var lane: String?
  /// `--cache POLICY`: the job field `cache` (issue 17).
  public var cache: String?
  public var detach = false
  /// `--wait-for-network`: the job field `waits_for_connectivity` (issue 31).
  public var waitsForNetwork = false
  public var id: String?
  /// `--accept-status`: inclusive ranges (a single code is a range of one).
  public var acceptStatus: [ClosedRange<Int>]?
  public var followRedirects = true
  public var retry: Int?
  public var arrayEncoding: String?
  public var includeHeaders = false
  public var verbose = false
  /// `--ignore-stdin`: never read a piped stdin as the body.
  public var ignoresStdin = false
  /// `-A digest`: `-a` credentials are for HTTP Digest rather than Basic.
  public var usesDigest = false
  /// `--cacert FILE` (or `--verify=FILE`): the job's `tls.ca_file`.
  public var caFile: String?
  /// `-k` / `--verify=no` (true), `--verify=yes` (false): the job's `tls.insecure`.
  public var insecure: Bool?
  /// curl's `-d`, `--data-*` and `--json DATA`, in command-line order: one body (or, with
  /// `-G`, one query string) joined as curl joins them (`JobBuilder+CurlData`).
  public var curlData: [CurlData] = []
  /// curl's `-G`: `curlData` goes into the URL's query, and the method is GET.
  public var curlDataInQuery = false
  /// curl's `--json DATA` was given: the body is typed and accepted as JSON.
  public var curlJSON = false
  /// curl's `-s`: no progress bar (errors are still reported, as with `-sS`).
  public var silent = false
  /// curl's `--connect-timeout`: the job's `connect_timeout`.
  public var connectTimeout: JSONNumberText?
  /// curl's `--max-redirs`: the job's `max_redirects`.
  public var maxRedirects: Int?
  /// The raw body's `type` curl would send for `curlData`, set by `JobBuilder`.
  var curlBodyType: String?

  public init(method: String?, url: String) {
    self.method = method
    self.url = url
  }
}

/// A number for the job line, kept as validated JSON number text.
public struct JSONNumberText: Sendable, Equatable {
  public var text: String

  public init(_ text: String) { self.text = text }
}

/// `--json`, `--form`, `--multipart`.
public enum EncodingChoice: String, Sendable, Equatable {
  case json, form, multipart
}

/// `--raw TEXT` or `--body-file PATH` (`@PATH`): a body sent as it is (or a piped stdin).
public enum RawBodyChoice: Sendable, Equatable {
  case text(String)
  /// Opened by the CLI and passed to the daemon as a descriptor.
  case file(String)
  case bytes([UInt8])
  /// The CLI's own stdin, passed as a descriptor; `isJSON` labels it.
  case stdin(isJSON: Bool)
}

/// `-a USER:PASSWORD` or `--bearer TOKEN`; `-a USER` alone asks for the password on the
/// terminal, as curl does.
public enum AuthChoice: Sendable, Equatable {
  case basic(username: String, password: String)
  case bearer(String)
  case basicAskingPassword(username: String)
}
