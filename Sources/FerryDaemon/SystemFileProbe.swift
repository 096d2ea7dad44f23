import FerrySerializer
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

/// `read_roots` and `write_roots`: a path is allowed when its real path (symlinks and `..`
/// resolved) lies inside one of the roots' real paths.
public enum FileRoots {
  /// Throws `file_not_allowed` unless `path` resolves under a root. For a file that does not
  /// exist yet (an output), its directory is resolved instead.
  public static func check(_ path: String, within roots: [String], what: String) throws(WireError) {
    let resolved =
      realPath(path) ?? directoryOf(path).flatMap(realPath).map { $0 + "/" + lastComponent(path) }
    guard let resolved else {
      throw WireError(.fileNotAllowed, "\(path) cannot be resolved")
    }
    for root in roots {
      guard let r = realPath(root) else { continue }
      let prefix = r.hasSuffix("/") ? r : r + "/"
      if resolved == r || resolved.hasPrefix(prefix) { return }
    }
    throw WireError(.fileNotAllowed, "\(path) is outside \(what)")
  }

  static func realPath(_ path: String) -> String? {
    guard let p = realpath(path, nil) else { return nil }
    defer { free(p) }
    return String(cString: p)
  }

  /// The directory part of `path` (`/` for `/x`), or nil when it has no `/`.
  static func directoryOf(_ path: String) -> String? {
    guard let slash = path.lastIndex(of: "/") else { return nil }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  static func lastComponent(_ path: String) -> String {
    path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
  }
}
