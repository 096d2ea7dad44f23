/// HTTP dates (RFC 9110 5.6.7) as seconds since the Unix epoch, without Foundation.
///
/// Parses IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) and the two obsolete forms, RFC 850
/// (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`). A two-digit
/// year is 19yy from 70 up and 20yy below (a fixed pivot, so parsing needs no clock). The weekday
/// name is checked only for shape, not against the date.
public enum HTTPDate {
  private static let months = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
  ]
  private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]

  /// The instant `text` names, or nil when it is none of the three forms.
  public static func parse(_ text: String) -> Int64? {
    var scanner = DateScanner(Array(CacheFields.trimmed(Substring(text)).utf8))
    guard scanner.skipLetters() >= 3 else { return nil }
    if scanner.take(UInt8(ascii: ",")) {
      guard scanner.take(UInt8(ascii: " ")) else { return nil }
      let mark = scanner.index
      if let day = scanner.digits(2), scanner.take(UInt8(ascii: " ")) {
        return fixdateRest(&scanner, day: day)
      }
      scanner.index = mark
      return rfc850Rest(&scanner)
    }
    return asctimeRest(&scanner)
  }

  /// `Sun, 06 Nov 1994 08:49:37 GMT` for `seconds` since the epoch, clamped to the years
  /// 0001–9999 (so no instant overflows the arithmetic or prints a year the grammar lacks).
  public static func format(_ unclamped: Int64) -> String {
    let seconds = min(max(unclamped, -62_135_596_800), 253_402_300_799)
    let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    let secondOfDay = seconds - days * 86_400
    let (year, month, day) = civil(fromDays: days)
    let weekday = weekdays[Int(((days % 7) + 7) % 7)]
    func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
    let yearText = String(repeating: "0", count: max(0, 4 - "\(year)".count)) + "\(year)"
    return "\(weekday), \(two(day)) \(months[Int(month) - 1]) \(yearText) "
      + "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
  }

  private static func fixdateRest(_ s: inout DateScanner, day: Int64) -> Int64? {
    guard let month = s.month(months), s.take(UInt8(ascii: " ")), let year = s.digits(4),
      s.take(UInt8(ascii: " ")), let time = s.time(), s.take(UInt8(ascii: " ")), s.gmt(), s.atEnd
    else { return nil }
    return instant(year: year, month: month, day: day, time: time)
  }

  private static func rfc850Rest(_ s: inout DateScanner) -> Int64? {
    guard let day = s.digits(2), s.take(UInt8(ascii: "-")), let month = s.month(months),
      s.take(UInt8(ascii: "-")), let yy = s.digits(2), s.take(UInt8(ascii: " ")), let time = s.time(),
      s.take(UInt8(ascii: " ")), s.gmt(), s.atEnd
    else { return nil }
    return instant(year: yy < 70 ? 2000 + yy : 1900 + yy, month: month, day: day, time: time)
  }

  private static func asctimeRest(_ s: inout DateScanner) -> Int64? {
    guard s.take(UInt8(ascii: " ")), let month = s.month(months), s.take(UInt8(ascii: " ")) else {
      return nil
    }
    let day: Int64
    if s.take(UInt8(ascii: " ")) {
      guard let d = s.digits(1) else { return nil }
      day = d
    } else {
      guard let d = s.digits(2) else { return nil }
      day = d
    }
    guard s.take(UInt8(ascii: " ")), let time = s.time(), s.take(UInt8(ascii: " ")),
      let year = s.digits(4), s.atEnd
    else { return nil }
    return instant(year: year, month: month, day: day, time: time)
  }

  private static func instant(year: Int64, month: Int64, day: Int64, time: Int64) -> Int64? {
    let monthDays: [Int64] = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    guard day >= 1, day <= monthDays[Int(month) - 1], time >= 0 else { return nil }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    if month == 2 && day == 29 && !leap { return nil }
    return days(year: year, month: month, day: day) * 86_400 + time
  }

  /// Days from 1970-01-01 (Howard Hinnant's days_from_civil).
  private static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  /// Year, month, day of a day count from 1970-01-01 (civil_from_days).
  private static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
    let z = z0 + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }
}

/// A cursor over a date's bytes.
private struct DateScanner {
  let bytes: [UInt8]
  var index = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  var atEnd: Bool { index == bytes.count }

  mutating func take(_ byte: UInt8) -> Bool {
    guard index < bytes.count, bytes[index] == byte else { return false }
    index += 1
    return true
  }

  /// Skips ASCII letters; returns how many.
  mutating func skipLetters() -> Int {
    let start = index
    while index < bytes.count, (bytes[index] | 0x20) >= 0x61, (bytes[index] | 0x20) <= 0x7A {
      index += 1
    }
    return index - start
  }

  mutating func digits(_ count: Int) -> Int64? {
    guard index + count <= bytes.count else { return nil }
    var value: Int64 = 0
    for i in index..<(index + count) {
      guard bytes[i] >= 0x30, bytes[i] <= 0x39 else { return nil }
      value = value * 10 + Int64(bytes[i] - 0x30)
    }
    index += count
    return value
  }

  /// A month name (exact case), as 1...12.
  mutating func month(_ names: [String]) -> Int64? {
    guard index + 3 <= bytes.count else { return nil }
    let word = bytes[index..<(index + 3)]
    for (i, name) in names.enumerated() where word.elementsEqual(name.utf8) {
      index += 3
      return Int64(i + 1)
    }
    return nil
  }

  /// `HH:MM:SS` as seconds of the day, or nil when out of range.
  mutating func time() -> Int64? {
    guard let h = digits(2), take(UInt8(ascii: ":")), let m = digits(2), take(UInt8(ascii: ":")),
      let s = digits(2), h < 24, m < 60, s < 61
    else { return nil }
    return h * 3600 + m * 60 + min(s, 59)
  }

  mutating func gmt() -> Bool {
    take(UInt8(ascii: "G")) && take(UInt8(ascii: "M")) && take(UInt8(ascii: "T"))
  }
}
