/// A response read off a raw socket in a test, and a minimal parser for it.
struct HTTPTestResponse {
  var status: Int
  /// Header fields in order, names lower-cased.
  var headers: [(name: String, value: String)]
  var body: [UInt8]

  func header(_ name: String) -> String? {
    headers.first { $0.name == name }?.value
  }

  var bodyText: String { String(decoding: body, as: UTF8.self) }

  /// Parses every complete response at the start of `bytes` (Content-Length or chunked
  /// bodies; with neither, the body runs to the end of the bytes).
  static func parseAll(_ bytes: [UInt8]) -> [HTTPTestResponse] {
    var responses: [HTTPTestResponse] = []
    var rest = bytes[...]
    while let (response, used) = parseOne(rest) {
      responses.append(response)
      rest = rest.dropFirst(used)
    }
    return responses
  }

  private static func parseOne(_ bytes: ArraySlice<UInt8>) -> (HTTPTestResponse, Int)? {
    guard let headEnd = find([13, 10, 13, 10], in: bytes) else { return nil }
    let headText = String(decoding: bytes[bytes.startIndex..<headEnd], as: UTF8.self)
    var lines = headText.split(separator: "\r\n", omittingEmptySubsequences: false)
    let statusLine = lines.removeFirst().split(separator: " ")
    guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
    let headers = lines.map { line -> (name: String, value: String) in
      let parts = line.split(separator: ":", maxSplits: 1)
      return (parts[0].lowercased(), parts.count > 1 ? String(parts[1].dropFirst()) : "")
    }
    var response = HTTPTestResponse(status: status, headers: headers, body: [])
    let bodyStart = headEnd + 4
    if let length = response.header("content-length").flatMap(Int.init) {
      guard bytes.endIndex - bodyStart >= length else { return nil }
      response.body = Array(bytes[bodyStart..<bodyStart + length])
      return (response, bodyStart + length - bytes.startIndex)
    }
    if response.header("transfer-encoding") == "chunked" {
      guard let (body, end) = dechunk(bytes[bodyStart...]) else { return nil }
      response.body = body
      return (response, end - bytes.startIndex)
    }
    response.body = Array(bytes[bodyStart...])
    return (response, bytes.count)
  }

  /// Decodes a chunked body; returns it and the index just past its terminator.
  private static func dechunk(_ bytes: ArraySlice<UInt8>) -> ([UInt8], Int)? {
    var body: [UInt8] = []
    var index = bytes.startIndex
    while let lineEnd = find([13, 10], in: bytes[index...]) {
      guard let size = Int(String(decoding: bytes[index..<lineEnd], as: UTF8.self), radix: 16) else {
        return nil
      }
      let dataStart = lineEnd + 2
      guard bytes.endIndex - dataStart >= size + 2 else { return nil }
      if size == 0 { return (body, dataStart + 2) }
      body += bytes[dataStart..<dataStart + size]
      index = dataStart + size + 2
    }
    return nil
  }

  private static func find(_ needle: [UInt8], in bytes: ArraySlice<UInt8>) -> Int? {
    guard bytes.count >= needle.count else { return nil }
    var index = bytes.startIndex
    while index + needle.count <= bytes.endIndex {
      if bytes[index..<index + needle.count].elementsEqual(needle) { return index }
      index += 1
    }
    return nil
  }
}

extension String {
  /// How many pieces `separator` cuts the string into.
  func components(_ separator: String) -> Int {
    split(separator: separator, omittingEmptySubsequences: false).count
  }
}
