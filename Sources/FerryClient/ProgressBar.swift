/// One `progress` event, as the renderer hands it to the progress bar.
public struct ProgressUpdate: Sendable, Equatable {
  public var isUpload: Bool
  public var done: Int64
  /// nil when the size is unknown.
  public var total: Int64?

  public init(isUpload: Bool, done: Int64, total: Int64?) {
    self.isUpload = isUpload
    // Never negative, so that differences of counts cannot overflow.
    self.done = max(done, 0)
    self.total = total.map { max($0, 0) }
  }
}

/// The progress line on stderr: direction, percentage and bar when the size is known, bytes,
/// rate and ETA. Pure: the caller passes the clock and the terminal width, and writes what it
/// returns. Nothing is drawn until the transfer has run for `delayMs`, so quick requests leave
/// no trace.
public struct ProgressBar: Sendable {
  private let startMs: Int64
  private let delayMs: Int64
  /// The first sample of the current direction: rates are measured from there.
  private var first: (isUpload: Bool, ms: Int64, done: Int64)?
  public private(set) var isDrawn = false

  public init(startMs: Int64, delayMs: Int64 = 300) {
    self.startMs = startMs
    self.delayMs = delayMs
  }

  /// The text to write for `update` at `nowMs`, or nil to draw nothing (yet).
  public mutating func draw(_ update: ProgressUpdate, nowMs: Int64, width: Int) -> [UInt8]? {
    if first?.isUpload != update.isUpload { first = (update.isUpload, nowMs, update.done) }
    guard nowMs - startMs >= delayMs, let first else { return nil }
    let elapsed = nowMs - first.ms
    // Doubles: the counts come from the daemon, and must not trap on overflow whatever it sends.
    let rate: Double? = elapsed >= 200 ? Double(update.done - first.done) * 1000 / Double(elapsed) : nil
    isDrawn = true
    return Array(("\r" + Self.line(update, rate: rate, width: width) + "\u{1B}[K").utf8)
  }

  /// What clears the line at the end, if one was drawn.
  public mutating func finish() -> [UInt8] {
    guard isDrawn else { return [] }
    isDrawn = false
    return Array("\r\u{1B}[K".utf8)
  }

  /// `download  42% [=======>          ] 1.2 MiB / 2.9 MiB  3.4 MiB/s  ETA 0:01`, the bar sized
  /// to fit `width`; without a total, just the bytes and the rate.
  static func line(_ update: ProgressUpdate, rate: Double?, width: Int) -> String {
    let direction = update.isUpload ? "upload  " : "download"
    let rateText = rate.map { ByteFormat.text(Int64(min(max($0, 0), 1e18))) + "/s" } ?? "--/s"
    guard let total = update.total, total > 0 else {
      return "\(direction) \(ByteFormat.text(update.done))  \(rateText)"
    }
    let done = min(update.done, total)
    let fraction = Double(done) / Double(total)
    let percent = Int(fraction * 100)
    var eta = "--:--"
    if let rate, rate > 0 {
      eta = ByteFormat.duration(seconds: Int64(min((Double(total - done) / rate).rounded(.up), 1e9)))
    }
    let percentText = Self.padded("\(percent)%", 4)
    let amounts = Self.padded(ByteFormat.text(done), 10) + " / " + Self.padded(ByteFormat.text(total), 10)
    // Fixed-width fields keep the bar from jumping as the numbers change.
    let tail = " \(amounts)  \(Self.padded(rateText, 12))  ETA \(Self.padded(eta, 7))"
    let barWidth = min(40, width - direction.count - percentText.count - tail.count - 5)
    guard barWidth >= 10 else { return "\(direction) \(percentText)\(tail)" }
    let filled = Int(Double(barWidth) * fraction)
    let bar =
      String(repeating: "=", count: filled) + (filled < barWidth ? ">" : "")
      + String(repeating: " ", count: max(barWidth - filled - 1, 0))
    return "\(direction) \(percentText) [\(bar)]\(tail)"
  }

  /// `text` right-aligned in `width` columns (ASCII only, as everything here is).
  static func padded(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(width - text.count, 0)) + text
  }
}
