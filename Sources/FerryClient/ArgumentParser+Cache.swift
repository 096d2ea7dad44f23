/// `ferry cache [--session S] [--json]` and `ferry purge URL|--all [--session S] [--json]`.
extension ArgumentParser {
  /// The command of `name` (`cache` or `purge`) with the words after it.
  static func cacheCommand(_ name: String, _ rest: [String], options: ParsedOptions) throws(UsageError)
    -> CacheCommand
  {
    let isPurge = name == "purge"
    let topic: HelpTopic = isPurge ? .purge : .cache
    try refuseOptions(options, command: name)
    let printsJSON = options.given.contains { $0.option == .json }
    let session = options.request.session
    guard isPurge else {
      guard rest.isEmpty else { throw UsageError("cache takes no arguments", topic: topic) }
      return CacheCommand(.list, session: session, printsJSON: printsJSON)
    }
    switch (rest.first, options.purgesAll) {
    case (nil, false): throw UsageError("purge needs a URL or --all", topic: topic)
    case (nil, true): return CacheCommand(.purgeAll, session: session, printsJSON: printsJSON)
    case (.some, true): throw UsageError("purge takes a URL or --all, not both", topic: topic)
    case (.some(let url), false):
      guard rest.count == 1, !url.isEmpty else { throw UsageError("purge takes one URL", topic: topic) }
      let expanded = expandLocalhost(url)
      if JobBuilder.hasUserInfo(expanded) {
        throw UsageError(
          "credentials in the URL are not sent, and no cached URL has them: leave them out", topic: topic)
      }
      return CacheCommand(.purge(url: expanded), session: session, printsJSON: printsJSON)
    }
  }
}
