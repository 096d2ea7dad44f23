import FerryLoop
import Glibc
import Testing

@testable import FerrySession

/// The engine's records by descriptor (`SocketTable`): an array indexed by the number, which
/// must answer as the dictionary it replaced did.
@MainActor struct SocketTableTests {
  @Test func recordsAreFoundByTheirDescriptorOnly() throws {
    let loop = try EventLoop()
    var pipes: [Int32] = [0, 0]
    #expect(pipe(&pipes) == 0)
    defer { for fd in pipes { close(fd) } }
    let (a, b) = (pipes[0], pipes[1])
    let first = SocketRecord(fd: a, isConnection: true, loop: loop) { _ in }
    let second = SocketRecord(fd: b, isConnection: false, loop: loop) { _ in }
    defer {
      first.cancel()
      second.cancel()
    }
    var table = SocketTable()
    #expect(table[a] == nil && table[-1] == nil && table[Int32.max] == nil)
    table[b] = second
    table[a] = first
    #expect(table[a] === first && table[b] === second)
    #expect(table[a + b + 1] == nil)
    #expect(table.records.map(\.fd) == [a, b].sorted())
    table[a] = nil
    table[-1] = first
    table[a + b + 100] = nil
    #expect(table[a] == nil && table[b] === second && table.records.count == 1)
    table.removeAll()
    #expect(table[b] == nil && table.records.isEmpty)
  }
}
