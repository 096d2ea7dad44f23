import Testing

@testable import FerryDaemon

/// `@Boxed` keeps an optional out of line: value semantics as a plain optional, and 8 bytes
/// in its owner whatever it wraps.
@Suite struct BoxedTests {
  final class Owner {
    @Boxed var big: [Int: String]?
    @Boxed var tuple: (Int, String, [UInt8])?
    var plain: (Int, String, [UInt8])?
  }

  @Test func behavesAsAnOptional() {
    let owner = Owner()
    #expect(owner.big == nil)
    owner.big = [1: "a"]
    owner.big?[2] = "b"
    #expect(owner.big == [1: "a", 2: "b"])
    let copy = owner.big
    owner.big?[3] = "c"
    #expect(copy == [1: "a", 2: "b"])
    #expect(owner.big?.count == 3)
    #expect(owner.big.take() == [1: "a", 2: "b", 3: "c"])
    #expect(owner.big == nil)
    owner.tuple = (1, "x", [2])
    owner.tuple?.2.append(3)
    #expect(owner.tuple?.2 == [2, 3])
    owner.tuple = nil
    #expect(owner.tuple == nil)
  }

  @Test func takesOneReferenceOfRoom() {
    #expect(MemoryLayout<Boxed<(Int, String, [UInt8])>>.size == MemoryLayout<Int>.size)
    #expect(MemoryLayout<(Int, String, [UInt8])?>.size > 3 * MemoryLayout<Int>.size)
  }
}
