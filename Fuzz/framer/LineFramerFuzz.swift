import FerryWire

/// Fuzzes `LineFramer` against a model: the input's first byte sets `maxLineBytes` (1–256),
/// the next three seed the chunk sizes, and the rest is the client's byte stream.
///
/// Invariants, for any stream and any chunking:
/// - the items are exactly the model's: each `\n`-terminated line (and the unterminated last
///   one, at finish) with one `\r` before its end dropped, blank ones skipped, and one too
///   long for `maxLineBytes` reported as `.tooLong` instead;
/// - the borrowed and the owned feeding give the same items;
/// - at most `maxLineBytes + 1` bytes are ever held, and none after `finish`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLineFramer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let input = fuzzInput(data, size)
  guard input.count >= 4 else { return 0 }
  let maxLineBytes = 1 + Int(input[0])
  var seed = UInt32(input[1]) << 16 | UInt32(input[2]) << 8 | UInt32(input[3]) | 1
  let stream = UnsafeBufferPointer(rebasing: input[4...])
  let expected = model(stream, maxLineBytes: maxLineBytes)

  var borrowed = LineFramer(maxLineBytes: maxLineBytes)
  var owned = LineFramer(maxLineBytes: maxLineBytes)
  var items: [LineFramer.Item] = []
  var ownedItems: [LineFramer.Item] = []
  var start = 0
  while start < stream.count {
    // Chunks of 0 to 300 bytes: empty ones, single bytes, and ones longer than a line.
    seed ^= seed << 13
    seed ^= seed >> 17
    seed ^= seed << 5
    let end = min(stream.count, start + Int(seed % 301))
    let chunk = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: stream[start..<end]))
    borrowed.feed(chunk) { items.append(LineFramer.Item($0)) }
    ownedItems += owned.feed(chunk)
    fuzzCheck(borrowed.bufferedBytes <= maxLineBytes + 1, "holds \(borrowed.bufferedBytes) bytes")
    start = end
  }
  borrowed.finish { items.append(LineFramer.Item($0)) }
  ownedItems += owned.finish()
  fuzzCheck(borrowed.bufferedBytes == 0 && owned.bufferedBytes == 0, "bytes held after finish")
  fuzzCheck(items == expected, "items \(items) differ from the model's \(expected)")
  fuzzCheck(ownedItems == expected, "owned items differ from the model's")

  // And the whole stream in one chunk.
  var whole = LineFramer(maxLineBytes: maxLineBytes)
  let wholeItems = whole.feed(stream) + whole.finish()
  fuzzCheck(wholeItems == expected, "one chunk gives \(wholeItems), the model \(expected)")
  return 0
}

/// The framer's contract, written the plain way over the whole stream.
private func model(_ stream: UnsafeBufferPointer<UInt8>, maxLineBytes: Int) -> [LineFramer.Item] {
  var lines = stream.split(separator: 0x0A, omittingEmptySubsequences: false)
  // The piece after the last `\n` is the unterminated last line; empty when there is none.
  if lines.last?.isEmpty == true { lines.removeLast() }
  var items: [LineFramer.Item] = []
  for var line in lines {
    if line.last == 0x0D { line = line.dropLast() }
    if line.count > maxLineBytes {
      items.append(.tooLong)
    } else if !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
      items.append(.line(Array(line)))
    }
  }
  return items
}
