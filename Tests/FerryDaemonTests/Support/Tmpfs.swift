import Glibc

/// A small tmpfs mounted for one test (we run as root in CI); unmounted when released, lazily
/// (`umount -l`), since an in-process daemon may still hold files in it.
final class Tmpfs {
  let path: String

  init(sizeKiB: Int) throws {
    path = Paths.tempDirectory("tmpfs")
    let (status, text) = try run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(sizeKiB)k", "tmpfs", path])
    guard status == 0 else { throw TestFailure("mount tmpfs: \(text)") }
  }

  deinit {
    _ = try? run("/bin/umount", ["-l", path])
    rmdir(path)
  }

  /// Whether this machine lets the tests mount a tmpfs (root, and a container that allows it).
  static let canMount: Bool = (try? Tmpfs(sizeKiB: 64)) != nil
}
