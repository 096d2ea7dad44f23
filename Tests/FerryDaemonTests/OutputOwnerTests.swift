import FerryLoop
import Glibc
import Testing

@testable import FerryDaemon

/// `OutputOwner`'s rules, table-driven: what a user could do in a directory by itself, as the
/// kernel judges it (issue 26).
struct OutputOwnerTests {
  static func status(uid: uid_t, gid: gid_t, mode: mode_t) -> FileStatus {
    var st = stat()
    st.st_uid = uid
    st.st_gid = gid
    st.st_mode = mode
    return FileStatus(st)
  }

  // Users no group database knows, so only the primary group counts.
  let alice = OutputOwner(uid: 61_001, gid: 61_001)

  @Test(
    arguments: [
      // (directory owner, group, mode, may write)
      (61_001, 61_001, 0o700, true),  // her own
      (61_001, 0, 0o500, false),  // her own, not writable: the owner's bits alone decide
      (61_001, 0, 0o577, false),  // even when others may
      (0, 61_001, 0o770, true),  // her group's
      (0, 61_001, 0o750, false),
      (0, 0, 0o1777, true),  // /tmp
      (0, 0, 0o755, false),
      (0, 0, 0o773, true),
      (0, 0, 0o772, false),  // no search permission
    ] as [(UInt32, UInt32, Int, Bool)])
  func mayWriteFollowsTheModeBitsOfItsClass(_ owner: UInt32, _ group: UInt32, _ mode: Int, _ may: Bool) {
    let dir = Self.status(uid: owner, gid: group, mode: S_IFDIR | mode_t(mode))
    #expect(alice.mayWrite(in: dir) == may)
  }

  @Test func inAStickyDirectoryOnlyTheFilesOrTheDirectorysOwnerMayReplaceIt() {
    let tmp = Self.status(uid: 0, gid: 0, mode: S_IFDIR | 0o1777)
    let hers = Self.status(uid: 61_001, gid: 61_001, mode: S_IFREG | 0o600)
    let bobs = Self.status(uid: 61_002, gid: 61_002, mode: S_IFREG | 0o644)
    #expect(alice.mayReplace(hers, in: tmp))
    #expect(!alice.mayReplace(bobs, in: tmp))
    // Her own sticky directory: she may replace anything in it.
    let own = Self.status(uid: 61_001, gid: 61_001, mode: S_IFDIR | 0o1777)
    #expect(alice.mayReplace(bobs, in: own))
    // Without the sticky bit, write permission on the directory is enough.
    let open = Self.status(uid: 0, gid: 0, mode: S_IFDIR | 0o777)
    #expect(alice.mayReplace(bobs, in: open))
    // Root may do anything.
    #expect(OutputOwner(uid: 0, gid: 0).mayReplace(bobs, in: tmp))
    #expect(OutputOwner(uid: 0, gid: 0).mayWrite(in: Self.status(uid: 5, gid: 5, mode: S_IFDIR | 0o500)))
  }
}
