import FerryWire

/// One `stats` answer, read for `ferry top`, with the monotonic time it was taken at. The
/// reading is FerryWire's `StatsAnswer` (FerryKit's `FerryStats`); its members read through
/// the sample (`sample.total`, `sample.sessions`).
@dynamicMemberLookup
public struct StatsSample: Sendable, Equatable {
  public var atMs: Int64
  public var answer = StatsAnswer()

  public init(atMs: Int64) { self.atMs = atMs }

  /// The sample in a `stats` answer line; nil for any other line.
  public init?(answer line: [UInt8], atMs: Int64) {
    guard let o = (try? JSONReader().read(line))?.objectValue, o["event"]?.stringValue == "stats" else {
      return nil
    }
    self.atMs = atMs
    answer = StatsAnswer(answer: o)
  }

  public subscript<T>(dynamicMember path: WritableKeyPath<StatsAnswer, T>) -> T {
    get { answer[keyPath: path] }
    set { answer[keyPath: path] = newValue }
  }

  /// The counts of session `name` (zero when the daemon has none yet).
  func counts(_ name: String) -> StatsAnswer.Counts {
    answer.sessions.first { $0.name == name }?.counts ?? StatsAnswer.Counts()
  }
}

extension StatsAnswer.Counts {
  /// Jobs that have ended, however.
  var ended: Int { done + failed + cancelled }
}

extension StatsAnswer.CacheCounts {
  /// Lookups answered from the cache (fresh or revalidated), of all lookups.
  var answered: Int { hit + revalidated }
  var lookups: Int { hit + revalidated + miss }
}
