import FerryLoop
import FerrySerializer
import FerryWire

#if canImport(Glibc)
  import Glibc
#endif

/// Streams a `BodyPlan` into libcurl's read buffer, segment after segment, and rewinds it.
///
/// A file segment is opened only when the reader reaches it and read with `pread` at its own
/// offset, so no file is ever read whole and seeking back costs nothing. A file that is missing,
/// unreadable or shorter than planned stops the body with `file_unreadable`.
///
/// A passed descriptor is read in place: a regular file with `pread` from where it stood when
/// the job was accepted (so it rewinds like a file segment), a stream (pipe, socket) with
/// non-blocking `read` until its end. An empty stream makes `read` return 0 with
/// `blockedOn` set: the caller pauses and waits for the descriptor to be readable. A stream is
/// read once: a reader (a later hop, a retry) or a seek that needs its bytes again stops the
/// body with `body_not_rewindable`.
public final class BodyReader {
  private let segments: [BodyPlan.Segment]
  /// Total length: the request's Content-Length (the known part when `isStreamed`).
  public let length: Int64
  /// The body has a stream segment: its length is not known, it goes chunked.
  public let isStreamed: Bool
  /// Set by the last `read` that returned 0 because the stream it was at had nothing yet.
  public private(set) var blockedOn: Int32?
  /// Bytes handed to curl so far (from the last seek): the body is all sent at `length`.
  public private(set) var position: Int64 = 0
  private var segmentIndex = 0
  /// Bytes of the current segment already read.
  private var segmentOffset: Int64 = 0
  private var openFile: (index: Int, fd: Int32)?
  /// Why reading stopped, once it has.
  public private(set) var error: WireError?
  /// `read_roots`: every file opened must lie under one (checked on the open descriptor).
  private let readRoots: [String]?
  /// The daemon's own files, never read whatever the roots say.
  private let protected: [String]

  public init(_ plan: BodyPlan, readRoots: [String]? = nil, protected: [String] = []) {
    self.protected = protected
    segments = plan.segments
    length = plan.length
    isStreamed = plan.isStreamed
    self.readRoots = readRoots
  }

  /// Whether a stream of `plan` gave bytes already: the body cannot be sent again.
  public static func isSpent(_ plan: BodyPlan) -> Bool {
    plan.segments.contains { segment in
      if case .descriptor(let d) = segment { d.isStream && d.bytesTaken > 0 } else { false }
    }
  }

  deinit { closeFile() }

  /// Fills `buffer` from the current position; returns the bytes written (0 at the end), or
  /// `nil` after recording `error`.
  public func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
    var filled = 0
    blockedOn = nil
    defer { position += Int64(filled) }
    while filled < buffer.count, segmentIndex < segments.count {
      let room = UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])
      if case .descriptor(let d) = segments[segmentIndex], d.isStream {
        switch readStream(d, into: room) {
        case .failed: return nil
        case .bytes(let count): filled += count
        case .wouldBlock:
          if filled == 0 { blockedOn = d.fd }
          return filled
        case .end:
          segmentIndex += 1
          segmentOffset = 0
        }
        continue
      }
      guard let count = readSegment(into: room) else { return nil }
      filled += count
      if segmentOffset >= segments[segmentIndex].length {
        segmentIndex += 1
        segmentOffset = 0
      }
    }
    return filled
  }

  /// Moves to absolute byte `offset`; false when it lies outside the body, or past the start
  /// of a stream that gave bytes already (recording `body_not_rewindable`).
  func seek(to offset: Int64) -> Bool {
    if isStreamed {
      guard offset == position || !Self.isSpentBefore(segments, offset) else {
        error = WireError(
          .bodyNotRewindable, "the request body must be sent again, and its stream was read already")
        return false
      }
    }
    guard offset >= 0, isStreamed || offset <= length else { return false }
    if offset == position { return true }
    var remaining = offset
    segmentIndex = 0
    while segmentIndex < segments.count {
      if case .descriptor(let d) = segments[segmentIndex], d.isStream {
        // Only the start of an unread stream is a place to seek to.
        guard remaining == 0 else { return false }
        break
      }
      guard remaining >= segments[segmentIndex].length else { break }
      remaining -= segments[segmentIndex].length
      segmentIndex += 1
    }
    segmentOffset = remaining
    position = offset
    return true
  }

  /// Whether seeking to `offset` would need bytes of a stream that are gone.
  private static func isSpentBefore(_ segments: [BodyPlan.Segment], _ offset: Int64) -> Bool {
    var start: Int64 = 0
    for segment in segments {
      if case .descriptor(let d) = segment, d.isStream {
        return d.bytesTaken > 0 || offset > start
      }
      start += segment.length
    }
    return false
  }

  private enum StreamRead {
    case bytes(Int)
    case wouldBlock
    case end
    case failed
  }

  /// One non-blocking `read` of stream `d` at the current segment.
  private func readStream(_ d: BodyDescriptor, into room: UnsafeMutableRawBufferPointer) -> StreamRead {
    // A new reader (a hop, a retry) at the start of a stream some earlier one read from.
    if segmentOffset == 0, d.bytesTaken > 0 {
      error = WireError(
        .bodyNotRewindable,
        "the request body must be sent again (a redirect or a retry), and its stream was read already")
      return .failed
    }
    switch SystemCall.retrying({ Glibc.read(d.fd, room.baseAddress, room.count) }) {
    case .success(0): return .end
    case .success(let count):
      segmentOffset += Int64(count)
      d.bytesTaken += Int64(count)
      return .bytes(count)
    case .failure(let e) where e.isWouldBlock:
      return .wouldBlock
    case .failure(let e):
      error = WireError(.fileUnreadable, "cannot read the passed body descriptor: \(e.description)")
      return .failed
    }
  }

  /// Closes the open file, if any (the transfer is over or will not read for a while).
  func closeFile() {
    if let file = openFile {
      _ = Glibc.close(file.fd)
      openFile = nil
    }
  }

  private func readSegment(into room: UnsafeMutableRawBufferPointer) -> Int? {
    let want = Int(min(Int64(room.count), segments[segmentIndex].length - segmentOffset))
    guard want > 0 else { return 0 }
    switch segments[segmentIndex] {
    case .bytes(let bytes):
      let start = Int(segmentOffset)
      bytes.withUnsafeBytes { source in
        room.baseAddress!.copyMemory(from: source.baseAddress! + start, byteCount: want)
      }
      segmentOffset += Int64(want)
      return want
    case .file(let path, let offset, _):
      guard let fd = fileDescriptor(path) else { return nil }
      switch SystemCall.retrying({ pread(fd, room.baseAddress, want, off_t(offset + segmentOffset)) }) {
      case .failure(let error): return fail(path, error.description)
      case .success(0): return fail(path, "file is shorter than when the job was accepted")
      case .success(let count):
        segmentOffset += Int64(count)
        return count
      }
    case .descriptor(let d):
      // A regular file (streams are read by `readStream`), at its offset of submission.
      guard case .file(let offset, _) = d.kind else { return 0 }
      switch SystemCall.retrying({ pread(d.fd, room.baseAddress, want, off_t(offset + segmentOffset)) }) {
      case .failure(let error): return fail("the passed body descriptor", error.description)
      case .success(0):
        return fail("the passed body descriptor", "file is shorter than when the job was accepted")
      case .success(let count):
        segmentOffset += Int64(count)
        return count
      }
    }
  }

  private func fileDescriptor(_ path: String) -> Int32? {
    if let file = openFile, file.index == segmentIndex { return file.fd }
    closeFile()
    // O_NONBLOCK: a file swapped for a FIFO since the job was accepted would block open(2),
    // and the loop with it, until a writer came; now pread fails (ESPIPE), file_unreadable.
    let fd: Int32
    switch SystemCall.retrying({ Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }) {
    case .success(let opened): fd = opened
    case .failure(let error):
      _ = fail(path, error.description)
      return nil
    }
    if let readRoots {
      do throws(WireError) {
        try FileRoots.checkOpened(fd, path: path, within: readRoots, what: "read_roots", protected: protected)
      } catch {
        _ = Glibc.close(fd)
        self.error = error
        return nil
      }
    }
    openFile = (segmentIndex, fd)
    return fd
  }

  private func fail(_ path: String, _ reason: String) -> Int? {
    error = WireError(.fileUnreadable, "cannot read \(path): \(reason)")
    closeFile()
    return nil
  }
}
