/// curl's and HTTPie's options that `ferry` refuses, each with the message naming what to use.
///
/// A short option that curl and HTTPie give different meanings (`-f`, `-A`, `-I`, `-c`) is
/// refused rather than read one way: whichever habit typed it, it must not do something else
/// silently. Options with no ferry equivalent say why and what comes closest.
enum ForeignOption {
  /// The refusal for `name` (without any `=value`), or nil when it is not one of these.
  static func refusal(_ name: String) -> String? {
    switch name {
    case "-f":
      "-f is curl's --fail and HTTPie's --form: write --form for a form body; ferry already fails on a status it does not accept, as --fail (exit 14 for 4xx, 15 for 5xx)"
    case "-A":
      "-A is curl's --user-agent and HTTPie's --auth-type: write --user-agent UA (or User-Agent:UA), or --auth-type basic|digest"
    case "-I":
      "-I is curl's --head and HTTPie's --ignore-stdin: write ferry head URL (or --head), or --ignore-stdin"
    case "-c", "--cookie-jar":
      "\(name) is curl's --cookie-jar (and HTTPie's --continue): ferry keeps cookies in the daemon's jar of the session (config `cookies`, --session NAME; see ferry cookies); to resume a download write --resume"
    case "-w", "--write-out":
      "\(name): ferry has no --write-out; ferry events METHOD URL prints every event of the job as JSON (status, headers, timings) for jq"
    case "-4", "--ipv4", "-6", "--ipv6":
      "\(name): ferry does not choose the address family per job; the daemon connects to what the name resolves to (give an address literal, http://127.0.0.1/ or http://[::1]/)"
    case "-p":
      "-p is curl's --proxytunnel and HTTPie's --print: write --print WHAT (HTTPie's letters) or -i / -v"
    default: nil
    }
  }
}
