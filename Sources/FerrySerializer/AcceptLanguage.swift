/// The default `Accept-Language` header, built from the daemon's `LANGUAGE` and `LANG` with
/// AFNetworking's q-value rule.
///
/// AFHTTPRequestSerializer takes `NSLocale.preferredLanguages` in order, gives the i-th
/// `q = 1 - 0.1 * i` printed with `%0.1g` (so `1`, `0.9`, ... `0.5`), stops after q reaches 0.5
/// (six languages) and joins them with `", "`. On Linux the preferred list is gettext's:
/// `LANGUAGE` (colon-separated) when set, else `LANG`. Like gettext, a `C` or `POSIX` locale in
/// `LANG` (also `C.UTF-8`) means no language preference, and then `LANGUAGE` is ignored too and
/// the header is left out. Each entry loses its `.codeset` and `@modifier`, `_` becomes `-`
/// (`en_GB.UTF-8` → `en-GB`), and entries that are not plain letters, digits and dashes are
/// skipped, so the environment can never inject into a header.
public struct AcceptLanguage: Sendable, Equatable {
  /// Language tags in preference order, at most six.
  public let languages: [String]

  private static let qValues = ["1", "0.9", "0.8", "0.7", "0.6", "0.5"]

  /// Builds from the values of `LANGUAGE` and `LANG` (`nil` when unset).
  public init(language: String?, lang: String?) {
    if let lang, Self.isCLocale(lang) {
      languages = []
      return
    }
    var tags: [String] = []
    let fromLanguage = (language ?? "").split(separator: ":").compactMap { Self.tag(String($0)) }
    let candidates = fromLanguage.isEmpty ? [lang.flatMap(Self.tag)].compactMap { $0 } : fromLanguage
    for tag in candidates where !tags.contains(tag) && tags.count < Self.qValues.count {
      tags.append(tag)
    }
    languages = tags
  }

  /// The header value, e.g. `fr;q=1, en-GB;q=0.9`; `nil` when there is no language.
  public var value: String? {
    guard !languages.isEmpty else { return nil }
    return zip(languages, Self.qValues).map { "\($0);q=\($1)" }.joined(separator: ", ")
  }

  /// `C`, `POSIX`, or `C.<codeset>`.
  private static func isCLocale(_ locale: String) -> Bool {
    let base = locale.prefix { $0 != "." && $0 != "@" }
    return base == "C" || base == "POSIX"
  }

  /// `en_GB.UTF-8@euro` → `en-GB`; `nil` for C/POSIX, empty or malformed entries.
  private static func tag(_ locale: String) -> String? {
    let base = locale.prefix { $0 != "." && $0 != "@" }
    guard !base.isEmpty, base != "C", base != "POSIX" else { return nil }
    let bytes = base.utf8.map { $0 == UInt8(ascii: "_") ? UInt8(ascii: "-") : $0 }
    let valid = bytes.allSatisfy {
      ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D
    }
    guard valid, bytes.first != 0x2D else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }
}
