import FerryKit
import Glibc

// Usage: ferry-kit-example URL [FILE]
// Fetches URL three ways (async data, a streamed body, AF's callbacks) through the ferryd the
// `ferry` CLI would use, and with FILE downloads URL into it (resumable).
let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
  print("usage: ferry-kit-example URL [FILE]")
  exit(2)
}
let url = arguments[1]
let client = try FerryClient()

// async/await, URLSession's shape.
var request = FerryRequest("GET", url, parameters: ["page": 2, "tags": ["a", "b"]])
request.retry = FerryRequest.Retry(max: 2)
do {
  let response = try await client.data(for: request)
  print("data: \(response.status), \(response.body.count) bytes from \(response.url)")
} catch let error as FerryError {
  print("data failed: \(error.code): \(error.message)")
}

// The body as it arrives.
let (head, chunks) = try await client.bytes(for: FerryRequest("GET", url))
var streamed = 0
for try await chunk in chunks { streamed += chunk.count }
print("bytes: \(head.status), \(streamed) bytes streamed")

// AFHTTPSessionManager's shape; blocks run on the manager's private serial queue.
let manager = FerryHTTPSessionManager(client: client)
manager.requestSerializer.timeoutInterval = 30
let line = await withCheckedContinuation { (done: CheckedContinuation<String, Never>) in
  manager.GET(
    url, parameters: ["q": "ferry"],
    success: { _, response in done.resume(returning: "GET: \(response.status)") },
    failure: { _, error in done.resume(returning: "GET failed: \(error)") })
}
print(line)

if arguments.count >= 3 {
  let response = try await client.download(for: FerryRequest("GET", url), to: arguments[2], resume: true)
  print("download: \(response.bytes ?? 0) bytes in \(arguments[2])")
}
