import Foundation
import Glibc
import Testing

@testable import FerryStore

/// The files on disk: private modes, bad files as clear errors, moving a damaged one aside.
@Suite struct JournalFileTests {
  @Test func theJournalAndItsWALAreReadableOnlyByTheUser() throws {
    let dir = TempDirectory("file-modes")
    let state = dir.path + "/state/ferry"
    try StateDirectory.prepare(state)
    #expect(fileMode(state) == 0o700)
    #expect(fileMode(dir.path + "/state") == 0o700)
    let journal = try Journal.openForTest(state + "/journal.db")
    _ = try journal.commitSubmitted(sampleSubmission("a"))
    #expect(fileMode(state + "/journal.db") == 0o600)
    #expect(fileMode(state + "/journal.db-wal") == 0o600)
    // Exclusive locking: no shared-memory index beside it.
    #expect(fileMode(state + "/journal.db-shm") == nil)
  }

  @Test func looseModesAreTightened() throws {
    let dir = TempDirectory("file-tighten")
    let state = dir.path + "/ferry"
    mkdir(state, 0o755)
    chmod(state, 0o755)
    try StateDirectory.prepare(state)
    #expect(fileMode(state) == 0o700)
    let path = state + "/journal.db"
    do { _ = try Journal.openForTest(path) }
    chmod(path, 0o644)
    // A clean close deletes the WAL; an empty one (as a crash can leave) is harmless.
    _ = FileManager.default.createFile(atPath: path + "-wal", contents: Data())
    chmod(path + "-wal", 0o666)
    #expect(fileMode(path + "-wal") == 0o666)
    let journal = try Journal.openForTest(path)
    _ = try journal.commitSubmitted(sampleSubmission("a"))
    #expect(fileMode(path) == 0o600)
    #expect(fileMode(path + "-wal") == 0o600)
  }

  @Test func aSymbolicLinkIsNotFollowed() throws {
    let dir = TempDirectory("file-link")
    let elsewhere = dir.path + "/elsewhere.db"
    _ = FileManager.default.createFile(atPath: elsewhere, contents: Data())
    symlink(elsewhere, dir.journal)
    let error = #expect(throws: StoreError.self) { _ = try Journal.openForTest(dir.journal) }
    #expect(error?.kind == .cannotOpen)
    #expect(fileSize(elsewhere) == 0)
  }

  @Test func aDirectoryInPlaceOfTheFileIsAClearError() throws {
    let dir = TempDirectory("file-dir")
    mkdir(dir.journal, 0o700)
    let error = #expect(throws: StoreError.self) { _ = try Journal.openForTest(dir.journal) }
    #expect(error?.kind == .cannotOpen)
  }

  @Test func aFileThatIsNotADatabaseIsAClearError() throws {
    let dir = TempDirectory("file-garbage")
    let garbage = (0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 7) }
    _ = FileManager.default.createFile(atPath: dir.journal, contents: Data(garbage))
    let error = #expect(throws: StoreError.self) { _ = try Journal.openForTest(dir.journal) }
    #expect(error?.kind == .notADatabase)
    #expect(error?.isDamagedFile == true)
    #expect(error?.message.contains("not a database") == true)
    // Left as it was.
    #expect(try Data(contentsOf: URL(fileURLWithPath: dir.journal)) == Data(garbage))
  }

  @Test func anEmptyFileBecomesANewJournal() throws {
    let dir = TempDirectory("file-empty")
    _ = FileManager.default.createFile(atPath: dir.journal, contents: Data())
    let journal = try Journal.openForTest(dir.journal)
    #expect(try journal.recover().isEmpty)
  }

  @Test func damagedPagesAreFoundAtOpen() throws {
    let dir = TempDirectory("file-corrupt")
    do {
      let journal = try Journal.openForTest(dir.journal)
      for i in 0..<300 {
        let k = journal.submitted(sampleSubmission("j\(i)"))
        journal.eventSent(k, seq: 1, line: eventLine(1, padding: 300))
      }
      _ = journal.flush()
      try journal.compact()
    }
    // Overwrite pages in the middle of the file (not the header) with noise.
    let size = try #require(fileSize(dir.journal))
    let fd = open(dir.journal, O_WRONLY)
    let noise = [UInt8](repeating: 0xA5, count: 4096 * 3)
    _ = noise.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(size / 2 / 4096 * 4096)) }
    close(fd)
    let error = #expect(throws: StoreError.self) { _ = try Journal.openForTest(dir.journal) }
    #expect(error?.isDamagedFile == true)
  }

  @Test func openReplacingDamagedMovesTheFileAsideAndStartsAnew() throws {
    let dir = TempDirectory("file-aside")
    let garbage = Data(repeating: 0x42, count: 4096)
    _ = FileManager.default.createFile(atPath: dir.journal, contents: garbage)
    let clock = FakeClock()
    clock.ms = 1_764_631_800_000  // 2025-12-01T23:30:00Z
    let opening = try Journal.openReplacingDamaged(path: dir.journal, clock: { clock.now() })
    let aside = try #require(opening.movedAside)
    #expect(aside.path == dir.journal + ".corrupt-20251201T233000Z")
    #expect(aside.reason.kind == .notADatabase)
    #expect(try Data(contentsOf: URL(fileURLWithPath: aside.path)) == garbage)
    _ = try opening.journal.commitSubmitted(sampleSubmission("a"))
    #expect(try opening.journal.recover().count == 1)

    // A good journal is opened, not moved.
    let again = try Journal.openReplacingDamaged(path: dir.path + "/other.db")
    #expect(again.movedAside == nil)
  }

  @Test func movingAsideTakesTheWALAlong() throws {
    let dir = TempDirectory("file-aside-wal")
    _ = FileManager.default.createFile(atPath: dir.journal, contents: Data([1]))
    _ = FileManager.default.createFile(atPath: dir.journal + "-wal", contents: Data([2, 2]))
    let first = try JournalFile.moveAside(dir.journal, nowSeconds: 0)
    #expect(first == dir.journal + ".corrupt-19700101T000000Z")
    #expect(fileSize(first) == 1)
    #expect(fileSize(first + "-wal") == 2)
    #expect(fileSize(dir.journal) == nil)
    #expect(fileSize(dir.journal + "-wal") == nil)
    // The same second again: a new name, the first one kept.
    _ = FileManager.default.createFile(atPath: dir.journal, contents: Data([3, 3, 3]))
    let second = try JournalFile.moveAside(dir.journal, nowSeconds: 0)
    #expect(second == dir.journal + ".corrupt-19700101T000000Z-2")
    #expect(fileSize(second) == 3)
    #expect(fileSize(first) == 1)
  }

  @Test func aSecondOpenOfAJournalInUseIsBusy() throws {
    let dir = TempDirectory("file-busy")
    let first = try Journal.openForTest(dir.journal)
    _ = try first.commitSubmitted(sampleSubmission("a"))
    let error = #expect(throws: StoreError.self) {
      _ = try Journal.openForTest(dir.journal, busyTimeoutMs: 20)
    }
    #expect(error?.kind == .busy)
    #expect(error?.isDamagedFile == false)
    // openReplacingDamaged does not move a busy journal aside.
    #expect(throws: StoreError.self) {
      _ = try Journal.openReplacingDamaged(path: dir.journal, options: Journal.Options(busyTimeoutMs: 20))
    }
    #expect(fileSize(dir.journal) != nil)
    #expect(try first.recover().count == 1)
  }

  @Test func theStateDirectoryIsFoundInOrder() {
    let env = ["STATE_DIRECTORY": "/var/lib/ferry:/var/lib/other", "XDG_STATE_HOME": "/x", "HOME": "/home/u"]
    #expect(StateDirectory.resolve(configured: "/etc/ferry-state", environment: env) == "/etc/ferry-state")
    #expect(StateDirectory.resolve(configured: nil, environment: env) == "/var/lib/ferry")
    #expect(
      StateDirectory.resolve(configured: nil, environment: ["XDG_STATE_HOME": "/x", "HOME": "/h"])
        == "/x/ferry")
    #expect(StateDirectory.resolve(configured: nil, environment: ["HOME": "/h"]) == "/h/.local/state/ferry")
    // Relative values are ignored.
    #expect(
      StateDirectory.resolve(configured: "rel", environment: ["XDG_STATE_HOME": "rel", "HOME": "/h"])
        == "/h/.local/state/ferry")
    #expect(StateDirectory.resolve(configured: nil, environment: [:]) == nil)
  }

  @Test func aStateDirectoryThatIsAFileIsAClearError() throws {
    let dir = TempDirectory("file-notdir")
    _ = FileManager.default.createFile(atPath: dir.path + "/state", contents: Data())
    let error = #expect(throws: StoreError.self) { try StateDirectory.prepare(dir.path + "/state") }
    #expect(error?.kind == .cannotOpen)
  }

  @Test func compactReturnsTheFilesToTheirEmptySize() throws {
    let dir = TempDirectory("file-compact")
    let journal = try Journal.openForTest(dir.journal)
    try journal.compact()
    let baseline = try #require(fileSize(dir.journal))
    let baselinePages = try journal.database.integer("PRAGMA page_count")
    var keys: [JournalKey] = []
    for i in 0..<2000 {
      let k = journal.submitted(sampleSubmission("j\(i)"))
      journal.eventSent(k, seq: 1, line: eventLine(1, padding: 500))
      journal.ended(k, seq: 2, line: eventLine(2, "done", padding: 2000), outcome: .done)
      keys.append(k)
    }
    _ = journal.flush()
    try journal.compact()
    #expect(try #require(fileSize(dir.journal)) > baseline * 10)
    for k in keys { journal.removed(k) }
    _ = journal.flush()
    try journal.compact()
    #expect(fileSize(dir.journal) == baseline)
    #expect(try journal.database.integer("PRAGMA page_count") == baselinePages)
    #expect(fileSize(dir.journal + "-wal") == 0)
  }
}
