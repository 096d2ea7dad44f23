/// The kinds of log entry an operator searches for, each with a fixed journald `MESSAGE_ID`
/// (a 128-bit id, as systemd.journal-fields(7) asks: `journalctl MESSAGE_ID=…` finds every
/// entry of the kind, whatever its text). docs/OPERATIONS.md lists them with their queries.
public enum LogEvent: String, Sendable, CaseIterable {
  /// Durable jobs were read back from the journal at start.
  case journalRecovered
  /// The journal file was damaged: moved aside, a new one started.
  case journalDamaged
  /// The HTTP cache's store cannot be opened: sessions run uncached.
  case cacheUnavailable
  /// The configuration was reloaded (SIGHUP).
  case reloaded
  /// A reload failed; the old configuration stays.
  case reloadFailed
  /// Work was refused for a limit: too many clients or jobs (`overloaded`).
  case overloaded
  /// A client connection was closed for not reading what it was sent.
  case clientDropped

  /// The entry's `MESSAGE_ID`: fixed for good, since saved queries name it.
  public var messageID: String {
    switch self {
    case .journalRecovered: "0c56f4d5245f403b9f7ab151cc3d1937"
    case .journalDamaged: "26a9b1fd75294e9ea87094923c5a3c26"
    case .cacheUnavailable: "bd923eb861a5453cb449d7a5b446a12c"
    case .reloaded: "608e58e7eb7f4aa9814094f4018ca905"
    case .reloadFailed: "b0f549717ad24edeb557fcf750e21507"
    case .overloaded: "7e1599a82ab54acdb0e979337fd4c9b5"
    case .clientDropped: "87dfa94dbf82415ab06a0d9fd796f57b"
    }
  }
}
