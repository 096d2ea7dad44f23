/// Byte counts, rates and durations as people read them, with integer arithmetic only (no
/// Foundation formatters): `512 B`, `1.5 KiB`, `3.2 MiB`, `0:07`, `1:02:03`.
public enum ByteFormat {
  private static let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]

  /// `n` bytes with one decimal past KiB, truncated (so 1023.96 KiB never reads "1024.0 KiB").
  public static func text(_ n: Int64) -> String {
    guard n >= 1024 else { return "\(max(n, 0)) B" }
    var unit = 0
    var scaled = n  // in units of 1024^unit, times 10 once the unit is chosen
    while unit + 2 < units.count, scaled >= 1024 * 1024 {
      scaled /= 1024
      unit += 1
    }
    let tenths = scaled * 10 / 1024
    return "\(tenths / 10).\(tenths % 10) \(units[unit + 1])"
  }

  /// A duration in whole seconds as `m:ss` or `h:mm:ss`.
  public static func duration(seconds: Int64) -> String {
    let s = max(seconds, 0)
    let hours = s / 3600
    let minutes = s / 60 % 60
    let rest = s % 60
    let mmss = (minutes < 10 && hours > 0 ? "0" : "") + "\(minutes):" + (rest < 10 ? "0" : "") + "\(rest)"
    return hours > 0 ? "\(hours):" + mmss : mmss
  }
}
