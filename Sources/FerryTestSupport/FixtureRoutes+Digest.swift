import FerryWire

/// `/digest-auth/USER/PASSWORD`: HTTP Digest (RFC 7616, SHA-256, `qop=auth`) as httpbin's route
/// of that name: a 401 challenge, then 200 `{"authenticated": true, "user": USER}` for a right
/// answer. The nonce is fixed; the fixture checks the arithmetic, not freshness.
extension FixtureRoutes {
  static let digestRealm = "ferry-fixture"
  static let digestNonce = "6e6f6e63652d666f722d7465737473"

  static func digestAuth(_ user: String, _ password: String, _ head: HTTPRequestHead) -> FixtureReply {
    if let header = head.header("authorization"), header.hasPrefix("Digest "),
      isValidDigest(parameters(String(header.dropFirst(7))), user, password, method: head.method)
    {
      return .json(["authenticated": true, "user": .string(user)])
    }
    let challenge =
      #"Digest realm="\#(digestRealm)", qop="auth", algorithm=SHA-256, nonce="\#(digestNonce)", opaque="0pq""#
    return .full(
      status: 401,
      headers: [
        FixtureHeader("WWW-Authenticate", challenge),
        FixtureHeader("Content-Type", "text/plain; charset=utf-8"),
      ], body: Array("digest needed\n".utf8))
  }

  private static func isValidDigest(_ p: [String: String], _ user: String, _ password: String, method: String)
    -> Bool
  {
    guard p["username"] == user, p["realm"] == digestRealm, p["nonce"] == digestNonce, p["qop"] == "auth",
      let uri = p["uri"], let nc = p["nc"], let cnonce = p["cnonce"], let response = p["response"]
    else { return false }
    func h(_ s: String) -> String { SHA256.hex(Array(s.utf8)) }
    let ha1 = h("\(user):\(digestRealm):\(password)")
    let ha2 = h("\(method):\(uri)")
    return response == h("\(ha1):\(digestNonce):\(nc):\(cnonce):auth:\(ha2)")
  }

  /// `k=v, k="v", …` of an Authorization header (no escaped quotes inside values).
  private static func parameters(_ text: String) -> [String: String] {
    var out: [String: String] = [:]
    var rest = Substring(text)
    while !rest.isEmpty {
      rest = rest.drop { $0 == " " || $0 == "," }
      guard let eq = rest.firstIndex(of: "=") else { break }
      let key = rest[..<eq].trimmingCharacters(in: " ").lowercased()
      rest = rest[rest.index(after: eq)...]
      let value: Substring
      if rest.first == "\"" {
        rest = rest.dropFirst()
        let end = rest.firstIndex(of: "\"") ?? rest.endIndex
        value = rest[..<end]
        rest = end == rest.endIndex ? "" : rest[rest.index(after: end)...]
      } else {
        let end = rest.firstIndex(of: ",") ?? rest.endIndex
        value = rest[..<end]
        rest = rest[end...]
      }
      out[key] = String(value)
    }
    return out
  }
}

extension Substring {
  fileprivate func trimmingCharacters(in set: Character) -> Substring {
    var s = self
    while s.first == set { s.removeFirst() }
    while s.last == set { s.removeLast() }
    return s
  }
}
