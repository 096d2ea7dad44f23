import Foundation
import FerryKit
import Synchronization

/// Every protocol line of the tests' clients, appended to `$FERRYKIT_LINE_LOG` when it is set:
/// `make test` checks them against docs/schema/ferry.schema.json afterwards
/// (tools/schema-check.py), so the schema cannot drift from what the daemon writes.
enum LineLog {
  /// The observer the tests' clients use; nil when no log is asked for.
  static let observer: FerryLineObserver? = {
    guard let path = ProcessInfo.processInfo.environment["FERRYKIT_LINE_LOG"], !path.isEmpty else {
      return nil
    }
    let sink = LineSink(path: path)
    return { direction, line in sink.append(direction, line) }
  }()
}

/// Appends lines to a file as `in <json>` / `out <json>`, one per line, from any thread.
final class LineSink: Sendable {
  private let fd: Int32
  private let lock = Mutex(())

  init(path: String) {
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
  }

  func append(_ direction: FerryLineDirection, _ line: [UInt8]) {
    // A line with a raw newline would break the log's framing; JSON lines have none.
    let record = Array((direction == .sent ? "out " : "in ").utf8) + line + [0x0A]
    lock.withLock { _ in
      _ = record.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
  }
}
