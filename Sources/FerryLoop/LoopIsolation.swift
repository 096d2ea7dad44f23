/// Enters the main actor from a C callback that only ever runs on the loop's thread, inside a
/// libevent or libcurl call the loop made: the trampolines of EventTrampolines and
/// CurlTrampolines.
///
/// `MainActor.assumeIsolated` checks the current executor first (`swift_task_isCurrentExecutor`,
/// about 220 instructions), and a job crosses 15–25 trampolines: 3–6K of ferryd's per-job
/// instructions over http (bench/NOTES.md, "Close to the engine"). Release builds skip the
/// check and call `body` as the standard library's own `assumeIsolated` does after it: the
/// closure's isolation is dropped from its type, which changes nothing in how a synchronous
/// closure is called. Debug builds, which every `swift test` and both sanitizer runs use, keep
/// the check, so a callback that ever came on another thread still traps in the test suite.
@inline(__always)
public func onLoop<T: Sendable>(_ body: @MainActor () throws -> T) rethrows -> T {
  #if DEBUG
    return try MainActor.assumeIsolated(body)
  #else
    typealias Unisolated = () throws -> T
    return try withoutActuallyEscaping(body) { body in
      try unsafeBitCast(body, to: Unisolated.self)()
    }
  #endif
}
