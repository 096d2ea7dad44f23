import FerryLoop
import FerrySerializer
import FerrySession
import FerryWire

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
    let status: FileStatus
    switch SystemCall.status(ofPath: path) {
    case .success(let found): status = found
    case .failure(let error): throw WireError(.fileUnreadable, "cannot read \(path): \(error)")
    }
    guard status.kind == .regular else {
      throw WireError(.fileUnreadable, "\(path) is not a regular file")
    }
    if case .failure(let error) = SystemCall.checkReadable(path) {
      throw WireError(.fileUnreadable, "cannot read \(path): \(error)")
    }
    return status.size
  }
}
