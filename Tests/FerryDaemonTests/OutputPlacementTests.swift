import FerryWire
import Foundation
import Glibc
import Testing

@testable import FerryDaemon

/// The rename of `<output>.part` into place never replaces a file another writer put at the
/// output after the job was accepted, even when it lands between the look and the rename.
@MainActor struct OutputPlacementTests {
  private func directory() -> String {
    let dir = NSTemporaryDirectory() + "ferry-place-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
  }

  private func contents(_ path: String) -> String? {
    (try? Data(contentsOf: URL(fileURLWithPath: path))).map { String(decoding: $0, as: UTF8.self) }
  }

  private func output(_ path: String, _ text: String, baseline: OutputFile.Baseline) throws -> OutputFile {
    let file = try OutputFile(path: path, resume: false, writeRoots: nil, baseline: baseline)
    let bytes = Array(text.utf8)
    try bytes.withUnsafeBytes { buffer in try file.write(buffer) }
    return file
  }

  @Test func aFileThatAppearsJustBeforeTheRenameIsNotReplaced() throws {
    let dir = directory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/out"
    let file = try output(path, "mine", baseline: .absent)
    file.beforeRename = { _ = FileManager.default.createFile(atPath: path, contents: Data("theirs".utf8)) }
    #expect(throws: WireError.self) { _ = try file.commit() }
    #expect(contents(path) == "theirs")
    #expect(contents(path + ".part") == nil)
  }

  @Test func aFileSwappedInJustBeforeTheRenameIsNotReplaced() throws {
    let dir = directory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/out"
    _ = FileManager.default.createFile(atPath: path, contents: Data("before".utf8))
    let file = try output(path, "mine", baseline: OutputFile.Baseline(of: path))
    file.beforeRename = {
      _ = FileManager.default.createFile(atPath: path + ".new", contents: Data("theirs".utf8))
      _ = rename(path + ".new", path)
    }
    #expect(throws: WireError.self) { _ = try file.commit() }
    #expect(contents(path) == "theirs")
    #expect(contents(path + ".part") == nil)
  }

  @Test func theFileThereAtTheStartIsReplacedAndNothingIsLeftOver() throws {
    let dir = directory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/out"
    _ = FileManager.default.createFile(atPath: path, contents: Data("before".utf8))
    let file = try output(path, "mine", baseline: OutputFile.Baseline(of: path))
    #expect(try file.commit() == 4)
    #expect(contents(path) == "mine")
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["out"])
    let fresh = try output(dir + "/new", "fresh", baseline: .absent)
    #expect(try fresh.commit() == 5)
    #expect(contents(dir + "/new") == "fresh")
  }
}
