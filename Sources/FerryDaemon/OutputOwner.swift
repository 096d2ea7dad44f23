import FerryLoop

/// The user a job writes its `output` for (its client's SO_PEERCRED user), and what that user
/// could do in a directory by itself.
///
/// A file the daemon writes for a client is the client's (`fchown` when the daemon is root),
/// mode 0600, and never replaces a file the client could not have replaced itself: the
/// directory must be writable by the client (owner, group or other bits, as the kernel
/// judges them; ACLs are not read), and in a sticky directory only the file's owner or the
/// directory's may replace it (docs/RELIABILITY.md, issue 26).
public struct OutputOwner: Sendable, Equatable {
  public var uid: UInt32
  public var gid: UInt32

  public init(uid: UInt32, gid: UInt32) {
    self.uid = uid
    self.gid = gid
  }

  /// The owner of a recovered job's files: its user, with the primary group the user database
  /// names (the uid's number when none does; with mode 0600 the group gets no access anyway).
  public init(uid: UInt32) {
    self.init(uid: uid, gid: SystemCall.user(uid)?.gid ?? uid)
  }

  /// Whether this daemon can make a file this user's: it is root (`fchown`) or this user.
  public var canBeGivenFiles: Bool { SystemCall.effectiveUserID == 0 || SystemCall.effectiveUserID == uid }

  /// Whether a file the daemon creates must be handed over with `fchown`: only root can, and
  /// a daemon running as the client's user made it theirs already (whatever its group).
  var needsHandOver: Bool {
    SystemCall.effectiveUserID == 0 && (uid != 0 || gid != SystemCall.effectiveGroupID)
  }

  /// Whether the user may create, rename and remove names in a directory of status `dir`.
  func mayWrite(in dir: FileStatus) -> Bool {
    if uid == 0 { return true }
    let mode = dir.permissions
    if dir.uid == uid { return mode & 0o300 == 0o300 }
    if dir.gid == gid || groups().contains(dir.gid) { return mode & 0o030 == 0o030 }
    return mode & 0o003 == 0o003
  }

  /// Whether the user may replace (or remove) the file of status `file` in the directory of
  /// status `dir`: write permission there, and in a sticky directory own the file or the
  /// directory (`unlink(2)`, EPERM).
  func mayReplace(_ file: FileStatus, in dir: FileStatus) -> Bool {
    guard mayWrite(in: dir) else { return false }
    if uid == 0 || !dir.isSticky { return true }
    return file.uid == uid || dir.uid == uid
  }

  /// The user's supplementary groups (the group database's, as at login); read only when the
  /// directory's group is neither the user's primary one nor irrelevant.
  private func groups() -> [UInt32] {
    PeerPolicy.supplementaryGroups(of: uid, primary: gid)
  }
}

extension PeerCredentials {
  /// The owner of the files this peer's jobs write.
  var outputOwner: OutputOwner { OutputOwner(uid: uid, gid: gid) }
}
