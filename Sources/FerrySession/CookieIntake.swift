/// What the heads of a transfer brought its cookie jar since the daemon last looked: how many
/// `Set-Cookie` fields, and at most how many bytes of curl's exported lines they can add. The
/// daemon skips bounding a jar that stays surely within its bounds after them (issue 26).
public struct CookieIntake: Sendable, Equatable {
  /// `Set-Cookie` fields: at most this many cookies added (curl may refuse some, or replace).
  public var fields = 0
  /// At most this many bytes of exported lines added; `Int.max` when it cannot be told.
  public var bytes = 0
  /// The jar's `boundsTaken` when curl took the last of these cookies (nil: not known). A
  /// bound taken since exported the jar with them in it, so they are counted in its size.
  public var boundsSeen: UInt64?

  public init(fields: Int = 0, bytes: Int = 0, boundsSeen: UInt64? = nil) {
    self.fields = fields
    self.bytes = bytes
    self.boundsSeen = boundsSeen
  }

  /// Room for the tabs, two `TRUE`/`FALSE` flags, `#HttpOnly_`, a leading dot and an expiry
  /// in a line of curl's cookie-file format.
  static let lineOverhead = 64

  /// Counts one `Set-Cookie` field's value that came on a hop whose URL is `hopURLBytes`
  /// long (nil: unknown). Curl's line holds the field's own text at most, plus a domain and a
  /// default path that come from the hop's URL when the field names none.
  public mutating func add(fieldValueBytes: Int, hopURLBytes: Int?) {
    fields += 1
    guard let hop = hopURLBytes, bytes != .max else {
      bytes = .max
      return
    }
    let (sum, overflow) = bytes.addingReportingOverflow(fieldValueBytes + hop + Self.lineOverhead)
    bytes = overflow ? .max : sum
  }
}
