import FerrySerializer
import FerryWire

#if canImport(Glibc)
  import Glibc
#endif

// Decode + serialize time per job, the daemon's per-job pure work: a JSON line through
// JobDecoder, then RequestSerializer. Prints the median of 7 runs and the min–max.
// Arguments: [iterations] [get|post|done] (all cases when the second is absent; one case alone
// is handy under callgrind). `done` is the per-job event line: EventEncoder on a `done` event
// with a 1 KB JSON body and eight response headers.

struct NoFiles: FileProbe {
  func size(ofFileAt path: String) throws(WireError) -> Int64 {
    throw WireError(.fileUnreadable, "no files in this benchmark")
  }
}

func nowNs() -> UInt64 {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

let getLine = Array(
  #"{"id":"j1","url":"http://api.example.com/v1/items","parameters":{"q":"swift json","page":2,"per_page":50,"sort":"updated","tags":["a","b"]}}"#
    .utf8)

/// About 1 KB of JSON: an object holding an array of small objects.
func itemsJSON() -> String {
  var items: [String] = []
  var i = 0
  var size = 0
  while size < 1000 {
    let item = #"{"n":\#(i),"name":"item \#(i)","price":12.50,"ok":true}"#
    items.append(item)
    size += item.utf8.count + 1
    i += 1
  }
  return "{\"items\":[" + items.joined(separator: ",") + "]}"
}

func postLine() -> [UInt8] {
  Array(
    (#"{"id":"p1","method":"POST","url":"http://api.example.com/v1/orders","encoding":"json","parameters":"#
      + itemsJSON() + "}").utf8)
}

@inline(never) func run(_ line: [UInt8], serializer: RequestSerializer, iterations: Int) -> Double {
  let decoder = JobDecoder()
  var sink = 0
  let start = nowNs()
  for _ in 0..<iterations {
    guard case .success(.job(let job)) = decoder.decode(line) else { fatalError("bad benchmark line") }
    guard let request = try? serializer.serialize(job) else { fatalError("serializer refused") }
    sink &+= request.url.utf8.count &+ Int(request.body?.length ?? 0)
  }
  let elapsed = Double(nowNs() - start)
  if sink == 42 { print("") }
  return elapsed / Double(iterations)
}

/// A `done` event as the daemon sends one for a small JSON API response.
func doneEvent() -> Event {
  let headers: [(name: String, value: String)] = [
    ("content-type", "application/json; charset=utf-8"), ("content-length", "1141"),
    ("date", "Tue, 03 Jun 2025 10:00:00 GMT"), ("server", "nginx"), ("cache-control", "no-cache"),
    ("x-request-id", "3f2a9c1e-8b7d-4e5f-a6b1-c2d3e4f5a6b7"), ("set-cookie", "a=1; Path=/"),
    ("set-cookie", "b=2; Path=/; HttpOnly"),
  ]
  let head = ResponseHead(status: 200, headers: headers, httpVersion: "HTTP/1.1")
  let completion = JobCompletion(
    head: head, body: .json(Array(itemsJSON().utf8)), url: "http://api.example.com/v1/orders", attempts: 1,
    timing: JobTiming(queued: 120, connect: 1500, tls: 0, firstByte: 4200, total: 4800))
  return .job(id: "p1", seq: 4, .done(completion))
}

@inline(never) func runEvents(_ event: Event, iterations: Int) -> Double {
  var out: [UInt8] = []
  var sink = 0
  let start = nowNs()
  for _ in 0..<iterations {
    out.removeAll(keepingCapacity: true)
    EventEncoder.encode(event, into: &out)
    sink &+= out.count
  }
  let elapsed = Double(nowNs() - start)
  if sink == 42 { print("") }
  return elapsed / Double(iterations)
}

let settings = SerializerSettings(
  version: "bench", acceptLanguage: "en-US;q=1", acceptEncoding: "gzip, deflate, br, zstd")
let serializer = RequestSerializer(settings: settings, mimeTypes: MIMETypes(), files: NoFiles())
let post = postLine()
let iterations = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 100_000 : 100_000
print("job line bytes: GET \(getLine.count), POST \(post.count)")
let only = CommandLine.arguments.count > 2 ? CommandLine.arguments[2] : nil
let cases = [("get", "GET, 5 parameters", getLine), ("post", "POST, 1 KB JSON body", post)]
for (tag, name, line) in cases where only == nil || only == tag {
  _ = run(line, serializer: serializer, iterations: iterations / 10)
  var samples = (0..<7).map { _ in run(line, serializer: serializer, iterations: iterations) }
  samples.sort()
  let f = { (x: Double) in String(Int((x / 10).rounded()) * 10) }
  print(
    "\(name): median \(f(samples[3])) ns/job (min \(f(samples[0])), max \(f(samples[6]))), \(iterations) jobs x 7 runs"
  )
}
if only == nil || only == "done" {
  let event = doneEvent()
  _ = runEvents(event, iterations: iterations / 10)
  var samples = (0..<7).map { _ in runEvents(event, iterations: iterations) }
  samples.sort()
  let f = { (x: Double) in String(Int((x / 10).rounded()) * 10) }
  print(
    "done event line: median \(f(samples[3])) ns/event (min \(f(samples[0])), max \(f(samples[6]))), \(iterations) events x 7 runs"
  )
}
