/// What building a job needs from the world outside the command line, injected so the builder
/// stays pure: the job id, the working directory for relative paths, and file contents for
/// `=@` / `:=@` items.
public struct JobContext {
  /// Which optional events the job asks for.
  public enum Events: Sendable, Equatable {
    /// `ferry get` and friends: only `progress`, and only when a progress bar can be drawn;
    /// otherwise none (`queued` and the end are always sent).
    case forResponse(progress: Bool)
    /// `ferry events`, `explain`, `job` and detached jobs: the daemon's default (all of them).
    case all
  }

  public var id: String
  /// Absolute; relative file paths (`@file`, `--output`, `--body-file`) are made absolute
  /// against it, since the daemon resolves nothing relative to the client.
  public var workingDirectory: String
  public var events: Events
  /// The body goes into the CLI's own stdout, passed as `output_fd` (stdout is not a terminal
  /// and nothing else is printed there): any size streams through at once.
  public var bodyToStdout = false
  /// The bytes of a file, or nil when it cannot be read.
  public var readFile: (String) -> [UInt8]?
  /// What stdin holds for a body: nothing usable (a terminal, a device such as /dev/null,
  /// closed), an empty file, or a body (a pipe, a socket, a non-empty file) passed to the
  /// daemon as a descriptor. Called only for a method that carries a body and has no other.
  public var probeStdin: () -> StdinProbe
  /// The answer to a password prompt on the terminal (without echo), or nil when there is no
  /// terminal to ask on.
  public var askPassword: (String) -> String?
  /// The bytes a passed body descriptor holds when it is a regular file, for `explain`'s
  /// account (`files`); nil for a pipe.
  public var passedLength: (PassedDescriptor) -> Int64?

  public init(
    id: String, workingDirectory: String, events: Events,
    readFile: @escaping (String) -> [UInt8]? = { _ in nil },
    probeStdin: @escaping () -> StdinProbe = { .unusable },
    askPassword: @escaping (String) -> String? = { _ in nil },
    passedLength: @escaping (PassedDescriptor) -> Int64? = { _ in nil }
  ) {
    self.id = id
    self.workingDirectory = workingDirectory
    self.events = events
    self.readFile = readFile
    self.probeStdin = probeStdin
    self.askPassword = askPassword
    self.passedLength = passedLength
  }

  /// `path` made absolute against the working directory, with `.` segments dropped.
  public func absolute(_ path: String) -> String {
    let joined = path.hasPrefix("/") ? path : workingDirectory + "/" + path
    var segments: [Substring] = []
    for segment in joined.split(separator: "/", omittingEmptySubsequences: true) where segment != "." {
      segments.append(segment)
    }
    return "/" + segments.joined(separator: "/")
  }
}

/// What `JobContext.probeStdin` found.
public enum StdinProbe: Sendable, Equatable {
  case unusable
  case empty
  /// A body; `isJSON` when it reads as JSON (a regular file, looked at without moving its
  /// offset), or is a stream, which cannot be looked at without taking its bytes: streams
  /// are labelled JSON, the CLI's default encoding.
  case body(isJSON: Bool)
}

/// A descriptor the CLI opens (or has) and passes with the job line, by index in this order.
public enum PassedDescriptor: Sendable, Equatable {
  case stdin
  case stdout
  /// Opened read-only: a raw body or a part.
  case readFile(String)
  /// Created (or truncated) for writing, with the user's permissions: `-o FILE`.
  case writeFile(String)
  /// Opened for writing without truncating, created if absent: `--resume`'s `FILE.part`.
  case continueFile(String)
  /// Opened for reading and writing without truncating, created if absent: `--resume`'s
  /// `FILE.part.validator`, which the daemon reads and rewrites (`validator_fd`).
  case validatorFile(String)
}
