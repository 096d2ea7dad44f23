import FerryTestSupport
import Foundation
import Glibc

/// Runs a short command to completion (`ChildSpawn`), capturing stdout and stderr together.
/// The command's home, state and runtime directories are its own (`TestEnvironment`), removed
/// when it is done.
func run(_ path: String, _ args: [String], environment: [String: String]? = nil) throws -> (Int32, String) {
  let home = Paths.tempDirectory("env")
  defer { try? FileManager.default.removeItem(atPath: home) }
  let environment = TestEnvironment.isolated(environment, under: home)
  let child = try ChildSpawn.start(path, args, environment: environment.map { "\($0.key)=\($0.value)" })
  let fd = child.output
  var output: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 65536)
  while true {
    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if n < 0, errno == EINTR { continue }
    if n <= 0 { break }
    output.append(contentsOf: buffer[..<n])
  }
  close(fd)
  return (ChildSpawn.reap(child.pid), String(decoding: output, as: UTF8.self))
}
