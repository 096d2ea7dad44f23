/// The method and URL of a request command line: curl's `-X`, HTTPie's `POST`, a URL without a
/// scheme, curl's `-O`.
extension ArgumentParser {
  /// `POST`, `PROPFIND`: a word in capitals is a method, as HTTPie reads `http POST URL`.
  static func isUpperCaseMethod(_ word: String) -> Bool {
    !word.isEmpty && word.utf8.allSatisfy { ($0 >= 0x41 && $0 <= 0x5A) || $0 == UInt8(ascii: "-") }
  }

  /// The command's method, or `-X`'s (`--head`'s); both given must agree, since curl's `-X`
  /// would otherwise change the method of `ferry get` behind the user's back.
  static func resolvedMethod(_ command: String?, explicit: String?) throws(UsageError) -> String? {
    guard let explicit else { return command }
    if let command, command != explicit {
      throw UsageError(
        "-X \(explicit) (or --head) and the command's method \(command) disagree: give one", topic: .request)
    }
    return explicit
  }

  /// `127.0.0.1:8081/get`, `localhost/x`: curl and HTTPie read a URL without a scheme as
  /// `http://`. ferry does so when the word cannot be a reference relative to a session's
  /// `base_url`: its first segment holds a colon (a port; RFC 3986 4.2 forbids that in a relative
  /// path) or is `localhost`, an IPv4 address or an IPv6 literal. Others (`users/7`,
  /// `example.org/x`) go as they are, to be resolved against the session's `base_url`.
  static func withDefaultScheme(_ url: String) -> String {
    defaultsToHTTP(url) ? "http://" + url : url
  }

  /// Whether `withDefaultScheme` prefixes `http://` to `url`.
  static func defaultsToHTTP(_ url: String) -> Bool {
    guard !hasSchemeSeparator(url), !url.hasPrefix("/"), !url.hasPrefix(":") else { return false }
    let authority = url.prefix { !"/?#".contains($0) }
    if authority.hasPrefix("[") { return true }
    let host = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
    guard let name = host.first, !name.isEmpty else { return false }
    if host.count == 2 { return !host[1].isEmpty && host[1].allSatisfy { ("0"..."9").contains($0) } }
    return name.lowercased() == "localhost" || isIPv4(name)
  }

  private static func isIPv4(_ name: Substring) -> Bool {
    let octets = name.split(separator: ".", omittingEmptySubsequences: false)
    return octets.count == 4
      && octets.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy { ("0"..."9").contains($0) } }
  }

  /// curl's `-O` (HTTPie's `--download`): the output file is the URL path's last segment, in
  /// the working directory.
  static func remoteName(_ r: RequestOptions) throws(UsageError) -> String {
    guard r.output == nil else {
      throw UsageError("-O and -o both name the output: give one", topic: .request)
    }
    let path = r.url.prefix { $0 != "?" && $0 != "#" }
    let afterScheme =
      hasSchemeSeparator(String(path))
      ? path.split(separator: "/").dropFirst(2) : path.split(separator: "/")[...]
    let name = path.hasSuffix("/") ? "" : afterScheme.last.map(String.init) ?? ""
    guard !name.isEmpty, name != ".", name != ".." else {
      throw UsageError("-O: the URL names no file (its path ends in /); use -o FILE", topic: .request)
    }
    return name
  }
}
