import FerryLoop
import FerrySession
import FerryWire

/// Streams a response body to `<path>.part` and renames it to `path` only when the response is
/// accepted; a rejected or failed transfer removes the partial file (unless resuming).
///
/// The file's directory is opened once and everything after goes through that descriptor
/// (`openat`, `renameat`, `unlinkat`, with `O_NOFOLLOW`): a directory on the path swapped for a
/// symlink after the job was accepted cannot redirect the write. With `writeRoots`, the opened
/// directory itself must lie under one (checked on open and again before the rename).
///
/// Writes are plain `write(2)` on the loop thread: page-cache writes of one curl buffer at a time
/// are short and bounded. Every call that can be interrupted goes through FerryLoop's
/// `SystemCall` funnel (EINTR retried, EBADF and EFAULT trap: the descriptors are this
/// object's own); `close(2)` is never retried (Linux releases the descriptor even on EINTR).
public final class OutputFile {
  public let path: String
  public var partPath: String { path + ".part" }
  let name: String
  let directory: Int32
  private let writeRoots: [String]?
  /// The user the file is for: its files are theirs, and it replaces only what they could.
  let owner: OutputOwner?
  /// Where the validator (ETag or Last-Modified) of the response that began the partial file
  /// is kept, for the `If-Range` of the next resume.
  public var validatorPath: String { Self.validatorPath(for: path) }
  private var fd: Int32
  private var isOpen = true
  private var isDirectoryOpen = true
  /// What was at `path` when the job was accepted; the rename never replaces a file that
  /// appeared, or was replaced, since.
  private let baseline: Baseline?
  /// For tests: runs between the look at `path` and the rename, where another writer could
  /// slip a file in; nil in the daemon.
  var beforeRename: (() -> Void)?

  /// The file at an output's path, when its job was accepted.
  public enum Baseline: Sendable, Equatable {
    case absent
    case file(device: UInt64, inode: UInt64)

    /// What is at `path` now (a symlink is itself, not followed).
    public init(of path: String) {
      self.init(SystemCall.status(ofPath: path, followingLinks: false))
    }

    /// What is at `name` in `directory` now.
    init(at directory: Int32, _ name: String) {
      self.init(SystemCall.status(in: directory, name))
    }

    private init(_ status: Result<FileStatus, Errno>) {
      guard case .success(let st) = status else {
        self = .absent
        return
      }
      self = .file(device: st.device, inode: st.inode)
    }
  }
  /// Bytes written by this transfer.
  public private(set) var written: Int64 = 0
  /// Bytes that were already in the partial file when the transfer resumed from it.
  public let resumedFrom: Int64

  /// Opens `<path>.part` for `owner` (the client's user; nil: the daemon's): truncated, or
  /// appended to when `resume` is set and it exists (`OutputFile+Owner`).
  public init(
    path: String, resume: Bool, writeRoots: [String]? = nil, baseline: Baseline? = nil,
    owner: OutputOwner? = nil
  ) throws(WireError) {
    self.path = path
    self.writeRoots = writeRoots
    self.baseline = baseline
    self.owner = owner
    let name = FileRoots.lastComponent(path)
    self.name = name
    let dirPath = FileRoots.directoryOf(path) ?? "."
    let directory: Int32
    switch SystemCall.open(dirPath, [.directory, .closeOnExec]) {
    case .success(let opened): directory = opened
    case .failure(let error):
      if error == .noSuchFile || error == .notDirectory {
        throw WireError(.outputFailed, "the directory \(dirPath) does not exist", field: "output")
      }
      throw WireError(.outputFailed, "cannot open \(dirPath): \(error)", field: "output")
    }
    let opened: (fd: Int32, size: Int64)
    do throws(WireError) {
      if let writeRoots {
        try FileRoots.checkOpened(directory, path: path, within: writeRoots, what: "write_roots")
      }
      // Nothing is created where the client could not create it, nor written for a target
      // it could not replace (checked again at the rename).
      try Self.checkMayReplace(at: directory, name, path: path, owner: owner)
      opened = try Self.openPart(in: directory, name, path: path + ".part", resume: resume, owner: owner)
    } catch {
      SystemCall.close(directory)
      var e = error
      e.field = "output"
      throw e
    }
    self.directory = directory
    self.fd = opened.fd
    resumedFrom = opened.size
  }

  /// Starts the file over (the server ignored our Range and sent the whole body).
  public func restart() throws(WireError) {
    if case .failure(let error) = SystemCall.truncate(fd) {
      throw WireError(.outputFailed, "cannot truncate \(partPath): \(error)")
    }
    written = 0
  }

  /// Appends a chunk of body.
  public func write(_ chunk: UnsafeRawBufferPointer) throws(WireError) {
    var offset = 0
    while offset < chunk.count {
      switch SystemCall.write(fd, UnsafeRawBufferPointer(rebasing: chunk[offset...])) {
      case .success(let n) where n > 0: offset += n
      case .success: throw WireError(.outputFailed, "cannot write \(partPath): nothing was written")
      case .failure(let error): throw WireError(.outputFailed, "cannot write \(partPath): \(error)")
      }
    }
    written += Int64(chunk.count)
  }

  /// Removes `<path>.part` and its validator: the partial file proved not to be a prefix of
  /// the server's file.
  /// Only `owner`'s own files go: another user's stay, as the client could not remove them.
  public static func removePartial(for path: String, owner: OutputOwner?) {
    for file in [path + ".part", validatorPath(for: path)] {
      if case .success(let st) = SystemCall.status(ofPath: file, followingLinks: false),
        st.uid == expectedUID(owner)
      {
        _ = SystemCall.unlink(file)
      }
    }
  }

  /// `<path>.part.validator`.
  public static func validatorPath(for path: String) -> String { path + ".part.validator" }

  /// The validator stored with `<path>.part`, or nil when there is none (or it is not a small
  /// regular file: a planted symlink is not followed).
  /// A validator file of another user than `owner` is not read.
  public static func storedValidator(for path: String, owner: OutputOwner?) -> String? {
    let opened = SystemCall.open(validatorPath(for: path), [.closeOnExec, .noFollow, .nonBlocking])
    guard case .success(let fd) = opened else { return nil }
    defer { SystemCall.close(fd) }
    guard case .success(let st) = SystemCall.status(of: fd), st.kind == .regular,
      st.size > 0, st.size <= maxValidatorBytes, st.uid == expectedUID(owner)
    else { return nil }
    var bytes = [UInt8](repeating: 0, count: Int(st.size))
    let read = bytes.withUnsafeMutableBytes { SystemCall.read(from: fd, into: $0) }
    guard case .success(let n) = read, n == bytes.count else { return nil }
    return validatorText(bytes[...])
  }

  /// A stored validator is at most this long.
  static let maxValidatorBytes = 1024

  /// `bytes` as a validator: UTF-8 without control characters, else nil.
  static func validatorText(_ bytes: ArraySlice<UInt8>) -> String? {
    guard let text = String(validating: bytes, as: UTF8.self),
      !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
    else { return nil }
    return text
  }

  /// Records `validator` as the one the partial file was begun with; nil removes any stored
  /// one (a response without a usable validator cannot be resumed safely with `If-Range`).
  public func storeValidator(_ validator: String?) {
    // Through the output's directory, like the partial file itself.
    let vname = name + ".part.validator"
    removeOwn(vname)
    guard let validator else { return }
    let flags: OpenFlags = [.writeOnly, .create, .exclusive, .closeOnExec, .noFollow, .nonBlocking]
    let opened = SystemCall.open(in: directory, vname, flags, permissions: 0o600)
    guard case .success(let fd) = opened else { return }
    guard Self.handOver(fd, to: owner) == nil else {
      SystemCall.close(fd)
      _ = SystemCall.unlink(in: directory, vname)
      return
    }
    let bytes = Array(validator.utf8)
    let written = bytes.withUnsafeBytes { SystemCall.write(fd, $0) }
    SystemCall.close(fd)
    if written != .success(bytes.count) { _ = SystemCall.unlink(in: directory, vname) }
  }

  /// Closes and renames the partial file into place, in the directory opened at the start;
  /// returns the file's size.
  public func commit() throws(WireError) -> Int64 {
    let total = resumedFrom + written
    closeFile()
    defer { closeDirectory() }
    if let writeRoots {
      // The directory itself may have been moved out of the roots since it was opened.
      do throws(WireError) {
        try FileRoots.checkOpened(directory, path: path, within: writeRoots, what: "write_roots")
      } catch {
        removeOwn(name + ".part")
        throw error
      }
    }
    removeOwn(name + ".part.validator")
    do throws(WireError) {
      try moveIntoPlace()
    } catch {
      removeOwn(name + ".part")
      throw error
    }
    return total
  }

  /// Renames `<name>.part` to `name` without ever replacing a file that appeared at `name`, or
  /// replaced the one there, after the job was accepted (its `baseline`), and without a window
  /// between that check and the rename: when nothing was there, RENAME_NOREPLACE refuses any
  /// newcomer; when the baseline file is there, RENAME_EXCHANGE swaps it out, and if what came
  /// out is not the baseline after all, swaps it back (the other job's file is never lost).
  func moveIntoPlace() throws(WireError) {
    let part = name + ".part"
    let written = WireError(
      .outputFailed, "\(path) was written by someone else while this job ran; it was not replaced")
    // Never a file the client could not have replaced itself; a file that appears after
    // this look is never replaced (RENAME_NOREPLACE), one swapped in is swapped back.
    try Self.checkMayReplace(at: directory, name, path: path, owner: owner)
    guard let baseline else { return try plainRename() }
    let now = Baseline(at: directory, name)
    beforeRename?()
    if now == .absent {
      switch SystemCall.rename(in: directory, part, to: directory, name, how: .noReplace) {
      case .success: return
      case .failure(let e) where e == .fileExists: throw written
      case .failure(let e) where e == .invalidArgument || e == .notImplemented: return try plainRename()
      case .failure(let e): throw WireError(.outputFailed, "cannot rename \(partPath) to \(path): \(e)")
      }
    }
    guard now == baseline else { throw written }
    switch SystemCall.rename(in: directory, part, to: directory, name, how: .exchange) {
    case .success: break
    case .failure(let e) where e == .invalidArgument || e == .notImplemented: return try plainRename()
    // Gone between the check and the swap: nothing is replaced by a new name.
    case .failure(let e) where e == .noSuchFile: return try moveIntoPlace()
    case .failure(let e): throw WireError(.outputFailed, "cannot rename \(partPath) to \(path): \(e)")
    }
    // `part` now names what was at `name`.
    if Baseline(at: directory, part) == baseline {
      _ = SystemCall.unlink(in: directory, part)
      return
    }
    _ = SystemCall.rename(in: directory, part, to: directory, name, how: .exchange)
    throw written
  }

  private func plainRename() throws(WireError) {
    if case .failure(let error) = SystemCall.rename(in: directory, name + ".part", to: directory, name) {
      throw WireError(.outputFailed, "cannot rename \(partPath) to \(path): \(error)")
    }
  }

  /// Closes and removes the partial file, or keeps it for a later resume.
  public func abandon(keepPartial: Bool) {
    closeFile()
    if !keepPartial {
      removeOwn(name + ".part")
      removeOwn(name + ".part.validator")
    }
    closeDirectory()
  }

  private func closeFile() {
    if isOpen { SystemCall.close(fd) }
    isOpen = false
  }

  private func closeDirectory() {
    if isDirectoryOpen { SystemCall.close(directory) }
    isDirectoryOpen = false
  }

  deinit {
    closeFile()
    closeDirectory()
  }
}
