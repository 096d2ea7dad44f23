import CFerryCurl

/// A hop's `CURLOPT_HTTPHEADER` list built in one allocation: the `curl_slist` nodes first,
/// then their NUL-terminated lines.
///
/// curl only reads the list it is given (it copies nothing, frees nothing, and the list must
/// outlive the transfer), so the nodes need not come from `curl_slist_append`, which allocates
/// a node and a copy of the line for every header. Free the list with `HeaderBlock.free`, never
/// with `curl_slist_free_all`.
struct HeaderBlock {
  private let nodes: UnsafeMutablePointer<curl_slist>
  private let capacity: Int
  private var count = 0
  private var text: UnsafeMutablePointer<UInt8>
  private let end: UnsafeMutablePointer<UInt8>

  /// Room for `lines` lines (at least one) of at most `bytes` bytes in all, their NULs included.
  init(lines: Int, bytes: Int) {
    precondition(lines > 0)
    let nodeBytes = lines * MemoryLayout<curl_slist>.stride
    let raw = UnsafeMutableRawPointer.allocate(
      byteCount: nodeBytes + bytes, alignment: MemoryLayout<curl_slist>.alignment)
    nodes = raw.bindMemory(to: curl_slist.self, capacity: lines)
    capacity = lines
    text = (raw + nodeBytes).bindMemory(to: UInt8.self, capacity: bytes)
    end = text + bytes
  }

  /// The bytes a `name: value` line takes here (an upper bound, its NUL included).
  static func size(name: String, value: String) -> Int { name.utf8.count + value.utf8.count + 3 }

  /// Adds `Name: value`, or `Name;` for an empty value (curl's way to send a header empty;
  /// `Name:` would remove it).
  mutating func append(name: String, value: String) {
    let line = text
    copy(name)
    put(value.isEmpty ? 0x3B : 0x3A)
    if !value.isEmpty {
      put(0x20)
      copy(value)
    }
    put(0)
    link(line)
  }

  /// Adds a line as it is.
  mutating func append(_ line: StaticString) {
    let start = text
    precondition(line.utf8CodeUnitCount < end - text)
    text.update(from: line.utf8Start, count: line.utf8CodeUnitCount)
    text += line.utf8CodeUnitCount
    put(0)
    link(start)
  }

  /// Adds a line as it is.
  mutating func append(_ line: String) {
    let start = text
    copy(line)
    put(0)
    link(start)
  }

  /// The list's first node; the nodes' `next` pointers are set. Every line asked for must have
  /// been added (an unused node would be uninitialised).
  var list: UnsafeMutablePointer<curl_slist> {
    precondition(count == capacity)
    return nodes
  }

  /// Frees a list that `list` gave (all of its lines: they share the one allocation).
  static func free(_ list: UnsafeMutablePointer<curl_slist>) {
    UnsafeMutableRawPointer(list).deallocate()
  }

  private mutating func link(_ line: UnsafeMutablePointer<UInt8>) {
    precondition(count < capacity)
    let node = nodes + count
    node.initialize(
      to: curl_slist(data: UnsafeMutableRawPointer(line).assumingMemoryBound(to: CChar.self), next: nil))
    if count > 0 { (node - 1).pointee.next = node }
    count += 1
  }

  private mutating func put(_ byte: UInt8) {
    precondition(text < end)
    text.pointee = byte
    text += 1
  }

  private mutating func copy(_ s: String) {
    var s = s
    s.withUTF8 { utf8 in
      precondition(utf8.count < end - text)
      if let base = utf8.baseAddress { text.update(from: base, count: utf8.count) }
      text += utf8.count
    }
  }
}
