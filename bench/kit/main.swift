// FerryKit's cost per job, to set beside ferry-bench-client's: N GETs through
// `FerryClient.data(for:)` on one connection, at most K awaiting at once, and one line of
// results. Unlike ferry-bench-client it reads every event (JSON) and the body (base64).
//
//   ferry-bench-kit SOCKET URL N K
import FerryKit
import Glibc

let arguments = CommandLine.arguments
guard arguments.count == 5, let total = Int(arguments[3]), let window = Int(arguments[4]), window > 0 else {
  print("usage: ferry-bench-kit SOCKET URL N K")
  exit(2)
}
let url = arguments[2]
let client = try FerryClient(socketPath: arguments[1])

func nowNs() -> UInt64 {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

let start = nowNs()
let failed = await withTaskGroup(of: Bool.self) { group in
  var failed = 0
  var started = 0
  func add() {
    group.addTask { (try? await client.data(for: FerryRequest("GET", url))) == nil }
    started += 1
  }
  while started < min(window, total) { add() }
  while let didFail = await group.next() {
    if didFail { failed += 1 }
    if started < total { add() }
  }
  return failed
}
let seconds = Double(nowNs() - start) / 1e9
print(
  "jobs=\(total) window=\(window) failed=\(failed) seconds=\(seconds) jobs_per_s=\(Double(total) / seconds)")
