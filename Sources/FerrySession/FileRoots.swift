import FerryWire

#if canImport(Glibc)
  import Glibc
#endif

/// `read_roots` and `write_roots`: a path is allowed when its real path (symlinks and `..`
/// resolved) lies inside one of the roots' real paths.
public enum FileRoots {
  /// Throws `file_not_allowed` unless `path` resolves under a root. For a file that does not
  /// exist yet (an output), its directory is resolved instead.
  ///
  /// `protected` paths (the daemon's config, drop-ins and credentials, files or directories)
  /// are refused whatever the roots say.
  public static func check(
    _ path: String, within roots: [String], what: String, protected: [String] = []
  ) throws(WireError) {
    let resolved =
      realPath(path) ?? directoryOf(path).flatMap(realPath).map { $0 + "/" + lastComponent(path) }
    guard let resolved else { throw unresolvable(path, what: what) }
    try refuseProtected(resolved, path: path, protected)
    try require(resolved, path: path, within: roots, what: what)
  }

  /// Where an `output` goes: the real path of its directory, which must be a write root or lie
  /// inside one (so `<path>.part` is inside too), and its file name, which must name a file
  /// (not `.`, `..`, empty, or an existing directory). Returns `directory/name`, the key two
  /// jobs writing the same file share.
  public static func outputTarget(_ path: String, within roots: [String], protected: [String] = [])
    throws(WireError) -> String
  {
    let name = lastComponent(path)
    guard !name.isEmpty, name != ".", name != "..", let directory = directoryOf(path) else {
      throw WireError(.invalidJob, "output must name a file, not a directory: \(path)", field: "output")
    }
    guard let resolvedDirectory = realPath(directory) else {
      var e = unresolvable(path, what: "write_roots")
      e.field = "output"
      throw e
    }
    var st = stat()
    if lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR {
      throw WireError(.invalidJob, "output must name a file, not a directory: \(path)", field: "output")
    }
    let target = (resolvedDirectory == "/" ? "" : resolvedDirectory) + "/" + name
    do throws(WireError) {
      // An existing symlink is replaced by the rename, not written through; one that points
      // out of the roots is still refused, as it always was.
      if lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFLNK {
        guard let linked = realPath(path) else {
          throw WireError(.fileNotAllowed, "\(path) cannot be resolved")
        }
        try refuseProtected(linked, path: path, protected)
        try require(linked, path: path, within: roots, what: "write_roots")
      }
      try refuseProtected(target, path: path, protected)
      try refuseProtected(target + ".part", path: path, protected)
      try require(resolvedDirectory, path: path, within: roots, what: "write_roots")
    } catch {
      var e = error
      e.field = "output"
      throw e
    }
    return target
  }

  /// Throws `file_not_allowed` when `resolved` is, or lies under, one of `protected`.
  static func refuseProtected(_ resolved: String, path: String, _ protected: [String]) throws(WireError) {
    for p in protected {
      let r = realPath(p) ?? p
      if resolved == r || resolved.hasPrefix(r.hasSuffix("/") ? r : r + "/") {
        throw WireError(.fileNotAllowed, "\(path) is one of the daemon's own files (config or credentials)")
      }
    }
  }

  /// Throws `file_not_allowed` unless the file open on `fd` lies under a root.
  ///
  /// The check by name when a job is accepted leaves a gap: while the job waits, someone who
  /// can write inside a root can swap the file, or a directory on its path, for a symlink to a
  /// file outside. Checking what was actually opened (its path from `/proc/self/fd`) closes it.
  public static func checkOpened(
    _ fd: Int32, path: String, within roots: [String], what: String, protected: [String] = []
  ) throws(WireError) {
    guard let resolved = realPath("/proc/self/fd/\(fd)") else {
      throw WireError(.fileNotAllowed, "\(path) cannot be resolved")
    }
    try refuseProtected(resolved, path: path, protected)
    try require(resolved, path: path, within: roots, what: what)
  }

  /// Throws `file_not_allowed` unless the real path `resolved` (of `path`) is a root or lies
  /// inside one.
  private static func require(_ resolved: String, path: String, within roots: [String], what: String)
    throws(WireError)
  {
    for root in roots {
      guard let r = realPath(root) else { continue }
      let prefix = r.hasSuffix("/") ? r : r + "/"
      if resolved == r || resolved.hasPrefix(prefix) { return }
    }
    throw WireError(.fileNotAllowed, "\(path) is outside \(what)")
  }

  /// Why `path` could not be checked: a missing file or directory is named as such, with the
  /// code it gets without roots too (`file_unreadable` for a file to send, `output_failed`
  /// for an output's directory).
  private static func unresolvable(_ path: String, what: String) -> WireError {
    let code = errno
    guard code == ENOENT || code == ENOTDIR else {
      return WireError(
        .fileNotAllowed, "\(path) cannot be checked against \(what): \(String(cString: strerror(code)))")
    }
    if what == "write_roots", let directory = directoryOf(path) {
      return WireError(.outputFailed, "the directory \(directory) does not exist")
    }
    return WireError(.fileUnreadable, "\(path) does not exist")
  }

  public static func realPath(_ path: String) -> String? {
    guard let p = realpath(path, nil) else { return nil }
    defer { free(p) }
    return String(cString: p)
  }

  /// The directory part of `path` (`/` for `/x`), or nil when it has no `/`.
  public static func directoryOf(_ path: String) -> String? {
    guard let slash = path.lastIndex(of: "/") else { return nil }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  public static func lastComponent(_ path: String) -> String {
    path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
  }
}
