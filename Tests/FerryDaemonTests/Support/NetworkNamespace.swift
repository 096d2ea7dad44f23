import Foundation
import Testing

/// A network namespace of the test's own (issue 31): `unshare -n` runs a shell that brings
/// `lo` up and sleeps, holding the namespace; ferryd and the fixture join it through
/// `launcher` (nsenter), and `ip` changes links and routes only inside it. The namespace goes
/// with its last process. Needs root (CI's tests run as root); `available` says whether it
/// can be made here.
final class NetworkNamespace {
  let holder: ManagedProcess

  init() throws {
    holder = try ManagedProcess(
      "/usr/bin/unshare",
      ["-n", "/bin/sh", "-c", "ip link set lo up && echo port=ready && exec sleep 100000"])
    guard holder.readStdoutLine(startingWith: "port=") != nil else {
      throw TestFailure("unshare -n did not start: \(holder.stderrText())")
    }
  }

  /// Whether this process may make network namespaces (root, no seccomp in the way).
  static let available: Bool = {
    guard getuid() == 0, let (status, _) = try? run("/usr/bin/unshare", ["-n", "/bin/true"]) else {
      return false
    }
    return status == 0
  }()

  /// Runs a command inside the namespace (nsenter execs it).
  var launcher: [String] { ["/usr/bin/nsenter", "--net=/proc/\(holder.pid)/ns/net", "--"] }

  /// `ip ARGS` inside the namespace; a failure fails the test.
  func ip(_ arguments: String) throws {
    let (status, text) = try run(
      launcher[0], Array(launcher.dropFirst()) + ["ip"] + arguments.split(separator: " ").map(String.init))
    guard status == 0 else { throw TestFailure("ip \(arguments): \(text)") }
  }

  /// A veth pair with a default route through a documentation address (RFC 5737): the
  /// monitor reads online; nothing is ever sent there (jobs use the loopback fixture).
  func addDefaultRoute() throws {
    try ip("link add v0 type veth peer name v1")
    try ip("link set v0 up")
    try ip("link set v1 up")
    try ip("addr add 192.0.2.1/24 dev v0")
    try ip("route add default via 192.0.2.2 dev v0")
  }

  deinit {
    holder.signal(SIGKILL)
    _ = holder.wait(timeoutMs: 5_000)
  }
}
