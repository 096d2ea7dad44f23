@testable import FerryWire

/// Fuzzes `JSONReader`, in both its modes: reading a tree, and only checking and locating the
/// top-level `parameters` value (which the job decoder keeps as text).
///
/// Invariants, for any input:
/// - accepted input is valid UTF-8, and JSONWriter's text of the tree reads back to the same
///   tree and the same text;
/// - rejecting duplicate keys only ever refuses more, never reads differently;
/// - the checking mode accepts and refuses exactly what the tree mode does, with the same
///   error; its tree equals the full one with the deferred value as `null`; the deferred text
///   reads alone to that value, and its flags tell the truth (no `\` when it says no escapes,
///   compact when it says compact, JSONWriter's own bytes when it says so);
/// - the same holds for the input wrapped as `{"parameters":INPUT}`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONReader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let input = fuzzInput(data, size)
  checkModes(input, rejectsDuplicateKeys: false)
  checkModes(input, rejectsDuplicateKeys: true)
  checkStrictAgreesWithLenient(input)
  var wrapped = Array(#"{"parameters":"#.utf8)
  wrapped += input
  wrapped.append(UInt8(ascii: "}"))
  wrapped.withUnsafeBufferPointer { line in
    let deferred = checkModes(line, rejectsDuplicateKeys: true)
    // Whatever reads alone (one level less deep) reads as the wrapped line's parameters.
    if (try? JSONReader(maxDepth: maxDepth - 1, rejectsDuplicateKeys: true).read(input)) != nil {
      let start = 14 + leadingWhitespace(input)
      fuzzCheck(deferred?.range.lowerBound == start, "parameters not found at \(start)")
      fuzzCheck(
        deferred?.range.upperBound == 14 + input.count - trailingWhitespace(input),
        "parameters range \(String(describing: deferred?.range)) does not end where the input does")
    }
  }
  return 0
}

private let maxDepth = 64

/// Checks one reader configuration on `input`; returns the deferred value it located, if any.
@discardableResult
private func checkModes(_ input: UnsafeBufferPointer<UInt8>, rejectsDuplicateKeys: Bool) -> JSONDeferredValue?
{
  let reader = JSONReader(maxDepth: maxDepth, rejectsDuplicateKeys: rejectsDuplicateKeys)
  let full = Result { () throws(JSONError) in try reader.read(input) }
  let checked = Result { () throws(JSONError) in try reader.read(input, deferring: "parameters") }
  switch (full, checked) {
  case (.failure(let a), .failure(let b)):
    fuzzCheck(a == b, "modes fail differently: \(a) vs \(b) on \(describe(input))")
    fuzzCheck(a.offset >= 0 && a.offset <= input.count, "error offset \(a.offset) outside the input")
    return nil
  case (.success(let tree), .success(let (partial, deferred))):
    checkRoundTrip(tree, input)
    guard let deferred else {
      fuzzCheck(tree == partial, "checking mode read a different tree with nothing deferred")
      return nil
    }
    checkDeferred(
      deferred, in: input, full: tree, partial: partial, rejectsDuplicateKeys: rejectsDuplicateKeys)
    return deferred
  case (.success, .failure(let error)):
    fuzzCheck(false, "checking mode refused what reads: \(error) on \(describe(input))")
  case (.failure(let error), .success):
    fuzzCheck(false, "checking mode accepted what does not read: \(error) on \(describe(input))")
  }
  return nil
}

/// The writer's text of an accepted value reads back to it, and writes the same again.
private func checkRoundTrip(_ tree: JSONValue, _ input: UnsafeBufferPointer<UInt8>) {
  fuzzCheck(String(validating: input, as: UTF8.self) != nil, "accepted invalid UTF-8: \(describe(input))")
  let written = JSONWriter.bytes(tree)
  guard let again = try? JSONReader(maxDepth: maxDepth).read(written) else {
    fuzzCheck(false, "writer output does not read: \(describe(written))")
    return
  }
  fuzzCheck(again == tree, "writer output reads to another tree: \(describe(written))")
  fuzzCheck(JSONWriter.bytes(again) == written, "writing twice differs: \(describe(written))")
}

/// The deferred value's range, flags and text against the tree read in full.
private func checkDeferred(
  _ deferred: JSONDeferredValue, in input: UnsafeBufferPointer<UInt8>, full: JSONValue,
  partial: JSONValue, rejectsDuplicateKeys: Bool
) {
  let range = deferred.range
  fuzzCheck(range.lowerBound >= 0 && range.upperBound <= input.count, "range \(range) outside the input")
  let text = UnsafeBufferPointer(rebasing: input[range])
  let alone = JSONReader(maxDepth: maxDepth - 1, rejectsDuplicateKeys: rejectsDuplicateKeys)
  guard let value = try? alone.read(text) else {
    fuzzCheck(false, "deferred text does not read alone: \(describe(text))")
    return
  }
  // The trees agree member by member but for one: `null` in the partial tree, `value` in full.
  guard case .object(let a) = full, case .object(let b) = partial, a.count == b.count else {
    fuzzCheck(false, "a deferred value outside a top-level object")
    return
  }
  var replaced = 0
  for (x, y) in zip(a.members, b.members) where x != y {
    replaced += 1
    fuzzCheck(x.key == "parameters" && y.key == "parameters", "member \(x.key) differs")
    fuzzCheck(y.value == .null && x.value == value, "deferred member is not null / not its text")
  }
  fuzzCheck(replaced <= 1, "\(replaced) members differ")
  let hasBackslash = text.contains(UInt8(ascii: "\\"))
  fuzzCheck(deferred.hasNoEscapes == !hasBackslash, "hasNoEscapes wrong for \(describe(text))")
  let compact = JobParameters.compacted(text)
  if deferred.isCompact { fuzzCheck(compact.elementsEqual(text), "not compact: \(describe(text))") }
  if deferred.hasNoEscapes || deferred.hasWriterEscapes {
    fuzzCheck(JSONWriter.bytes(value) == compact, "kept text is not the writer's: \(describe(text))")
  }
}

/// Refusing duplicate keys only adds failures: the same tree when both read, the same error
/// when the strict one fails for another reason, and never a later failure.
private func checkStrictAgreesWithLenient(_ input: UnsafeBufferPointer<UInt8>) {
  let lenient = Result { () throws(JSONError) in try JSONReader(maxDepth: maxDepth).read(input) }
  let strict = Result { () throws(JSONError) in
    try JSONReader(maxDepth: maxDepth, rejectsDuplicateKeys: true).read(input)
  }
  switch (strict, lenient) {
  case (.success(let a), .success(let b)): fuzzCheck(a == b, "strict and lenient trees differ")
  case (.success, .failure): fuzzCheck(false, "strict reads what lenient refuses")
  case (.failure(let error), .success): fuzzCheck(error.duplicateKeyPath != nil, "strict refused: \(error)")
  case (.failure(let s), .failure(let l)):
    if s.duplicateKeyPath == nil { fuzzCheck(s == l, "errors differ: \(s) vs \(l)") }
    fuzzCheck(s.offset <= l.offset, "strict failed later: \(s) vs \(l)")
  }
}

private func leadingWhitespace(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
  bytes.prefix { JSONParser<JSONCheckSink>.isWhitespace($0) }.count
}

private func trailingWhitespace(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
  bytes.reversed().prefix { JSONParser<JSONCheckSink>.isWhitespace($0) }.count
}
