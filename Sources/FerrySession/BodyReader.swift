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
public final class BodyReader {
  private let segments: [BodyPlan.Segment]
  /// Total length: the request's Content-Length.
  public let length: Int64
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
    self.readRoots = readRoots
  }

  deinit { closeFile() }

  /// Fills `buffer` from the current position; returns the bytes written (0 at the end), or
  /// `nil` after recording `error`.
  public func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
    var filled = 0
    defer { position += Int64(filled) }
    while filled < buffer.count, segmentIndex < segments.count {
      let room = UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])
      guard let count = readSegment(into: room) else { return nil }
      filled += count
      if segmentOffset >= segments[segmentIndex].length {
        segmentIndex += 1
        segmentOffset = 0
      }
    }
    return filled
  }

  /// Moves to absolute byte `offset`; false when it lies outside the body.
  func seek(to offset: Int64) -> Bool {
    guard offset >= 0, offset <= length else { return false }
    var remaining = offset
    segmentIndex = 0
    while segmentIndex < segments.count, remaining >= segments[segmentIndex].length {
      remaining -= segments[segmentIndex].length
      segmentIndex += 1
    }
    segmentOffset = remaining
    position = offset
    return true
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
