import FerryLoop
import FerryWire

/// Writes a response body into a descriptor the client passed with its job (`output_fd`): its
/// own file, pipe, socket or terminal, with its own permissions (no roots apply).
///
/// The loop never waits on it, and never relies on the descriptor's O_NONBLOCK for that: a
/// passed descriptor shares its open file description, file status flags included, with the
/// sender, who may clear O_NONBLOCK at any time. So each kind is written in a way whose
/// non-blocking the sender cannot undo:
/// - a regular file: plain `write(2)`, as `OutputFile` (page cache, bounded per chunk);
/// - a socket: `send(MSG_DONTWAIT | MSG_NOSIGNAL)`, non-blocking per call;
/// - a pipe or FIFO: the bytes go into a pipe of the daemon's own (non-blocking), and from it
///   into the client's with `splice(SPLICE_F_NONBLOCK)`, which never waits for room whatever
///   the client's pipe's flags; what its pipe does not take stays in ours;
/// - a terminal (or /dev/null, /dev/zero, /dev/full; other devices are `fd_unusable`): the
///   kernel has no per-call way. A pseudo-terminal slave or a memory device the daemon's user
///   may open is reopened through /proc/self/fd, non-blocking: a description of the daemon's
///   own, whose flags nobody else shares or changes. Otherwise (another user's terminal)
///   O_NONBLOCK is set on the shared description (checked, and set again, before every write;
///   the original flags are put back at the end), and a sender racing to clear it between the
///   check and the write could make one write wait for its terminal: the one gap left
///   (docs/ARCHITECTURE.md).
///
/// What the descriptor does not take at once is kept (one chunk at most: the transfer is paused
/// until it drains, `isBlocked`) and written when it is writable again (an `IOWatch`); then
/// `onDrained` runs. A failure while draining goes to `onFailure`. Nothing is allocated per
/// chunk: the kept bytes reuse one buffer.
@MainActor final class DescriptorOutput {
  enum Kind: String, Sendable {
    case file
    case pipe
    case socket
    case terminal
  }

  let kind: Kind
  private(set) var fd: Int32
  /// `resume`: the descriptor is a regular file whose bytes are a partial download to continue
  /// (see `DescriptorOutput+Resume`).
  let resumes: Bool
  /// `validator_fd`: where the validator of the response that began the file is kept.
  private(set) var validatorFD: Int32?
  /// Bytes the file held already when this transfer continued it.
  var resumedFrom: Int64 = 0
  private let loop: EventLoop
  /// Body bytes taken from the transfer (all of them written once it is not blocked).
  private(set) var written: Int64 = 0
  /// Bytes taken but not yet written (from `pendingStart`).
  private var pending: [UInt8] = []
  private var pendingStart = 0
  /// The pipe kind's own pipe, and how many bytes wait in it.
  private var staging: (read: Int32, write: Int32)?
  private var staged = 0
  private var watch: IOWatch?
  /// The terminal's flags before O_NONBLOCK was set, to put back.
  private var originalFlags: OpenFlags?
  /// The terminal was reopened (`ownDescription`): its flags are the daemon's, set once.
  private var ownsFlags = false
  var onDrained: (() -> Void)?
  var onFailure: ((WireError) -> Void)?

  /// True while bytes taken wait for the descriptor: take no more until `onDrained`.
  var isBlocked: Bool { pendingStart < pending.count || staged > 0 }

  /// Takes ownership of `fd` and `validatorFD` (closed here when they cannot serve:
  /// `fd_unusable`). With `resume`, `fd` must be a regular file (its bytes are continued).
  init(fd: Int32, loop: EventLoop, resume: Bool = false, validatorFD: Int32? = nil) throws(WireError) {
    self.fd = fd
    self.loop = loop
    self.resumes = resume
    self.validatorFD = validatorFD
    let status = SystemCall.status(of: fd, trapsOnBadDescriptor: false)
    var (kind, problem) = Self.kind(of: fd, status)
    let flags = try? SystemCall.statusFlags(fd, trapsOnBadDescriptor: false).get()
    if problem == nil { problem = Self.accessProblem(flags) }
    if problem == nil, resume, let kind, kind != .file {
      problem = "is a \(kind.rawValue): resume continues a regular file"
    }
    var validatorProblem: String?
    if problem == nil, let validatorFD { validatorProblem = Self.validatorProblem(validatorFD) }
    if problem == nil, kind == .pipe {
      switch SystemCall.nonBlockingPipe() {
      case .success(let pipe): staging = pipe
      case .failure(let error): problem = "cannot be served: pipe: \(error)"
      }
    }
    guard let kind, problem == nil, validatorProblem == nil else {
      SystemCall.close(fd)
      if let validatorFD { SystemCall.close(validatorFD) }
      if let validatorProblem {
        throw WireError(
          .fdUnusable, "validator_fd: the descriptor \(validatorProblem)", field: "validator_fd")
      }
      throw WireError(.fdUnusable, "output_fd: the descriptor \(problem ?? "")", field: "output_fd")
    }
    self.kind = kind
    if kind == .terminal, case .success(let st) = status, let own = Self.ownDescription(of: fd, device: st) {
      // Its own open file description: O_NONBLOCK there is the daemon's alone.
      SystemCall.close(fd)
      self.fd = own
      ownsFlags = true
    } else if kind == .terminal, let flags, !flags.contains(.nonBlocking) {
      originalFlags = flags
      _ = SystemCall.setStatusFlags(fd, flags.union(.nonBlocking), trapsOnBadDescriptor: false)
    }
  }

  /// What the descriptor is (from its `fstat`), or why it cannot take a body.
  private static func kind(of fd: Int32, _ status: Result<FileStatus, Errno>) -> (Kind?, String?) {
    switch status {
    case .failure(let error): return (nil, "cannot be examined: \(error)")
    case .success(let st):
      switch st.kind {
      case .regular: return (.file, nil)
      case .fifo: return (.pipe, nil)
      case .socket: return (.socket, nil)
      case .characterDevice:
        // Terminals and the memory devices (/dev/null, /dev/zero, /dev/full: major 1) honour
        // O_NONBLOCK; other drivers need not, and could hold the loop.
        if SystemCall.isTerminal(fd) || st.representedMajor == 1 { return (.terminal, nil) }
        return (nil, "is a device other than a terminal or /dev/null")
      case .directory: return (nil, "is a directory")
      default: return (nil, "is not a regular file, pipe, socket or terminal")
      }
    }
  }

  /// Why a descriptor with these status flags cannot be written, or nil.
  private static func accessProblem(_ flags: OpenFlags?) -> String? {
    guard let flags, !flags.contains(.pathOnly) else { return "is not open for I/O" }
    return flags.accessMode == .readOnly ? "is open read-only" : nil
  }

  /// A new open file description of the terminal or memory device `fd` is, opened non-blocking
  /// through /proc/self/fd, when the daemon's user may open it (the client's own daemon, or
  /// /dev/null): nil otherwise. Only pseudo-terminal slaves (majors 136–143) and the memory
  /// devices (major 1), and only when the opened device is the same one: /dev/tty, /dev/ptmx
  /// or a console reopened would be another terminal (the daemon's, or a new pty).
  private static func ownDescription(of fd: Int32, device: FileStatus) -> Int32? {
    let major = device.representedMajor
    guard major == 1 || (136...143).contains(major) else { return nil }
    let flags: OpenFlags = [.writeOnly, .nonBlocking, .noControllingTerminal, .closeOnExec]
    guard case .success(let own) = SystemCall.open("/proc/self/fd/\(fd)", flags) else { return nil }
    guard case .success(let st) = SystemCall.status(of: own, trapsOnBadDescriptor: false),
      st.kind == .characterDevice, st.representedDevice == device.representedDevice
    else {
      SystemCall.close(own)
      return nil
    }
    return own
  }

  isolated deinit { close() }

  /// Writes `bytes` (or keeps what the descriptor does not take now). Call only when not
  /// `isBlocked`.
  func write(_ bytes: UnsafeRawBufferPointer) throws(WireError) {
    written += Int64(bytes.count)
    let taken = try push(bytes)
    if taken < bytes.count {
      pending.removeAll(keepingCapacity: true)
      pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[taken...]))
      pendingStart = 0
    }
    if isBlocked { waitForRoom() }
  }

  /// Closes the descriptor (the terminal's flags put back) and the staging pipe.
  func close() {
    watch?.cancel()
    watch = nil
    guard fd >= 0 else { return }
    if let originalFlags {
      if case .success(let now) = SystemCall.statusFlags(fd, trapsOnBadDescriptor: false),
        now.contains(.nonBlocking)
      {
        _ = SystemCall.setStatusFlags(fd, originalFlags, trapsOnBadDescriptor: false)
      }
    }
    SystemCall.close(fd)
    fd = -1
    if let validatorFD {
      SystemCall.close(validatorFD)
      self.validatorFD = nil
    }
    if let staging {
      SystemCall.close(staging.read)
      SystemCall.close(staging.write)
      self.staging = nil
    }
    staged = 0
  }

  /// Hands over what the descriptor takes now; returns how many bytes of `bytes` it took.
  private func push(_ bytes: UnsafeRawBufferPointer) throws(WireError) -> Int {
    guard fd >= 0 else { throw Self.failure("the descriptor is closed") }
    switch kind {
    case .pipe: return try pushThroughStaging(bytes)
    case .file, .socket, .terminal:
      return try Self.taken(
        SystemCall.writeLoop(count: bytes.count) { offset in
          directWrite(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
        })
    }
  }

  /// The bytes an outcome took; a failure, or a write that took nothing (which would spin the
  /// loop if written again), is `output_failed`.
  private static func taken(_ outcome: WriteOutcome) throws(WireError) -> Int {
    switch outcome {
    case .taken(let n), .wouldBlock(let n): return n
    case .failed(let error, _): throw failure(error)
    case .stalled: throw failure("the descriptor took no bytes of a write")
    }
  }

  private func directWrite(_ bytes: UnsafeRawBufferPointer) -> Result<Int, Errno> {
    let fd = self.fd
    switch kind {
    case .socket:
      return SystemCall.sendNow(fd, bytes, trapsOnBadDescriptor: false)
    case .terminal:
      // The sender shares the flags (unless reopened): make sure this write cannot wait.
      if !ownsFlags, case .success(let flags) = SystemCall.statusFlags(fd, trapsOnBadDescriptor: false),
        !flags.contains(.nonBlocking)
      {
        _ = SystemCall.setStatusFlags(fd, flags.union(.nonBlocking), trapsOnBadDescriptor: false)
      }
      return SystemCall.write(fd, bytes, trapsOnBadDescriptor: false)
    case .file, .pipe:
      return SystemCall.write(fd, bytes, trapsOnBadDescriptor: false)
    }
  }

  /// The pipe kind: into our pipe, then spliced into the client's, as far as each takes.
  private func pushThroughStaging(_ bytes: UnsafeRawBufferPointer) throws(WireError) -> Int {
    guard let staging else { return 0 }
    var offset = 0
    try flushStaged()
    while staged == 0, offset < bytes.count {
      let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
      // Our pipe is empty here: it takes what it has room for, then that is spliced on.
      let taken = try Self.taken(
        SystemCall.writeLoop(count: rest.count) { done in
          SystemCall.write(staging.write, UnsafeRawBufferPointer(rebasing: rest[done...]))
        })
      offset += taken
      staged += taken
      try flushStaged()
      // An empty pipe of ours that takes nothing would not take more next time round.
      if staged > 0 || taken == 0 { break }
    }
    return offset
  }

  /// Splices what waits in our pipe into the client's, until it is empty or theirs is full.
  private func flushStaged() throws(WireError) {
    guard let staging else { return }
    let fd = self.fd
    let count = staged
    staged -= try Self.taken(
      SystemCall.writeLoop(count: count) { done in
        SystemCall.splice(from: staging.read, to: fd, count: count - done)
      })
  }

  /// Watches for room; the handler writes what is kept.
  private func waitForRoom() {
    if watch == nil {
      watch = IOWatch(loop: loop, fd: fd) { [weak self] _ in self?.drain() }
    }
    watch?.setInterest(.write)
  }

  private func drain() {
    do throws(WireError) {
      if kind == .pipe { try flushStaged() }
      while pendingStart < pending.count, !(kind == .pipe && staged > 0) {
        let start = pendingStart
        let result = pending.withUnsafeBytes { raw in
          Result { () throws(WireError) in try push(UnsafeRawBufferPointer(rebasing: raw[start...])) }
        }
        let taken = try result.get()
        if taken == 0 { break }
        pendingStart += taken
      }
    } catch {
      watch?.setInterest([])
      onFailure?(error)
      return
    }
    guard !isBlocked else { return }
    pending.removeAll(keepingCapacity: true)
    pendingStart = 0
    watch?.setInterest([])
    onDrained?()
  }

  private static func failure(_ error: Errno) -> WireError {
    if error == .brokenPipe || error == .connectionReset {
      return failure("the descriptor's reader went away (\(error))")
    }
    return failure("cannot write to the descriptor: \(error)")
  }

  static func failure(_ message: String) -> WireError {
    WireError(.outputFailed, "output_fd: \(message)", field: "output_fd")
  }
}
