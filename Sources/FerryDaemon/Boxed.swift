/// An optional stored out of line: a class reference (8 bytes) in its owner, and a box only
/// while it holds a value.
///
/// For a `JobRun`'s rarely set state (the cache's, an abort, a failure): inline, those
/// optionals took about 1.8 KB of every job's object whether set or not, and a queued job
/// waits with its `JobRun` (B4: 10 000 jobs at once). Reading copies the value out; setting
/// reuses the box when nothing else holds it, so changing a member in place allocates nothing.
@propertyWrapper
struct Boxed<Wrapped> {
  private final class Box {
    var value: Wrapped
    init(_ value: Wrapped) { self.value = value }
  }

  private var box: Box?

  init(wrappedValue: Wrapped?) {
    box = wrappedValue.map(Box.init)
  }

  var wrappedValue: Wrapped? {
    get { box?.value }
    set {
      guard let newValue else {
        box = nil
        return
      }
      if box != nil, isKnownUniquelyReferenced(&box!) {
        box!.value = newValue
      } else {
        box = Box(newValue)
      }
    }
  }
}
