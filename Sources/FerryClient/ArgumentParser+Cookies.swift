/// `ferry cookies [--session S] [--values] [--json]` and
/// `ferry clear-cookies [--session S] [--domain D] [--json]`.
extension ArgumentParser {
  /// The command of `name` (`cookies` or `clear-cookies`) with the words after it.
  static func cookieCommand(_ name: String, _ rest: [String], options: ParsedOptions) throws(UsageError)
    -> CookieCommand
  {
    let isClear = name == "clear-cookies"
    let topic: HelpTopic = isClear ? .clearCookies : .cookies
    try refuseOptions(options, command: name)
    guard rest.isEmpty else { throw UsageError("\(name) takes no arguments", topic: topic) }
    let printsJSON = options.given.contains { $0.option == .json }
    let action: CookieCommand.Action =
      isClear ? .clear(domain: options.cookieDomain) : .list(showsValues: options.showsCookieValues)
    return CookieCommand(action, session: options.request.session, printsJSON: printsJSON)
  }
}
