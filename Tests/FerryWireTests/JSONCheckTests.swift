import Testing

@testable import FerryWire

/// A small deterministic generator (SplitMix64), so that the mutated inputs are the same on
/// every run.
private struct SplitMix64: RandomNumberGenerator {
  var state: UInt64

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// Parameter texts to mutate: every construct the grammar has.
private let seeds: [String] = [
  #"{"q":"swift json","page":2,"per_page":50,"tags":["a","b"],"n":null,"t":true,"f":false}"#,
  #"{"a":{"b":{"c":[1,-2.5e+3,0.0,1E-2,[],{}]}},"d":"\u00e9\ud83d\ude00\n\"\\\/"}"#,
  #" { "k" : [ 1 , 2 ] , "é" : "ü€😀" , "K" : { } } "#,
  "[" + (0..<20).map { #"{"k\#($0)":\#($0),"x":"y"}"# }.joined(separator: ",") + "]",
  "{" + (0..<20).map { #""key\#($0)":\#($0)"# }.joined(separator: ",") + "}",
  #""plain""#,
  "-0",
  // Around the depth limit of 3 (the line's object is depth 1).
  "[]", "[[]]", "[[[]]]", #"{"a":{}}"#, #"{"a":[{}]}"#, #"[{"a":1}]"#,
]

/// Bytes a mutation inserts or writes: structure, literals' letters, escapes and UTF-8 pieces.
private let alphabet: [UInt8] =
  Array(#"{}[],:"\0123456789-+.eEtrufalsn u/bd8 "#.utf8) + [
    0x09, 0x0A, 0x0D, 0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xED, 0xA0, 0x80, 0xF0, 0x9F, 0xFF,
  ]

/// Whether the line `bytes` is accepted, with `parameters` only checked or read as a tree; and
/// what the parameters read as.
private func read(_ bytes: [UInt8], deferring: Bool, maxDepth: Int) -> JSONValue?? {
  bytes.withUnsafeBufferPointer { buffer in
    let reader = JSONReader(maxDepth: maxDepth, rejectsDuplicateKeys: true)
    guard let (value, deferred) = try? reader.read(buffer, deferring: deferring ? "parameters" : nil) else {
      return nil
    }
    guard let deferred else { return .some(value.objectValue?["parameters"]) }
    let text = UnsafeBufferPointer(rebasing: buffer[deferred.range])
    return .some(try? JSONReader(maxDepth: .max).read(text))
  }
}

private func mutated(_ bytes: [UInt8], using rng: inout SplitMix64) -> [UInt8] {
  var out = bytes
  for _ in 0..<Int.random(in: 1...3, using: &rng) {
    let i = out.isEmpty ? 0 : Int.random(in: 0..<out.count, using: &rng)
    let b = alphabet.randomElement(using: &rng) ?? 0x20
    switch Int.random(in: 0..<4, using: &rng) {
    case 0 where !out.isEmpty: out.remove(at: i)
    case 1: out.insert(b, at: i)
    case 2 where !out.isEmpty: out[i] = b
    default:
      let end = min(out.count, i + Int.random(in: 1...8, using: &rng))
      out.insert(contentsOf: out[i..<end], at: i)
    }
  }
  return out
}

/// Checking the job line's parameters (rather than reading them) must accept exactly what the
/// tree reader accepts, and locate exactly the value the reader reads.
@Test(arguments: [64, 3])
func checkerAcceptsExactlyWhatTheReaderAccepts(maxDepth: Int) {
  var rng = SplitMix64(state: UInt64(maxDepth))
  var accepted = 0
  for seed in seeds {
    for round in 0..<400 {
      let parameters = round == 0 ? Array(seed.utf8) : mutated(Array(seed.utf8), using: &rng)
      let line = Array(#"{"url":"http://h/","parameters":"#.utf8) + parameters + Array(#","id":"x"}"#.utf8)
      let checked = read(line, deferring: true, maxDepth: maxDepth)
      let full = read(line, deferring: false, maxDepth: maxDepth)
      #expect((checked == nil) == (full == nil), "\(String(decoding: parameters, as: UTF8.self))")
      if let checked, let full {
        #expect(checked == full)
        accepted += 1
      }
    }
  }
  // Enough of both outcomes for the comparison to mean something.
  #expect(accepted > 100)
  #expect(accepted < seeds.count * 400 - 100)
}
