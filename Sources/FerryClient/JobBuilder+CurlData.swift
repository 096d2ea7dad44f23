/// curl's data options (`-d`, `--data-*`, `--json`, `-G`) turned into the raw body or query
/// string curl would send.
extension JobBuilder {
  /// Replaces `r.curlData` by a raw body (typed as curl types it unless a `Content-Type` item
  /// says otherwise) or, with `-G`, by a query string on the URL.
  static func resolveCurlData(_ r: inout RequestOptions, context: JobContext) throws(UsageError) {
    guard !r.curlData.isEmpty else { return }
    let pieces = r.curlData
    r.curlData = []
    guard r.rawBody == nil, !r.items.contains(where: \.isData) else {
      throw UsageError(
        "curl's -d/--data-*/--json and data fields, file parts, --raw or --body-file each make the body: give one kind",
        topic: .request)
    }
    if r.curlJSON { addHeaderUnlessGiven("Accept", "application/json", to: &r) }
    if !r.curlDataInQuery, pieces.count == 1 {
      // Alone, a file or stdin is passed to the daemon as a descriptor: any size, unread.
      switch pieces[0] {
      case .stdin:
        r.rawBody = .stdin(isJSON: false)
        r.curlBodyType = bodyType(r)
        return
      case .file(let path, dropsNewlines: false):
        r.rawBody = .file(path)
        r.curlBodyType = bodyType(r)
        return
      default: break
      }
    }
    var joined: [UInt8] = []
    for (i, piece) in pieces.enumerated() {
      if i > 0, !r.curlJSON { joined.append(UInt8(ascii: "&")) }
      joined += try bytes(of: piece, context: context)
    }
    if r.curlDataInQuery {
      r.method = r.method ?? "GET"
      r.url = appendingQuery(String(decoding: joined, as: UTF8.self), to: r.url)
      return
    }
    r.rawBody = .bytes(joined)
    r.curlBodyType = bodyType(r)
  }

  /// curl's Content-Type for its data options, or nil when the command line sets its own.
  private static func bodyType(_ r: RequestOptions) -> String? {
    let given = r.items.contains { item in
      if case .header(let name, _) = item { return name.lowercased() == "content-type" }
      return false
    }
    if given { return nil }
    return r.curlJSON ? "application/json" : "application/x-www-form-urlencoded"
  }

  private static func addHeaderUnlessGiven(_ name: String, _ value: String, to r: inout RequestOptions) {
    let given = r.items.contains { item in
      if case .header(let other, _) = item { return other.lowercased() == name.lowercased() }
      return false
    }
    if !given { r.items.append(.header(name: name, value: value)) }
  }

  /// One piece's bytes, files read (with the user's permissions) and percent-encoded as curl does.
  private static func bytes(of piece: CurlData, context: JobContext) throws(UsageError) -> [UInt8] {
    switch piece {
    case .text(let text): return Array(text.utf8)
    case .stdin:
      throw UsageError(
        "--data-binary @- is passed to the daemon unread: it cannot be joined with other data or go in the query (-G)",
        topic: .request)
    case .file(let path, let dropsNewlines):
      let bytes = try read(path, context: context)
      return dropsNewlines ? bytes.filter { $0 != 0x0D && $0 != 0x0A } : bytes
    case .urlencoded(let name, let content):
      return Array((name.map { $0 + "=" } ?? "").utf8) + CurlData.percentEncoded(Array(content.utf8))
    case .urlencodedFile(let name, let path):
      return Array((name.map { $0 + "=" } ?? "").utf8)
        + CurlData.percentEncoded(try read(path, context: context))
    }
  }

  private static func read(_ path: String, context: JobContext) throws(UsageError) -> [UInt8] {
    guard let bytes = context.readFile(context.absolute(path)) else {
      throw UsageError("cannot read '\(path)' for the request's data", topic: .request)
    }
    return bytes
  }

  /// `query` after the URL's own query (`?` or `&`), before any `#fragment`.
  private static func appendingQuery(_ query: String, to url: String) -> String {
    guard !query.isEmpty else { return url }
    let fragmentStart = url.firstIndex(of: "#") ?? url.endIndex
    let base = url[..<fragmentStart]
    let separator = base.contains("?") ? (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") : "?"
    return base + separator + query + url[fragmentStart...]
  }
}
