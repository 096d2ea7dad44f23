// FerryKit's cost per job, to set beside ferry-bench-client's: N GETs through
// `FerryClient.data(for:)` on one connection from K worker tasks, and one line of results.
// Unlike ferry-bench-client it reads every event (JSON) and the body (base64).
//
//   ferry-bench-kit SOCKET URL N K
import FerryKit
import Glibc
import Synchronization

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
// K workers, each taking the next request when its last is answered, as the Python library's
// and aiohttp's peers in B9 do (a task per request would measure the task group's churn, a
// task made and one resumed per job, more than the library).
let taken = Atomic<Int>(0)
let failed = await withTaskGroup(of: Int.self) { group in
  for _ in 0..<min(window, total) {
    group.addTask {
      var failed = 0
      while taken.add(1, ordering: .relaxed).oldValue < total {
        if (try? await client.data(for: FerryRequest("GET", url))) == nil { failed += 1 }
      }
      return failed
    }
  }
  var failed = 0
  while let count = await group.next() { failed += count }
  return failed
}
let seconds = Double(nowNs() - start) / 1e9
print(
  "jobs=\(total) window=\(window) failed=\(failed) seconds=\(seconds) jobs_per_s=\(Double(total) / seconds)")
