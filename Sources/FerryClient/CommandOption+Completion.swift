/// Which commands take an option, and what its value is: the one table the parser refuses
/// options with and `ferry --complete-options` prints for the shell completions, so a new
/// option shows up in both without an edit here.
extension CommandOption {
  /// What the word after an option is, for completion.
  enum ValueKind: Equatable {
    case none, text, file, session
    /// Text, or after an `@` a file: curl's `-d @FILE`, `--data-urlencode name@FILE`, `-F name=@FILE`.
    case data
    case choices([String])
  }

  var valueKind: ValueKind {
    guard takesValue else { return .none }
    switch self {
    case .bodyFile, .output, .cacert, .socket: return .file
    case .session: return .session
    case .data, .dataBinary, .dataURLEncode, .curlForm: return .data
    case .method: return .choices(ArgumentParser.methodCommands.map { $0.uppercased() })
    case .authType: return .choices(ArgumentParser.authTypes)
    case .cache: return .choices(ArgumentParser.cachePolicies)
    case .arrayEncoding: return .choices(ArgumentParser.arrayEncodings)
    case .verify: return .choices(["yes", "no"])
    default: return .text
    }
  }

  /// Whether `command` (a command word; a URL or nil for a request without one) takes the option.
  func isAccepted(by command: String?) -> Bool {
    if scope == .everywhere { return true }
    guard let command else { return scope == .request || scope == .response }
    switch command {
    case "cache": return self == .session || self == .json
    case "purge": return self == .session || self == .json || self == .all
    case "cookies": return self == .session || self == .json || self == .values
    case "clear-cookies": return self == .session || self == .json || self == .domain
    case "top": return self == .session || self == .json || self == .once
    case "attach": return scope == .response
    case "cancel", "help": return false
    default:
      if SimpleOp(rawValue: command) != nil { return false }
      return scope == .request || scope == .response
    }
  }

  /// The options `command` takes beyond the global ones.
  static func accepted(by command: String) -> Set<CommandOption> {
    Set(allCases.filter { $0.scope != .everywhere && $0.isAccepted(by: command) })
  }
}
