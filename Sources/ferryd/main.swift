import FerryDaemon

#if canImport(Glibc)
  import Glibc
#endif

/// The environment as a dictionary, read once at start.
func currentEnvironment() -> [String: String] {
  var env: [String: String] = [:]
  var p = environ
  while let entry = p.pointee {
    let s = String(cString: entry)
    if let eq = s.firstIndex(of: "=") { env[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
    p += 1
  }
  return env
}

let code = MainActor.assumeIsolated {
  DaemonMain.run(arguments: CommandLine.arguments, environment: currentEnvironment())
}
exit(code)
