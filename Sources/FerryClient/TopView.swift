import FerryWire

/// `ferry top`'s screen: two `stats` samples and the terminal's size in, lines out.
///
/// Pure, so the view is tested line for line; `ferry`'s main does the terminal (raw mode,
/// alternate screen, keys) and the socket. Rates are the change between the two samples over
/// the time between them; with one sample, the averages since the daemon started.
public struct TopView: Sendable, Equatable {
  /// The order of the session rows: `s` cycles through them.
  public enum Sort: String, Sendable, CaseIterable {
    case name, running, queued, done
  }

  /// What a key press asks of the terminal loop.
  public enum Action: Sendable, Equatable {
    case quit, redraw, nothing
  }

  public var sort = Sort.name
  /// Only sessions whose name holds this (any case); empty for all.
  public var filter = ""
  /// The filter being typed after `/`, until Enter applies it or Esc drops it.
  public var draft: String?
  /// The daemon's configured sessions (the `sessions` op), shown even before they ran a job.
  public var configured: [String] = []

  public init(filter: String = "", configured: [String] = []) {
    self.filter = filter
    self.configured = configured
  }

  /// Reads one byte typed on the terminal.
  public mutating func press(_ byte: UInt8) -> Action {
    if var typed = draft {
      switch byte {
      case 0x0D, 0x0A:
        filter = typed
        draft = nil
      case 0x1B: draft = nil
      case 0x7F, 0x08:
        if !typed.isEmpty { typed.removeLast() }
        draft = typed
      case 0x20..<0x7F:
        typed.append(Character(Unicode.Scalar(byte)))
        draft = typed
      default: return .nothing
      }
      return .redraw
    }
    switch byte {
    case UInt8(ascii: "q"), UInt8(ascii: "Q"): return .quit
    case UInt8(ascii: "s"):
      let all = Sort.allCases
      sort = all[(all.firstIndex(of: sort)! + 1) % all.count]
      return .redraw
    case UInt8(ascii: "/"):
      draft = ""
      return .redraw
    default: return .nothing
    }
  }

  /// The screen for `current` (and `previous`, the sample before it), cut to `width` columns
  /// and, when `height` is given, to that many lines with the keys on the last; without
  /// `height` (one pass, off a terminal) every session and no keys.
  public func lines(previous: StatsSample?, current: StatsSample, width: Int, height: Int?) -> [String] {
    let rate = Rate(previous: previous, current: current)
    var lines = summary(current, rate: rate)
    lines.append("")
    lines.append(
      Self.row(["SESSION", "RUNNING", "QUEUED", "DONE", "FAILED", "JOBS/S", "UP/S", "DOWN/S", "CACHE"]))
    var rows = sessionNames(current).map { name in
      sessionRow(name, current.counts(name), previous?.counts(name), rate: rate, cache: current.cache[name])
    }
    if let height {
      let room = max(height - lines.count - 1, 0)
      if rows.count > room {
        let hidden = rows.count - max(room - 1, 0)
        rows = Array(rows.prefix(max(room - 1, 0))) + (room > 0 ? ["... \(hidden) more"] : [])
      }
      lines += rows
      // The slowest jobs where room is left: their head and at least one.
      let left = height - lines.count - 1
      if left >= 3 { lines += slowLines(current).prefix(left) }
      while lines.count < height - 1 { lines.append("") }
      lines.append(keys)
    } else {
      lines += rows + slowLines(current)
    }
    return lines.map { Self.cut($0, width) }
  }

  /// The line of keys, or the filter being typed.
  var keys: String {
    if let draft { return "filter: \(draft)_   (Enter applies, Esc cancels)" }
    return "q quit   s sort (\(sort.rawValue))   / filter"
  }

  /// The daemon-wide lines above the table.
  private func summary(_ s: StatsSample, rate: Rate) -> [String] {
    var head = "ferry top   up \(ByteFormat.duration(seconds: Int64(s.uptimeSeconds)))   clients \(s.clients)"
    head += "   sort \(sort.rawValue)"
    if !filter.isEmpty { head += "   filter \(filter)" }
    let t = s.total
    var jobs = "jobs       running \(t.running)   queued \(t.queued)   done \(t.done)   failed \(t.failed)"
    jobs += "   cancelled \(t.cancelled)"
    // Transfers held back for a client that is not reading: a slow reader, not a slow server.
    if s.paused > 0 { jobs += "   paused \(s.paused)" }
    // Queued jobs that wait for something other than a slot: the network, a server's hold.
    let offline = s.waiting.values.reduce(0, +)
    if offline > 0 { jobs += "   waiting for network \(offline)" }
    if !s.holds.isEmpty { jobs += "   rate-limited \(s.holds.reduce(0) { $0 + $1.jobs })" }
    if let retries = t.retries { jobs += "   retries \(retries)" }
    jobs += "   \(rate.perSecond(\.ended, rate.previous?.total, t))/s"
    let transfer =
      "transfer   up \(rate.bytes(\.bytesUp, rate.previous?.total, t))/s   down \(rate.bytes(\.bytesDown, rate.previous?.total, t))/s"
      + "   connections \(t.connectionsOpened) opened, \(t.connectionsReused) reused"
    let lookups = s.cache.values.reduce(StatsAnswer.CacheCounts()) {
      .init(hit: $0.hit + $1.hit, revalidated: $0.revalidated + $1.revalidated, miss: $0.miss + $1.miss)
    }
    let cache =
      s.cache.isEmpty
      ? "cache      none"
      : "cache      \(Self.ratio(lookups)) answered   (\(lookups.hit) hit, \(lookups.revalidated) revalidated,"
        + " \(lookups.miss) miss)"
    return [head, jobs] + heldLine(s) + [transfer, cache]
  }

  /// Which origins a server's hold keeps jobs from (issue 32), when any: each session's held
  /// origin and its waiting jobs; an origin the daemon leaves out for this user reads `(hidden)`.
  private func heldLine(_ s: StatsSample) -> [String] {
    guard !s.holds.isEmpty else { return [] }
    let held = s.holds.map { "\($0.session) \($0.origin ?? "(hidden)") \($0.jobs)" }
    return ["held       " + held.joined(separator: ", ")]
  }

  private func sessionRow(
    _ name: String, _ c: StatsAnswer.Counts, _ before: StatsAnswer.Counts?, rate: Rate,
    cache: StatsAnswer.CacheCounts?
  ) -> String {
    Self.row([
      name, "\(c.running)", "\(c.queued)", "\(c.done)", "\(c.failed)", rate.perSecond(\.ended, before, c),
      rate.bytes(\.bytesUp, before, c), rate.bytes(\.bytesDown, before, c), cache.map(Self.ratio) ?? "-",
    ])
  }

  /// The sessions to list: configured and counted, filtered, in the chosen order.
  private func sessionNames(_ s: StatsSample) -> [String] {
    var names = configured
    for name in s.sessions.map(\.name) where !names.contains(name) { names.append(name) }
    let needle = filter.lowercased()
    names = names.filter { needle.isEmpty || $0.lowercased().contains(needle) }.sorted()
    let key: ((StatsAnswer.Counts) -> Int)? =
      switch sort {
      case .name: nil
      case .running: { $0.running }
      case .queued: { $0.queued }
      case .done: { $0.done }
      }
    guard let key else { return names }
    // Largest first; a stable sort keeps ties in name order.
    return names.enumerated().sorted { a, b in
      let (x, y) = (key(s.counts(a.element)), key(s.counts(b.element)))
      return x != y ? x > y : a.offset < b.offset
    }.map(\.element)
  }

  /// A table row: the name left-aligned in 20 columns (longer ones cut), numbers right-aligned.
  static func row(_ cells: [String]) -> String {
    let widths = [20, 8, 8, 9, 8, 9, 12, 12, 7]
    var line = ""
    for (i, cell) in cells.enumerated() {
      let w = widths[i]
      let text = cell.count > w - 1 && i == 0 ? String(cell.prefix(w - 2)) + "~" : cell
      let pad = String(repeating: " ", count: max(w - text.count, 1))
      line += i == 0 ? text + pad : pad + text
    }
    return line
  }

  static func ratio(_ c: StatsAnswer.CacheCounts) -> String {
    c.lookups == 0 ? "-" : "\(c.answered * 100 / c.lookups)%"
  }

  static func cut(_ line: String, _ width: Int) -> String {
    line.count > width ? String(line.prefix(max(width, 0))) : line
  }
}
