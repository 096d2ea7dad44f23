import Glibc

/// The process's identity, the user and group databases, signals and the wall clock.
extension SystemCall {
  /// `geteuid()`.
  public static var effectiveUserID: UInt32 { UInt32(geteuid()) }
  /// `getegid()`.
  public static var effectiveGroupID: UInt32 { UInt32(getegid()) }
  /// `getuid()`.
  public static var realUserID: UInt32 { UInt32(getuid()) }
  /// `getpid()`.
  public static var processID: Int32 { getpid() }

  /// `time(nil)`: the wall clock in whole seconds since the epoch.
  public static func wallClockSeconds() -> Int { Int(time(nil)) }

  /// Signal numbers the daemon handles.
  public enum Signal {
    public static let terminate = SIGTERM
    public static let interrupt = SIGINT
    public static let hangUp = SIGHUP
    public static let brokenPipe = SIGPIPE
    public static let fileSizeLimit = SIGXFSZ
  }

  /// `signal(number, SIG_IGN)`.
  public static func ignore(signal number: Int32) {
    _ = Glibc.signal(number, SIG_IGN)
  }

  /// The gid of the group `name` in the group database (`getgrnam`), or nil.
  public static func groupID(named name: String) -> UInt32? {
    guard let group = getgrnam(name) else { return nil }
    return UInt32(group.pointee.gr_gid)
  }

  /// The name and primary gid of user `uid` in the user database (`getpwuid_r`), or nil.
  public static func user(_ uid: UInt32) -> (name: String, gid: UInt32)? {
    var pwd = passwd()
    var buffer = [CChar](repeating: 0, count: 4096)
    var result: UnsafeMutablePointer<passwd>?
    guard getpwuid_r(uid_t(uid), &pwd, &buffer, buffer.count, &result) == 0, result != nil,
      let name = pwd.pw_name
    else { return nil }
    return (String(cString: name), UInt32(pwd.pw_gid))
  }

  /// The groups of user `name` with primary group `primary` (`getgrouplist`), as the kernel
  /// would grant them at login; empty when the database cannot say.
  public static func groups(ofUser name: String, primary: UInt32) -> [UInt32] {
    var count: Int32 = 64
    var list = [gid_t](repeating: 0, count: Int(count))
    if getgrouplist(name, gid_t(primary), &list, &count) < 0 {
      list = [gid_t](repeating: 0, count: Int(count))
      guard getgrouplist(name, gid_t(primary), &list, &count) >= 0 else { return [] }
    }
    return list.prefix(Int(count)).map { UInt32($0) }
  }
}

/// Whether a text is an IP address literal (`inet_pton`), a pure value.
public enum IPAddressLiteral {
  /// A dotted IPv4 address.
  public static func isIPv4(_ text: String) -> Bool {
    var v4 = in_addr()
    return inet_pton(AF_INET, text, &v4) == 1
  }

  /// An IPv6 address, without brackets.
  public static func isIPv6(_ text: String) -> Bool {
    var v6 = in6_addr()
    return inet_pton(AF_INET6, text, &v6) == 1
  }
}

/// A moment of the wall clock broken down in UTC (`clock_gettime` and `gmtime_r`).
public struct UTCTime: Equatable, Sendable {
  public var year, month, day, hour, minute, second, millisecond: Int

  /// Now.
  public static func now() -> UTCTime {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    var t = ts.tv_sec
    var tm = tm()
    gmtime_r(&t, &tm)
    return UTCTime(
      year: Int(tm.tm_year) + 1900, month: Int(tm.tm_mon) + 1, day: Int(tm.tm_mday), hour: Int(tm.tm_hour),
      minute: Int(tm.tm_min), second: Int(tm.tm_sec), millisecond: Int(ts.tv_nsec / 1_000_000))
  }
}

extension SystemCall {
  /// The standard descriptors.
  public static let standardInput: Int32 = 0
  public static let standardOutput: Int32 = 1
  public static let standardError: Int32 = 2

  /// Milliseconds of the monotonic clock (`CLOCK_MONOTONIC`).
  public static func monotonicMilliseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
  }

  /// The working directory (`getcwd`), or nil when it cannot be told.
  public static func workingDirectory() -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return nil }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The value of environment variable `name` (`getenv`), or nil.
  public static func environmentValue(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    return String(cString: value)
  }
}

extension SystemCall {
  /// Ends the process with `status` (`exit(3)`: stdio flushed, atexit handlers run).
  public static func exit(_ status: Int32) -> Never {
    Glibc.exit(status)
  }
}
