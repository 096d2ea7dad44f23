import FerryWire

/// One job event line from the daemon, as the reader thread hands it to its job: the line's
/// bytes (decoded later, by the task that wants the result, straight into it) or, for a line
/// the reader had to read whole (a `failed` line, one in an unexpected shape, or one the
/// library made itself), its object.
struct EventLine: Sendable {
  /// The event names the library routes without reading the whole line.
  enum Name: Sendable {
    case queued, waiting, started, response, progress, data, done, failed, cancelled, other

    init(_ bytes: UnsafeRawBufferPointer) {
      switch bytes.count {
      case 4: self = Self.equal(bytes, "done") ? .done : Self.equal(bytes, "data") ? .data : .other
      case 6: self = Self.equal(bytes, "queued") ? .queued : Self.equal(bytes, "failed") ? .failed : .other
      case 7:
        self = Self.equal(bytes, "waiting") ? .waiting : Self.equal(bytes, "started") ? .started : .other
      case 8:
        self = Self.equal(bytes, "response") ? .response : Self.equal(bytes, "progress") ? .progress : .other
      case 9: self = Self.equal(bytes, "cancelled") ? .cancelled : .other
      default: self = .other
      }
    }

    init(_ text: String?) {
      guard var text else {
        self = .other
        return
      }
      self = text.withUTF8 { Name(UnsafeRawBufferPointer($0)) }
    }

    var isTerminal: Bool { self == .done || self == .failed || self == .cancelled }

    private static func equal(_ bytes: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
      guard bytes.count == name.utf8CodeUnitCount else { return false }
      return memcmpEqual(bytes.baseAddress!, name.utf8Start, bytes.count)
    }
  }

  enum Content: Sendable {
    case bytes([UInt8])
    case object(JSONObject)
  }

  var name: Name
  var content: Content

  init(bytes: [UInt8], name: Name) {
    self.name = name
    content = .bytes(bytes)
  }

  init(object: JSONObject) {
    name = Name(object["event"]?.stringValue)
    content = .object(object)
  }

  /// The line as an object (read now when it came as bytes); nil when it is not an object.
  var object: JSONObject? {
    switch content {
    case .object(let object): return object
    case .bytes(let bytes):
      guard case .object(let object)? = try? JSONReader().read(bytes) else { return nil }
      return object
    }
  }

  /// The event the line stands for; nil for one the library does not know or cannot read.
  var event: FerryEvent? { object.flatMap(FerryEvent.init(wire:)) }

  /// The result of a terminal line: a `done` line's bytes are read straight into the response,
  /// every other line through its object.
  var result: Result<FerryResponse, FerryError> {
    if name == .done, case .bytes(let bytes) = content {
      guard let response = FerryResponse(doneLine: bytes) else { return .failure(.unreadableTerminal) }
      return .success(response)
    }
    guard let event, event.isTerminal else { return .failure(.unreadableTerminal) }
    return event.result
  }

  /// Where a daemon's job event line names its event, job and sequence number: the encoder
  /// writes `{"event":"NAME","id":"ID","seq":N` first (PROTOCOL.md "Events"), so these are read
  /// from the line's start without reading the rest. Nil for a line in any other shape (or an
  /// id with an escape), which is read whole instead.
  struct Head {
    var name: Name
    var id: UnsafeRawBufferPointer

    init?(_ line: UnsafeRawBufferPointer) {
      let prefix: StaticString = #"{"event":""#
      let middle: StaticString = #"","id":""#
      let tail: StaticString = #"","seq":"#
      var i = prefix.utf8CodeUnitCount
      guard line.count > i + 16, memcmpEqual(line.baseAddress!, prefix.utf8Start, i) else { return nil }
      let nameStart = i
      while i < line.count, line[i] != UInt8(ascii: "\"") {
        guard line[i] != UInt8(ascii: "\\") else { return nil }
        i += 1
      }
      name = Name(UnsafeRawBufferPointer(rebasing: line[nameStart..<i]))
      guard line.count - i > middle.utf8CodeUnitCount,
        memcmpEqual(line.baseAddress! + i, middle.utf8Start, middle.utf8CodeUnitCount)
      else { return nil }
      i += middle.utf8CodeUnitCount
      let idStart = i
      while i < line.count, line[i] != UInt8(ascii: "\"") {
        // Escaped, or not ASCII: the slow path makes the id's String.
        guard line[i] != UInt8(ascii: "\\"), line[i] < 0x80 else { return nil }
        i += 1
      }
      id = UnsafeRawBufferPointer(rebasing: line[idStart..<i])
      guard line.count - i > tail.utf8CodeUnitCount,
        memcmpEqual(line.baseAddress! + i, tail.utf8Start, tail.utf8CodeUnitCount)
      else { return nil }
    }
  }
}

/// True when the `count` bytes at `a` and `b` are the same.
@inline(__always)
func memcmpEqual(_ a: UnsafeRawPointer, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
  for i in 0..<count where a.load(fromByteOffset: i, as: UInt8.self) != b[i] { return false }
  return true
}

extension FerryError {
  static let unreadableTerminal = FerryError(
    code: "protocol_error", message: "a terminal event the library cannot read")
}
