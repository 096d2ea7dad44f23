import FerryLoop
import FerryWire

/// Whose an output's files are, and what they may replace (issue 26): `OutputOwner`'s rules,
/// applied on the output's held directory descriptor.
extension OutputFile {
  /// The uid an output's files have: its owner's, else (no client known) the daemon's.
  static func expectedUID(_ owner: OutputOwner?) -> UInt32 { owner?.uid ?? SystemCall.effectiveUserID }

  /// Refuses (`file_not_allowed`) when `owner` could not create `name` in `directory`, or
  /// could not replace the file there now (looked at without following a symlink).
  static func checkMayReplace(
    at directory: Int32, _ name: String, path: String, owner: OutputOwner?
  ) throws(WireError) {
    guard let owner else { return }
    let dir: FileStatus
    switch SystemCall.status(of: directory) {
    case .success(let found): dir = found
    case .failure(let error):
      throw WireError(.outputFailed, "cannot look at the directory of \(path): \(error)")
    }
    guard owner.mayWrite(in: dir) else {
      throw WireError(
        .fileNotAllowed, "uid \(owner.uid) may not write in the directory of \(path)", field: "output")
    }
    guard case .success(let target) = SystemCall.status(in: directory, name) else { return }
    guard owner.mayReplace(target, in: dir) else {
      throw WireError(
        .fileNotAllowed,
        "\(path) belongs to uid \(target.uid) and uid \(owner.uid) may not replace it (sticky directory)",
        field: "output")
    }
  }

  /// Opens the partial file `part` (`<name>.part` in `directory`) for `owner`: a new one is
  /// created 0600 and handed to the owner; an existing one is continued (`resume`) or started
  /// over only when it is the owner's, since another user's partial file is not the client's
  /// to read or to change. Returns the descriptor and the size it is continued from.
  static func openPart(
    in directory: Int32, _ name: String, path part: String, resume: Bool, owner: OutputOwner?
  ) throws(WireError) -> (fd: Int32, size: Int64) {
    // O_NOFOLLOW: write_roots vetted the output, not `<name>.part`; a symlink planted under
    // that name must not carry the write out of the roots. O_NONBLOCK: a FIFO planted there
    // would block open(2), and the loop with it, until some reader came. O_APPEND: a resumed
    // file is continued at its end, and one started over (`restart`) from 0 after ftruncate.
    let flags: OpenFlags = [.writeOnly, .append, .closeOnExec, .noFollow, .nonBlocking]
    switch SystemCall.open(
      in: directory, name + ".part", flags.union([.create, .exclusive]), permissions: 0o600)
    {
    case .success(let fd):
      if let error = handOver(fd, to: owner) {
        SystemCall.close(fd)
        _ = SystemCall.unlink(in: directory, name + ".part")
        throw WireError(.outputFailed, "cannot give \(part) to uid \(owner?.uid ?? 0): \(error)")
      }
      return (fd, 0)
    case .failure(let error) where error == .fileExists: break
    case .failure(let error): throw WireError(.outputFailed, "cannot open \(part): \(error)")
    }
    let fd: Int32
    switch SystemCall.open(in: directory, name + ".part", flags) {
    case .success(let opened): fd = opened
    case .failure(let error): throw WireError(.outputFailed, "cannot open \(part): \(error)")
    }
    guard case .success(let st) = SystemCall.status(of: fd), st.kind == .regular else {
      SystemCall.close(fd)
      throw WireError(.outputFailed, "\(part) is not a regular file")
    }
    guard st.uid == expectedUID(owner) else {
      SystemCall.close(fd)
      throw WireError(
        .outputFailed, "\(part) belongs to uid \(st.uid); another user's partial file is not continued")
    }
    _ = SystemCall.changeMode(fd, permissions: 0o600)
    if !resume, case .failure(let error) = SystemCall.truncate(fd) {
      SystemCall.close(fd)
      throw WireError(.outputFailed, "cannot truncate \(part): \(error)")
    }
    return (fd, resume ? st.size : 0)
  }

  /// Makes the new file `fd` the owner's (nothing to do when the daemon is that user); the
  /// error when it could not.
  static func handOver(_ fd: Int32, to owner: OutputOwner?) -> Errno? {
    guard let owner, owner.needsHandOver else { return nil }
    if case .failure(let error) = SystemCall.changeOwner(fd, uid: owner.uid, gid: owner.gid) { return error }
    return nil
  }

  /// Removes `entry` from the output's directory when it is the owner's: another user's file
  /// there stays, as the client could not have removed it.
  func removeOwn(_ entry: String) {
    guard case .success(let st) = SystemCall.status(in: directory, entry), st.uid == Self.expectedUID(owner)
    else { return }
    _ = SystemCall.unlink(in: directory, entry)
  }

  /// The size of `<path>.part` to resume from: 0 when there is none, or it is not a regular
  /// file of `owner`'s (its size is not told to a server).
  static func partialSize(for path: String, owner: OutputOwner?) -> Int64 {
    guard case .success(let st) = SystemCall.status(ofPath: path + ".part", followingLinks: false),
      st.kind == .regular, st.uid == expectedUID(owner)
    else { return 0 }
    return st.size
  }
}
