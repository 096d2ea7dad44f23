import CFerryCurl
import FerryWire

/// What curl's callbacks recorded for delegates, kept until the curl call that made them has
/// returned; the engine then delivers them in order (`Engine.deliverEvents()`).
///
/// Body bytes are copied into one byte store, and events name their slice of it, so recording
/// allocates nothing once the storage has grown to a round's size. Two rounds of storage take
/// turns: the engine delivers one while anything recorded meanwhile (curl re-delivering what
/// an unpause released, from a delegate's `resumeReceive()`) goes into the other, so a slice
/// handed to a delegate never moves under it.
@MainActor final class TransferEventQueue {
  /// One recorded event.
  enum Event {
    /// The last hop's head, to report.
    case head(Transfer, ResponseHead)
    /// Body bytes: `count` bytes at `start` in the round's byte store.
    case body(Transfer, start: Int, count: Int)
    case progress(Transfer, ProgressDirection, done: Int64, total: Int64?)
    /// curl ended the transfer's hop with this result (from `curl_multi_info_read`, or our
    /// own end of an HTTP/2 response that was complete early).
    case ended(Transfer, CURLcode)
    /// The read callback paused curl's send side: the body's stream `fd` had nothing yet.
    case sendBlocked(Transfer, Int32)

    /// A head or an end: what may take a delegate long (a jar's bound, a job's end).
    var isHeavy: Bool {
      switch self {
      case .head, .ended: true
      case .body, .progress, .sendBlocked: false
      }
    }
  }

  /// Recording.
  private var recording = Round()
  /// Being delivered.
  private var delivering = Round()

  /// One round of events and the bytes they name.
  private struct Round {
    var events: [Event] = []
    var bytes = ByteStore()
  }

  /// Transfers that stopped recording at their limit (`TransferStateMachine.Receive.draining`),
  /// to unpause once what they recorded is delivered.
  private var draining: [Transfer] = []

  var isEmpty: Bool { recording.events.isEmpty }

  /// Nothing is left to deliver or unpause.
  var isIdle: Bool { recording.events.isEmpty && draining.isEmpty }

  func appendDraining(_ transfer: Transfer) {
    draining.append(transfer)
  }

  func popDraining() -> Transfer? {
    draining.popLast()
  }

  func append(_ event: Event) {
    recording.events.append(event)
  }

  /// Copies `chunk` and records it for `transfer`.
  func appendBody(_ transfer: Transfer, _ chunk: UnsafeRawBufferPointer) {
    let start = recording.bytes.append(chunk)
    recording.events.append(.body(transfer, start: start, count: chunk.count))
  }

  /// Makes what was recorded the round being delivered; returns its event count. Recording
  /// goes on in the other round's storage.
  func beginDelivery() -> Int {
    swap(&recording, &delivering)
    return delivering.events.count
  }

  /// Event `index` of the round being delivered.
  func delivered(_ index: Int) -> Event { delivering.events[index] }

  /// `count` bytes at `start` of the round being delivered; valid until `endDelivery()`.
  func deliveredBytes(start: Int, count: Int) -> UnsafeRawBufferPointer {
    delivering.bytes.slice(start: start, count: count)
  }

  /// Empties the delivered round, keeping its storage for a later one.
  func endDelivery() {
    delivering.events.removeAll(keepingCapacity: delivering.events.capacity <= 4096)
    delivering.bytes.removeAll()
  }

  isolated deinit {
    recording.bytes.deallocate()
    delivering.bytes.deallocate()
  }
}

/// A growable byte buffer that keeps its storage when emptied (up to a bound) and never moves
/// it except while appending, for slices that must stay put while they are delivered.
struct ByteStore {
  private var base: UnsafeMutableRawPointer?
  private(set) var count = 0
  private var capacity = 0
  /// Storage kept when emptied; a larger round's is given back.
  private static let keptCapacity = 1 << 20

  /// Appends `chunk`; returns where it starts.
  mutating func append(_ chunk: UnsafeRawBufferPointer) -> Int {
    let start = count
    guard chunk.count > 0 else { return start }
    if count + chunk.count > capacity { grow(to: count + chunk.count) }
    (base! + count).copyMemory(from: chunk.baseAddress!, byteCount: chunk.count)
    count += chunk.count
    return start
  }

  func slice(start: Int, count: Int) -> UnsafeRawBufferPointer {
    guard let base, count > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
    return UnsafeRawBufferPointer(start: base + start, count: count)
  }

  mutating func removeAll() {
    count = 0
    if capacity > Self.keptCapacity { deallocate() }
  }

  mutating func deallocate() {
    base?.deallocate()
    base = nil
    capacity = 0
    count = 0
  }

  private mutating func grow(to needed: Int) {
    var size = max(capacity * 2, 16 << 10)
    while size < needed { size *= 2 }
    let grown = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
    if let base, count > 0 { grown.copyMemory(from: base, byteCount: count) }
    base?.deallocate()
    base = grown
    capacity = size
  }
}
