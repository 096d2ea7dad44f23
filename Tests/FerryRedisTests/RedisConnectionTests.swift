import FerryLoop
import FerryTestSupport
import Foundation
import Glibc
import Testing

@testable import FerryRedis

/// The Redis connection against Debian's redis-server on a private Unix socket, and against
/// servers that hang, answer garbage or are not there.
@MainActor final class RedisConnectionTests {
  /// A private directory under /tmp, removed when the test is done.
  private func directory() -> String {
    var template = Array("/tmp/ferry-redis-XXXXXX".utf8CString)
    let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    made.append(dir)
    return dir
  }

  private var made: [String] = []

  isolated deinit {
    for dir in made { try? FileManager.default.removeItem(atPath: dir) }
  }

  private func roundTrip(
    _ connection: RedisConnection, _ loop: EventLoop, _ args: [String]
  ) -> Result<RedisReply, RedisError>? {
    var result: Result<RedisReply, RedisError>?
    connection.send(args) { result = $0 }
    _ = loop.run(until: { result != nil }, timeoutMs: TestTime.ms(5000))
    return result
  }

  @Test func answersCommandsOverAUnixSocket() throws {
    let dir = directory()
    let server = try #require(RedisServerProcess(directory: dir))
    defer { server.stop() }
    let loop = try EventLoop()
    let connection = RedisConnection(address: .unix(path: server.socketPath), timeoutMs: 2000, loop: loop)
    #expect(roundTrip(connection, loop, ["SET", "k", "v"]) == .success(.status("OK")))
    #expect(roundTrip(connection, loop, ["GET", "k"]) == .success(.bulk(Array("v".utf8))))
    #expect(roundTrip(connection, loop, ["INCRBY", "n", "7"]) == .success(.integer(7)))
    #expect(roundTrip(connection, loop, ["GET", "missing"]) == .success(.bulk(nil)))
    #expect(
      roundTrip(connection, loop, ["EVAL", "return {1, 'a'}", "0"])
        == .success(.array([.integer(1), .bulk(Array("a".utf8))])))
    guard case .success(.error(let message)) = roundTrip(connection, loop, ["NOSUCHCOMMAND"]) else {
      Issue.record("expected an error reply")
      return
    }
    #expect(message.hasPrefix("ERR"))
    #expect(connection.isUp)
  }

  /// `redis://` to a loopback port nothing listens on: refused, and the command fails.
  @Test func failsWhenATCPConnectionIsRefused() throws {
    let loop = try EventLoop()
    let connection = RedisConnection(address: .tcp(ip: "127.0.0.1", port: 1), timeoutMs: 2000, loop: loop)
    let code = roundTrip(connection, loop, ["PING"])?.failureCode
    #expect(code == "disconnected" || code == "unavailable")
    #expect(!connection.isUp)
  }

  /// A connection freed with a command unanswered calls nothing back into it.
  @Test func aConnectionFreedWithACommandOutIsQuiet() throws {
    let loop = try EventLoop()
    let path = directory() + "/quiet.sock"
    let listener = try UnixListener(loop: loop, path: path, mode: 0o600) { _ in }
    defer { listener.close() }
    var connection: RedisConnection? = RedisConnection(
      address: .unix(path: path), timeoutMs: 60_000, loop: loop)
    var calls = 0
    connection?.send(["PING"]) { _ in calls += 1 }
    _ = loop.run(until: { connection?.isUp == true }, timeoutMs: TestTime.ms(2000))
    connection = nil
    #expect(calls == 0)
  }

  @Test func failsAtOnceWhenNothingListens() throws {
    let loop = try EventLoop()
    let connection = RedisConnection(
      address: .unix(path: directory() + "/none.sock"), timeoutMs: 2000, loop: loop)
    #expect(roundTrip(connection, loop, ["PING"])?.failureCode == "unavailable")
    // Inside the backoff: no new attempt, the same answer.
    #expect(roundTrip(connection, loop, ["PING"])?.failureCode == "unavailable")
  }

  /// A server that accepts and never answers: the command fails with `timeout` after the
  /// connection's timeout, and the loop goes on.
  @Test func timesOutAServerThatHangs() throws {
    let loop = try EventLoop()
    let path = directory() + "/hang.sock"
    let listener = try UnixListener(loop: loop, path: path, mode: 0o600) { _ in }
    defer { listener.close() }
    let connection = RedisConnection(address: .unix(path: path), timeoutMs: 200, loop: loop)
    #expect(roundTrip(connection, loop, ["PING"])?.failureCode == "timeout")
  }

  /// A server that answers garbage: hiredis's parser refuses it, the connection drops, the
  /// command fails `disconnected`; nothing traps.
  @Test func dropsAServerThatAnswersGarbage() throws {
    let loop = try EventLoop()
    let path = directory() + "/garbage.sock"
    var peers: [BufferedConnection] = []
    let listener = try UnixListener(loop: loop, path: path, mode: 0o600) { fd in
      let peer = BufferedConnection(loop: loop, fd: fd)
      peers.append(peer)
      peer.write(Array("?not resp at all\r\n".utf8))
    }
    defer { listener.close() }
    let connection = RedisConnection(address: .unix(path: path), timeoutMs: 2000, loop: loop)
    #expect(roundTrip(connection, loop, ["PING"])?.failureCode == "disconnected")
    #expect(!connection.isUp)
  }
}

extension Result where Failure == RedisError {
  fileprivate var failureCode: String? {
    if case .failure(let e) = self { return e.code }
    return nil
  }
}
