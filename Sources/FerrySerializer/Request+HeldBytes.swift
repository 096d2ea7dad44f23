/// What a request holds in memory, for the daemon's `max_request_bytes`.
extension Request {
  /// Bytes of the request as built: its method, URL (query string included), every header's
  /// name and value, its in-memory body (multipart names, part headers and text values with
  /// it) and the paths of the files it streams. Files themselves are read as they are sent.
  public var heldBytes: Int {
    var total = method.utf8.count + url.utf8.count
    for header in headers { total += header.name.utf8.count + header.value.utf8.count + 4 }
    guard let body else { return total }
    for segment in body.segments {
      switch segment {
      case .bytes(let bytes): total += bytes.count
      case .file(let path, _, _): total += path.utf8.count
      case .descriptor: break
      }
    }
    return total
  }
}
