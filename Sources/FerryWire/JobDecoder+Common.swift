/// The common job line, decoded straight from its bytes.
///
/// Most lines a client sends are jobs with a few plain members (`id`, `url`, `method`,
/// `session`, `lane`, `response`, `events`, `headers`, `timeout`). Such a line is read member by
/// member (`JSONMemberReader`, the same grammar and UTF-8 checks as the tree reader), its keys
/// told apart by their length and bytes (no `String` made and compared per key), and its values
/// checked by the same `Field` rules as `decodeField`. Anything else (another key, a key given
/// twice, a value of the wrong type, a refused value, bad JSON) gives up with `nil`, and the
/// line takes the general path, so errors and rarer fields are decoded in one place only.
extension JobDecoder {
  /// The job on `line` when it is a common one that passes every check, else `nil`.
  func decodeCommon(_ line: UnsafeBufferPointer<UInt8>) -> Job? {
    var job = Job()
    return decodeCommon(line, into: &job) ? job : nil
  }

  /// Decodes a common `line` into `job` (a fresh `Job`), and says whether it was one; `job` is
  /// to be dropped when not. In place: a `Job` built in a closure's capture and returned is
  /// copied out whole.
  func decodeCommon(_ line: UnsafeBufferPointer<UInt8>, into job: inout Job) -> Bool {
    var seen: UInt16 = 0
    do {
      try JSONMemberReader.readObject(line, maxDepth: maxDepth) { (key, value) throws(JSONError) in
        // Once the line is known to need the general path, reading it further is wasted.
        guard let member = CommonMember(key), seen & member.bit == 0,
          try readCommon(member, &value, into: &job)
        else { throw JSONError(offset: 0, reason: "not a common job line") }
        seen |= member.bit
      }
    } catch {
      return false
    }
    guard job.url != nil else { return false }
    do {
      try checkCombinations(&job, path: "")
    } catch {
      return false
    }
    return true
  }

  /// Reads one member's value into `job`; false when the general path must decide.
  private func readCommon(
    _ member: CommonMember, _ value: inout JSONMemberReader, into job: inout Job
  ) throws(JSONError) -> Bool {
    switch member {
    case .response:
      guard let mode = try value.string({ CommonMember.responseMode($0) }) ?? nil else { return false }
      job.response = mode
      return true
    case .events, .headers, .timeout:
      // Rarer, or not strings: a small tree, checked by the general rules.
      let field = Field(parent: "", key: member.name, value: try value.value())
      do throws(WireError) {
        switch member {
        case .events: job.events = try events(field)
        case .headers: job.headers = try headers(field, allowsRemoval: true)
        default: job.timeout = try field.seconds()
        }
      } catch {
        return false
      }
      return true
    default:
      guard let text = try value.string() else { return false }
      let field = Field(parent: "", key: member.name, value: .string(text))
      do throws(WireError) {
        switch member {
        case .id: job.id = try field.label()
        case .url: job.url = try url(field)
        case .method: job.method = try method(field)
        case .session: job.session = try field.label()
        default: job.lane = try field.label()
        }
      } catch {
        return false
      }
      return true
    }
  }
}

/// The members `decodeCommon` reads, told apart by length and bytes.
enum CommonMember: UInt16 {
  case id = 1
  case url = 2
  case method = 4
  case session = 8
  case lane = 16
  case response = 32
  case events = 64
  case headers = 128
  case timeout = 256

  var bit: UInt16 { rawValue }

  /// The key as a constant (a `Field`'s key, named in no error on this path).
  var name: String {
    switch self {
    case .id: "id"
    case .url: "url"
    case .method: "method"
    case .session: "session"
    case .lane: "lane"
    case .response: "response"
    case .events: "events"
    case .headers: "headers"
    case .timeout: "timeout"
    }
  }

  /// The member named by `key`, or nil for any other key.
  init?(_ key: UnsafeBufferPointer<UInt8>) {
    let candidate: CommonMember
    switch (key.count, key.first ?? 0) {
    case (2, UInt8(ascii: "i")): candidate = .id
    case (3, UInt8(ascii: "u")): candidate = .url
    case (4, UInt8(ascii: "l")): candidate = .lane
    case (6, UInt8(ascii: "m")): candidate = .method
    case (6, UInt8(ascii: "e")): candidate = .events
    case (7, UInt8(ascii: "s")): candidate = .session
    case (7, UInt8(ascii: "h")): candidate = .headers
    case (7, UInt8(ascii: "t")): candidate = .timeout
    case (8, UInt8(ascii: "r")): candidate = .response
    default: return nil
    }
    guard Self.equal(key, candidate.staticName) else { return nil }
    self = candidate
  }

  private var staticName: StaticString {
    switch self {
    case .id: "id"
    case .url: "url"
    case .method: "method"
    case .session: "session"
    case .lane: "lane"
    case .response: "response"
    case .events: "events"
    case .headers: "headers"
    case .timeout: "timeout"
    }
  }

  /// The response mode spelled by `bytes`, or nil.
  static func responseMode(_ bytes: UnsafeBufferPointer<UInt8>) -> ResponseMode? {
    switch bytes.count {
    case 4:
      if equal(bytes, "auto") { return .auto }
      if equal(bytes, "json") { return .json }
      return equal(bytes, "text") ? .text : nil
    case 6:
      if equal(bytes, "base64") { return .base64 }
      return equal(bytes, "stream") ? .stream : nil
    case 7: return equal(bytes, "discard") ? .discard : nil
    default: return nil
    }
  }

  private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
    guard bytes.count == name.utf8CodeUnitCount else { return false }
    let p = name.utf8Start
    for i in 0..<bytes.count where bytes[i] != p[i] { return false }
    return true
  }
}
