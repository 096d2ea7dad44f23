import FerrySerializer
import FerrySession
import FerryWire

#if canImport(Glibc)
  import Glibc
#endif

/// Sizes of files named by jobs, from stat(2), for the serializer's body plans; with
/// `readRoots`, only files that resolve (symlinks followed) under one of them.
public struct SystemFileProbe: FileProbe {
  public var readRoots: [String]?

  public init(readRoots: [String]? = nil) { self.readRoots = readRoots }

  public func size(ofFileAt path: String) throws(WireError) -> Int64 {
    if let readRoots { try FileRoots.check(path, within: readRoots, what: "read_roots") }
    var st = stat()
    guard stat(path, &st) == 0 else {
      throw WireError(.fileUnreadable, "cannot read \(path): \(Syscalls.describe(errno))")
    }
    guard (st.st_mode & S_IFMT) == S_IFREG else {
      throw WireError(.fileUnreadable, "\(path) is not a regular file")
    }
    guard access(path, R_OK) == 0 else {
      throw WireError(.fileUnreadable, "cannot read \(path): \(Syscalls.describe(errno))")
    }
    return Int64(st.st_size)
  }
}
