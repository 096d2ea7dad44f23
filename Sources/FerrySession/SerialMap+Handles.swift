import FerryWire

/// The engine's transfers by curl handle: an address is no client's choice either, so it is
/// keyed as a serial (`SerialKey`'s mixer, not SipHash).
extension SerialMap {
  static func key(_ handle: UnsafeMutableRawPointer) -> UInt64 { UInt64(UInt(bitPattern: handle)) }

  subscript(handle handle: UnsafeMutableRawPointer) -> Value? {
    get { self[Self.key(handle)] }
    _modify { yield &self[Self.key(handle)] }
  }

  @discardableResult
  mutating func removeValue(forHandle handle: UnsafeMutableRawPointer) -> Value? {
    removeValue(forKey: Self.key(handle))
  }
}
