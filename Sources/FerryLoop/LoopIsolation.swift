/// A main-actor function as a plain one, for a C callback that only ever runs on the loop's
/// thread, inside a libevent or libcurl call the loop made: the trampolines of
/// EventTrampolines and CurlTrampolines each hold one, made once (a `static let`), and call it
/// with what the callback received (several values cross as one tuple).
///
/// Two costs are avoided on every callback, and a job crosses 15–25 of them:
/// - `MainActor.assumeIsolated` checks the current executor first (`swift_task_isCurrentExecutor`,
///   about 220 instructions): 3–6K of ferryd's per-job instructions over http (bench/NOTES.md,
///   "Close to the engine").
/// - A closure handed to `assumeIsolated`, or to anything that drops its isolation with
///   `withoutActuallyEscaping`, is copied to the heap on each call: the escape check after it
///   reads the context's reference count. The earlier `onLoop` did that, 15 allocations a job
///   over http (bench/NOTES.md, "Trampolines without a closure per call").
///
/// Release builds drop the function's isolation from its type, which changes nothing in how a
/// synchronous function is called (the standard library's `assumeIsolated` does the same after
/// its check). Debug builds, which every `swift test` and both sanitizer runs use, keep the
/// check on every call, so a callback that ever came on another thread still traps in the test
/// suite.
@inlinable @inline(__always)
public func loopEntry<A, R: Sendable>(_ body: @escaping @MainActor (A) -> R) -> @Sendable (A) -> R {
  let plain = unsafeBitCast(body, to: (@Sendable (A) -> R).self)
  #if DEBUG
    return { argument in
      MainActor.preconditionIsolated("a loop callback ran off the loop's thread")
      return plain(argument)
    }
  #else
    return plain
  #endif
}
