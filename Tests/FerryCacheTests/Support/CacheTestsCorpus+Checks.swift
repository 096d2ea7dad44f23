import FerryCache

/// The client's and the server's checks of test-engine/client/test.mjs.
extension CacheTestsCorpus {
  static func checkResponse(
    _ r: [String: Any], reqNum: Int, _ response: SimResponse, uuid: String, method: String
  )
    -> String?
  {
    let resNum = response.header("server-request-count").flatMap { Int($0) }
    for item in r["expected_response_headers"] as? [Any] ?? [] {
      if let name = item as? String {
        if response.header(name) == nil { return "response \(reqNum): \(name) missing" }
      } else if let h = item as? [Any], let name = h[0] as? String {
        let value = response.header(name)
        if h.count > 2 {
          guard let value else { return "response \(reqNum): \(name) missing" }
          if h[1] as? String == "=" {
            if value != response.header(h[2] as? String ?? "") {
              return "response \(reqNum): \(name) \(value) ≠ \(h[2])"
            }
          } else if let bound = h[2] as? Int {
            if (Int(value) ?? Int.min) <= bound { return "response \(reqNum): \(name) \(value) ≤ \(bound)" }
          }
        } else if let expected = h[1] as? String, value != expected {
          return "response \(reqNum): \(name) is \(value ?? "absent"), not \(expected)"
        } else if let offset = h[1] as? Int, !(h[1] is Bool),
          let serverNow = response.header("server-now").flatMap({ Int64($0) }),
          value != HTTPDate.format(serverNow + Int64(offset))
        {
          return "response \(reqNum): \(name) is \(value ?? "absent"), a date off by \(offset) expected"
        }
      }
    }
    for item in r["expected_response_headers_missing"] as? [Any] ?? [] {
      if let name = item as? String, response.header(name) != nil {
        return "response \(reqNum): unexpected \(name)"
      }
      // The [name, value] form reads `response.headers[name]`, which Fetch's Headers never has:
      // it never fails there, nor here.
    }
    if let type = r["expected_type"] as? String {
      if type == "cached" && !(response.status == 304 && resNum == nil) && !((resNum ?? Int.max) < reqNum) {
        return "response \(reqNum) does not come from cache"
      }
      if type == "not_cached" && resNum != reqNum { return "response \(reqNum) comes from cache" }
    }
    if let expected = r["expected_status"] {
      if let status = expected as? Int, response.status != status {
        return "response \(reqNum) status \(response.status), not \(status)"
      }
    } else if let status = (r["response_status"] as? [Any])?.first as? Int {
      if response.status != status { return "response \(reqNum) status \(response.status), not \(status)" }
    } else if response.status == 999 {
      return "request \(reqNum) should have been conditional"
    } else if response.status != 200 {
      return "response \(reqNum) status \(response.status), not 200"
    }
    if r["check_body"] as? Bool == false { return nil }
    if let text = r["expected_response_text"] {
      if let text = text as? String, response.body != text {
        return "response \(reqNum) body \(response.body)"
      }
    } else if let body = r["response_body"] as? String {
      if response.body != body { return "response \(reqNum) body \(response.body), not \(body)" }
    } else if response.status != 204 && response.status != 304 && method != "HEAD" && response.body != uuid {
      return "response \(reqNum) body \(response.body)"
    }
    return nil
  }

  static func checkServer(
    _ requests: [[String: Any]], _ responses: [SimResponse],
    _ state: [(num: Int, method: String, headers: CacheHeaderList, saved: [(String, String)])]
  ) -> String? {
    var seen = 0
    for (i, r) in requests.enumerated() {
      let reqNum = i + 1
      var validators: [String] = []
      if let type = r["expected_type"] as? String {
        if type == "cached" { continue }
        if type == "not_cached" && (seen >= state.count || state[seen].num != reqNum) {
          return "response \(reqNum) comes from cache (server)"
        }
        if type == "etag_validated" { validators.append("if-none-match") }
        if type == "lm_validated" { validators.append("if-modified-since") }
      }
      let server = seen < state.count ? state[seen] : nil
      seen += 1
      for name in validators {
        guard let server else { return "request \(reqNum) was not sent" }
        if !CacheFields.contains(name, in: server.headers) { return "request \(reqNum) lacks \(name)" }
      }
      for item in r["expected_request_headers"] as? [Any] ?? [] {
        guard let server else { return "request \(reqNum) was not sent" }
        if let name = item as? String {
          if !CacheFields.contains(name.lowercased(), in: server.headers) {
            return "request \(reqNum) lacks \(name)"
          }
        } else if let h = item as? [Any], let name = h[0] as? String,
          CacheFields.combined(name.lowercased(), in: server.headers) != h[1] as? String
        {
          return "request \(reqNum) \(name) not \(h[1])"
        }
      }
      for item in r["expected_request_headers_missing"] as? [Any] ?? [] {
        guard let server else { continue }
        if let name = item as? String {
          if CacheFields.contains(name.lowercased(), in: server.headers) {
            return "request \(reqNum) has \(name)"
          }
        } else if let h = item as? [Any], let name = h[0] as? String,
          CacheFields.combined(name.lowercased(), in: server.headers) == h[1] as? String
        {
          return "request \(reqNum) has \(name): \(h[1])"
        }
      }
      if let server, i < responses.count {
        for (name, value) in server.saved where name != "date" {
          let received = responses[i].header(name)
          if received != value {
            return "response \(reqNum) \(name) is \(received ?? "absent"), not \(value)"
          }
        }
      }
      if let method = r["expected_method"] as? String, server?.method != method {
        return "request \(reqNum) method \(server?.method ?? "none"), not \(method)"
      }
    }
    return nil
  }
}
