import Glibc

/// Time budgets for tests, scaled to how fast this build runs.
///
/// A build with AddressSanitizer or ThreadSanitizer (`make test-sanitize`) runs the same work
/// several times slower, so a bound that holds in a plain build fails there. A test states its
/// budget for a plain build and passes it through `ms(_:)`; a bound that can be relative to a
/// baseline measured in the same run should be that instead. Waits that expect nothing to happen
/// (`!loop.run(until:)`) keep their plain length: scaling them only makes the run slower.
public enum TestTime {
  /// Whether this process carries a sanitizer's runtime. The sanitized suite builds the
  /// products with the same sanitizer, so this also says whether the daemon under test is slow.
  public static let isSanitized: Bool = {
    guard let image = dlopen(nil, RTLD_NOW) else { return false }
    defer { dlclose(image) }
    let runtimes: [String] = ["__asan_init", "__tsan_init"]
    return runtimes.contains { dlsym(image, $0) != nil }
  }()

  /// How many times slower than a plain debug build this process is assumed to run under a
  /// sanitizer: a generous margin over what ASan and TSan cost, since a deadline is only ever
  /// reached when something is truly stuck.
  public static let factor = isSanitized ? 10 : 1

  /// `budget` milliseconds of a plain build, scaled by `factor`.
  public static func ms(_ budget: Int) -> Int { budget * factor }

  /// `budget` milliseconds of a plain build as loop time (`EventLoop.now()`), scaled.
  public static func loopMs(_ budget: Int) -> UInt64 { UInt64(ms(budget)) }
}
