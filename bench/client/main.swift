#if canImport(Glibc)
  import Glibc
#endif

// A pipelining ferryd client for benchmarks: sends N GET jobs over one connection with at most
// K in flight, counts terminal events, and prints one line of results. It does no JSON parsing
// beyond recognising the event name at the start of each line, so it is not the bottleneck.
// Bodies are discarded (`"response":"discard"`) unless EXTRA gives a `response`.
//
//   ferry-bench-client SOCKET URL N K [extra job JSON members [id prefix]]
//
// The id prefix keeps several clients' ids apart where ids are per user (detached and durable
// jobs).

func die(_ message: String) -> Never {
  printError("ferry-bench-client: \(message)")
  exit(2)
}

func printError(_ message: String) {
  var bytes = Array((message + "\n").utf8)
  _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}

func main() {
  let args = CommandLine.arguments
  guard args.count >= 5, let total = Int(args[3]), let window = Int(args[4]) else {
    die("usage: ferry-bench-client SOCKET URL N K [EXTRA]")
  }
  let socketPath = args[1]
  let url = args[2]
  let extra = args.count > 5 && !args[5].isEmpty ? "," + args[5] : ""
  let idPrefix = args.count > 6 ? args[6] : ""
  // Bodies are discarded unless EXTRA names a `response` of its own (B9 asks for base64, as
  // FerryKit's `data(for:)` does, to compare the same daemon work).
  let response = extra.contains(#""response""#) ? "" : #","response":"discard""#

  let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
  var addr = sockaddr_un()
  addr.sun_family = sa_family_t(AF_UNIX)
  withUnsafeMutableBytes(of: &addr.sun_path) { raw in
    for (i, b) in socketPath.utf8.enumerated() where i < raw.count - 1 { raw[i] = b }
  }
  let rc = withUnsafePointer(to: &addr) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
    }
  }
  if rc != 0 { die("cannot connect to \(socketPath)") }

  func nowNs() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
  }

  let prefixDone = Array(#"{"event":"done""#.utf8)
  let prefixFailed = Array(#"{"event":"failed""#.utf8)
  let prefixCancelled = Array(#"{"event":"cancelled""#.utf8)

  var sent = 0
  var done = 0
  var failed = 0
  var out: [UInt8] = []
  var inBuf = [UInt8](repeating: 0, count: 1 << 20)
  var pending: [UInt8] = []
  var firstFailure: String?

  func queueJobs() {
    while sent < total, sent - (done + failed) < window {
      out.append(
        contentsOf: #"{"id":"\#(idPrefix)\#(sent)","url":"\#(url)","events":[]\#(response)\#(extra)}"#.utf8)
      out.append(10)
      sent += 1
    }
  }

  func startsWith(_ line: ArraySlice<UInt8>, _ prefix: [UInt8]) -> Bool {
    line.count >= prefix.count && line.prefix(prefix.count).elementsEqual(prefix)
  }

  let start = nowNs()
  queueJobs()
  while done + failed < total {
    var p = pollfd(fd: fd, events: Int16(POLLIN) | (out.isEmpty ? 0 : Int16(POLLOUT)), revents: 0)
    _ = poll(&p, 1, 30_000)
    if p.revents & Int16(POLLOUT) != 0, !out.isEmpty {
      // Never a blocking send: ferryd stops reading a client whose output is full, so a client
      // blocked in send while its own input fills would never read again (the deadlock of
      // B4's 100 000 jobs at once).
      let n = out.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
      if n > 0 { out.removeFirst(n) }
    }
    if p.revents & Int16(POLLIN | POLLHUP) != 0 {
      let n = inBuf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n <= 0 { die("daemon closed the connection after \(done + failed) results") }
      pending.append(contentsOf: inBuf[..<n])
      var lineStart = pending.startIndex
      while let nl = pending[lineStart...].firstIndex(of: 10) {
        let line = pending[lineStart..<nl]
        if startsWith(line, prefixDone) {
          done += 1
        } else if startsWith(line, prefixFailed) || startsWith(line, prefixCancelled) {
          failed += 1
          if firstFailure == nil { firstFailure = String(decoding: line, as: UTF8.self) }
        }
        lineStart = nl + 1
      }
      pending.removeSubrange(..<lineStart)
      queueJobs()
    }
  }
  let seconds = Double(nowNs() - start) / 1e9
  print(
    "jobs=\(total) done=\(done) failed=\(failed) seconds=\(seconds) jobs_per_s=\(Int(Double(total) / seconds))"
  )
  if let firstFailure { printError("first failure: \(firstFailure)") }
}

main()
