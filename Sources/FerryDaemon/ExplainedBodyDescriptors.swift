import FerrySerializer
import FerryWire

/// What `explain` serializes `fd` bodies and parts with: the op's line keeps no descriptor
/// (ops' are closed at once), so each stands for what the client says it is (`files`): a
/// regular file of a known length, named in the curl command, or else a stream of unknown
/// length. Nothing reads them (no descriptor behind them: `-1`, never closed).
struct ExplainedBodyDescriptors: BodyDescriptors {
  var files: [ExplainedFile] = []

  func body(at index: Int, field: String) throws(WireError) -> BodyDescriptor {
    let file = files.indices.contains(index) ? files[index] : ExplainedFile()
    let kind = file.length.map { BodyDescriptor.Kind.file(offset: 0, length: $0) } ?? .stream
    let descriptor = BodyDescriptor(fd: -1, kind: kind, release: { _ in })
    descriptor.displayPath = file.path
    return descriptor
  }
}
