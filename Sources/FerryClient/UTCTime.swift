/// A time in UTC from seconds since the epoch, without Foundation: the civil date by Howard
/// Hinnant's `civil_from_days` (https://howardhinnant.github.io/date_algorithms.html).
struct UTCTime: Equatable {
  var year: Int64
  var month: Int64
  var day: Int64
  var hour: Int64
  var minute: Int64
  var second: Int64

  init(epochSeconds: Int64) {
    let days = epochSeconds >= 0 ? epochSeconds / 86_400 : (epochSeconds - 86_399) / 86_400
    let rest = epochSeconds - days * 86_400
    hour = rest / 3600
    minute = rest % 3600 / 60
    second = rest % 60
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let shiftedMonth = (5 * dayOfYear + 2) / 153
    day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
    month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
    year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
  }

  /// `2026-12-06T12:00:00Z`.
  var iso8601: String {
    "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))Z"
  }

  private func pad(_ n: Int64, _ width: Int) -> String {
    let digits = String(n)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
  }
}
