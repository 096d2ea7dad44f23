import Glibc

/// Fails the current input when an invariant does not hold: prints why and aborts, which
/// libFuzzer reports as a crash and saves the input for.
///
/// A fuzz target asserts what must be true of every input, not only that nothing traps.
func fuzzCheck(
  _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, line: Int = #line
) {
  guard !condition() else { return }
  let text = "fuzz check failed (line \(line)): \(message())\n"
  // Straight to fd 2: Glibc's `stderr` is a global var, which strict concurrency refuses.
  _ = text.utf8.withContiguousStorageIfAvailable { write(2, $0.baseAddress, $0.count) }
  abort()
}

/// The fuzzer's input as a buffer; `nil` data (size 0) becomes an empty buffer.
func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> UnsafeBufferPointer<UInt8> {
  UnsafeBufferPointer(start: size > 0 ? data : nil, count: size)
}

/// A visible form of bytes for failure messages, cut short.
func describe(_ bytes: some Collection<UInt8>) -> String {
  let text = String(decoding: bytes.prefix(200), as: UTF8.self)
  return bytes.count > 200 ? "\(text.debugDescription)… (\(bytes.count) bytes)" : text.debugDescription
}
