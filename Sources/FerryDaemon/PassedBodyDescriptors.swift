import FerryLoop
import FerrySerializer
import FerryWire

/// The descriptors of one job line that its body and parts read from (`body: {"fd": N}`,
/// parts' `fd`), taken from the line (`Daemon.takeDescriptor`): each becomes its body plan's
/// (`BodyDescriptor`, closed when the job is gone); one the serializer never asks for is
/// closed with this object.
///
/// A descriptor is the client's permission: `read_roots` do not apply. It must be open for
/// reading and be a regular file (its size from its current offset is the Content-Length, read
/// with `pread`, so it rewinds), or a pipe, socket or character device (streamed; set
/// O_NONBLOCK, which the sender's copy shares). Anything else is `fd_unusable`.
final class PassedBodyDescriptors: BodyDescriptors {
  /// By index, until the serializer asks for them.
  private var taken: [(index: Int, fd: Int32)]

  init(_ taken: [(index: Int, fd: Int32)]) { self.taken = taken }

  deinit {
    for entry in taken { SystemCall.close(entry.fd) }
  }

  /// The indexes `job`'s body and parts read from, each once, in order.
  static func indexes(of job: Job) -> [(index: Int, field: String)] {
    var out: [(index: Int, field: String)] = []
    if case .descriptor(let i) = job.body?.content { out.append((i, "body.fd")) }
    for (n, part) in (job.parts ?? []).enumerated() {
      if case .descriptor(let i) = part.content { out.append((i, "parts.\(n).fd")) }
    }
    return out
  }

  func body(at index: Int, field: String) throws(WireError) -> BodyDescriptor {
    guard let slot = taken.firstIndex(where: { $0.index == index }) else {
      throw WireError(.fdUnusable, "descriptor \(index) serves another field already", field: field)
    }
    let fd = taken.remove(at: slot).fd
    do throws(WireError) {
      let kind = try Self.kind(of: fd, index: index, field: field)
      return BodyDescriptor(fd: fd, kind: kind, release: { SystemCall.close($0) })
    } catch {
      SystemCall.close(fd)
      throw error
    }
  }

  private static func kind(of fd: Int32, index: Int, field: String) throws(WireError) -> BodyDescriptor.Kind {
    func unusable(_ why: String) -> WireError {
      WireError(.fdUnusable, "descriptor \(index) \(why)", field: field)
    }
    let st: FileStatus
    switch SystemCall.status(of: fd, trapsOnBadDescriptor: false) {
    case .success(let value): st = value
    case .failure(let e): throw unusable("cannot be examined: \(e)")
    }
    let flags: OpenFlags
    switch SystemCall.statusFlags(fd, trapsOnBadDescriptor: false) {
    case .success(let value): flags = value
    case .failure(let e): throw unusable("cannot be examined: \(e)")
    }
    guard flags.accessMode != .writeOnly else { throw unusable("is not open for reading") }
    switch st.kind {
    case .regular:
      // A regular file never blocks; what it holds from where it stands is the body.
      switch SystemCall.seek(fd, to: 0, fromCurrent: true, trapsOnBadDescriptor: false) {
      case .success(let offset):
        return .file(offset: offset, length: max(0, st.size - offset))
      case .failure(let e): throw unusable("cannot tell its offset: \(e)")
      }
    case .fifo, .socket, .characterDevice:
      if !flags.contains(.nonBlocking),
        case .failure(let e) = SystemCall.setStatusFlags(
          fd, flags.union(.nonBlocking), trapsOnBadDescriptor: false)
      {
        throw unusable("cannot be made non-blocking: \(e)")
      }
      return .stream
    case .directory: throw unusable("is a directory")
    default: throw unusable("is not a regular file, pipe, socket or character device")
    }
  }
}
