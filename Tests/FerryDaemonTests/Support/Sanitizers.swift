import Foundation

/// Whether the daemon under test was built with a sanitizer (`swift build --sanitize=…`, as the
/// sanitizer run of the suite does). Its RSS then measures shadow memory and the allocator's
/// quarantine, not ferry, so memory tolerances are not checked; descriptors and events still
/// are.
enum Sanitizers {
  static let daemonIsInstrumented: Bool = {
    guard let binary = FileManager.default.contents(atPath: Paths.product("ferryd")) else { return false }
    return ["__asan_init", "__tsan_init", "__ubsan_handle"].contains {
      binary.range(of: Data($0.utf8)) != nil
    }
  }()
}
