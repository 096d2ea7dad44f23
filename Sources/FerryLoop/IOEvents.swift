import CFerryEvent

/// Readiness of a descriptor: what an `IOWatch` waits for, and what fired.
public struct IOEvents: OptionSet, Sendable, Hashable, CustomStringConvertible {
  public let rawValue: UInt8

  public init(rawValue: UInt8) {
    self.rawValue = rawValue
  }

  /// The descriptor is readable (data, EOF, or a pending error).
  public static let read = IOEvents(rawValue: 1)
  /// The descriptor is writable (or has a pending error).
  public static let write = IOEvents(rawValue: 2)

  /// The libevent flags (EV_READ/EV_WRITE) for these events.
  var libeventFlags: Int16 {
    var flags: Int32 = 0
    if contains(.read) { flags |= EV_READ }
    if contains(.write) { flags |= EV_WRITE }
    return Int16(flags)
  }

  /// The events named in a libevent `what` mask.
  init(libeventFlags what: Int16) {
    var events: IOEvents = []
    if Int32(what) & EV_READ != 0 { events.insert(.read) }
    if Int32(what) & EV_WRITE != 0 { events.insert(.write) }
    self = events
  }

  public var description: String {
    switch (contains(.read), contains(.write)) {
    case (true, true): return "[read, write]"
    case (true, false): return "[read]"
    case (false, true): return "[write]"
    case (false, false): return "[]"
    }
  }
}
