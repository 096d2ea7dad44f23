import FerryLoop
import FerrySerializer
import FerrySession
import FerryWire

#if canImport(Glibc)
  import Glibc
#endif

/// Sizes of files named by jobs, from stat(2), for the serializer's body plans; with
/// `readRoots`, only files that resolve (symlinks followed) under one of them, never one of
/// `protected`; with `requiresRoots` and no roots, none at all.
public struct SystemFileProbe: FileProbe {
  public var readRoots: [String]?
  public var protected: [String]
  /// Refuse every file when no `read_roots` are configured (what jobs get).
  public var requiresRoots: Bool

  public init(readRoots: [String]? = nil, protected: [String] = [], requiresRoots: Bool = false) {
    self.readRoots = readRoots
    self.protected = protected
    self.requiresRoots = requiresRoots
  }

  public func size(ofFileAt path: String) throws(WireError) -> Int64 {
    if let readRoots {
      try FileRoots.check(path, within: readRoots, what: "read_roots", protected: protected)
    } else if requiresRoots {
      throw WireError(.fileNotAllowed, "\(path): no files.read_roots are configured, so jobs read no files")
    }
    var st = stat()
    guard stat(path, &st) == 0 else {
      throw WireError(.fileUnreadable, "cannot read \(path): \(Errno.current)")
    }
    guard (st.st_mode & S_IFMT) == S_IFREG else {
      throw WireError(.fileUnreadable, "\(path) is not a regular file")
    }
    guard access(path, R_OK) == 0 else {
      throw WireError(.fileUnreadable, "cannot read \(path): \(Errno.current)")
    }
    return Int64(st.st_size)
  }
}
