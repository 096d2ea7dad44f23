import FerrySerializer
import FerryWire

/// What `explain` serializes `fd` bodies and parts with: the op's line keeps no descriptor
/// (ops' are closed at once), so each stands for a stream of unknown length that nothing
/// reads (no descriptor behind it: `-1`, never closed).
struct ExplainedBodyDescriptors: BodyDescriptors {
  func body(at index: Int, field: String) throws(WireError) -> BodyDescriptor {
    BodyDescriptor(fd: -1, kind: .stream, release: { _ in })
  }
}
