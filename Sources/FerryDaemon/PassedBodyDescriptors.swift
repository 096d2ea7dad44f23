import FerryLoop
import FerrySerializer
import FerryWire

#if canImport(Glibc)
  import Glibc
#endif

/// The descriptors passed with one job line, as request bodies (`body: {"fd": N}`, parts'
/// `fd`): each one used gets checked and duplicated for the body plan, which closes its
/// duplicate when the job is gone. The passed descriptors themselves stay their owner's.
///
/// A descriptor is the client's permission: `read_roots` do not apply. It must be open for
/// reading and be a regular file (its size from its current offset is the Content-Length, read
/// with `pread`, so it rewinds), or a pipe, socket or character device (streamed; set
/// O_NONBLOCK, which the sender's copy shares). Anything else is `fd_unusable`.
struct PassedBodyDescriptors: BodyDescriptors {
  let descriptors: [Int32]

  func body(at index: Int, field: String) throws(WireError) -> BodyDescriptor {
    guard index < descriptors.count else {
      let count = descriptors.count
      throw WireError(
        .fdUnusable, "the line passed \(count) descriptor\(count == 1 ? "" : "s"), none at index \(index)",
        field: field)
    }
    let fd = descriptors[index]
    func unusable(_ why: String) -> WireError {
      WireError(.fdUnusable, "descriptor \(index) \(why)", field: field)
    }
    var st = stat()
    if case .failure(let e) = SystemCall.retrying(trapsOnBadDescriptor: false, { fstat(fd, &st) }) {
      throw unusable("cannot be examined: \(e)")
    }
    let flags: Int32
    switch SystemCall.retrying(trapsOnBadDescriptor: false, { fcntl(fd, F_GETFL) }) {
    case .success(let value): flags = value
    case .failure(let e): throw unusable("cannot be examined: \(e)")
    }
    guard flags & O_ACCMODE != O_WRONLY else { throw unusable("is not open for reading") }
    let kind: BodyDescriptor.Kind
    switch st.st_mode & S_IFMT {
    case S_IFREG:
      // A regular file never blocks; what it holds from where it stands is the body.
      switch SystemCall.retrying(trapsOnBadDescriptor: false, { lseek(fd, 0, SEEK_CUR) }) {
      case .success(let offset): kind = .file(offset: Int64(offset), length: max(0, Int64(st.st_size) - Int64(offset)))
      case .failure(let e): throw unusable("cannot tell its offset: \(e)")
      }
    case S_IFIFO, S_IFSOCK, S_IFCHR:
      if flags & O_NONBLOCK == 0,
        case .failure(let e) = SystemCall.retrying(
          trapsOnBadDescriptor: false, { fcntl(fd, F_SETFL, flags | O_NONBLOCK) })
      {
        throw unusable("cannot be made non-blocking: \(e)")
      }
      kind = .stream
    case S_IFDIR: throw unusable("is a directory")
    default: throw unusable("is not a regular file, pipe, socket or character device")
    }
    switch SystemCall.retrying(trapsOnBadDescriptor: false, { fcntl(fd, F_DUPFD_CLOEXEC, 0) }) {
    case .success(let copy): return BodyDescriptor(fd: copy, kind: kind, release: { _ = close($0) })
    case .failure(let e): throw WireError(.overloaded, "cannot duplicate descriptor \(index): \(e)", field: field)
    }
  }
}
