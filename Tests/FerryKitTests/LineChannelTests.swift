import FerryChannel
import Glibc
import Testing

/// FerryLineChannel, the blocking line layer `ferry` runs on and `FerryClient` shakes hands on.
@Suite(.serialized) struct LineChannelTests {
  @Test func severalLinesGoInOneSendAndEachAnswerIsReadInOrder() throws {
    let daemon = try KitDaemon()
    guard case .success(var channel) = FerryLineChannel.open(daemon.socket) else {
      Issue.record("the daemon's socket did not open")
      return
    }
    defer { channel.close() }
    #expect(channel.send([Array(#"{"op":"ping"}"#.utf8), Array(#"{"op":"hello"}"#.utf8)]))
    #expect(channel.readLine() == Array(#"{"event":"pong"}"#.utf8))
    let hello = channel.readLine().map { String(decoding: $0, as: UTF8.self) } ?? ""
    #expect(hello.hasPrefix(#"{"event":"hello","protocol":1,"#), "\(hello)")
  }

  @Test func linesSplitAcrossWritesComeWholeWithoutTheirCRAndTheEndIsNil() throws {
    let dir = KitPaths.tempDirectory("channel")
    defer { rmdir(dir) }
    let path = dir + "/s.sock"
    let listener = try Self.listen(path)
    defer {
      close(listener)
      unlink(path)
    }
    guard case .success(var channel) = FerryLineChannel.open(path) else {
      Issue.record("the socket did not open")
      return
    }
    defer { channel.close() }
    let server = accept(listener, nil, nil)
    #expect(server >= 0)
    for piece in [#"{"a":1}"# + "\r\n" + #"{"b""#, #":2}"# + "\n\n" + #"{"c":3}"#] {
      _ = Array(piece.utf8).withUnsafeBytes { send(server, $0.baseAddress, $0.count, 0) }
    }
    close(server)
    let lines = [channel.readLine(), channel.readLine(), channel.readLine(), channel.readLine()]
    #expect(lines == [Array(#"{"a":1}"#.utf8), Array(#"{"b":2}"#.utf8), Array(#"{"c":3}"#.utf8), nil])
  }

  @Test func aMissingSocketIsUnreachableWithTheSystemsReason() {
    let dir = KitPaths.tempDirectory("channel")
    defer { rmdir(dir) }
    #expect(
      FerryLineChannel.open(dir + "/nothing.sock").failure
        == .unreachable(reason: "No such file or directory"))
    let long = "/" + String(repeating: "x", count: 200)
    #expect(
      FerryLineChannel.open(long).failure
        == .unreachable(reason: "the path is longer than 107 bytes or holds a NUL"))
  }

  @Test func onlyRootTheCallerOrTheNamedUIDIsTrusted() {
    #expect(DaemonTrust.isTrusted(peerUID: 0, callerUID: 1000, trustedUID: nil))
    #expect(DaemonTrust.isTrusted(peerUID: 1000, callerUID: 1000, trustedUID: nil))
    #expect(DaemonTrust.isTrusted(peerUID: 998, callerUID: 1000, trustedUID: "998"))
    #expect(!DaemonTrust.isTrusted(peerUID: 1001, callerUID: 1000, trustedUID: "998"))
    #expect(!DaemonTrust.isTrusted(peerUID: 1001, callerUID: 1000, trustedUID: "x"))
    // The kernel did not say who listens: nobody to trust.
    #expect(!DaemonTrust.isTrusted(peerUID: nil, callerUID: 1000, trustedUID: "0"))
  }

  /// A listening Unix socket at `path` (this process's, so its owner is the caller).
  private static func listen(_ path: String) throws -> Int32 {
    guard let fd = UnixListener.open(path, backlog: 1) else { throw ListenFailed() }
    return fd
  }

  private struct ListenFailed: Error {}
}

extension Result {
  fileprivate var failure: Failure? {
    if case .failure(let f) = self { return f }
    return nil
  }
}
