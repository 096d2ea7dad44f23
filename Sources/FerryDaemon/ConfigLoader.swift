import FerryLoop
import FerrySession
import FerryWire

/// Reads the configuration file and its drop-ins: `ferry.d/*.json` beside it, in name order.
///
/// Each drop-in must be a valid configuration on its own (so an error names the drop-in and its
/// field; relative credential paths resolve beside the main file for all of them). Merging: a drop-in's session replaces the session of that name whole; `limits`,
/// `files` and `egress` are merged key by key; any other key replaces the earlier value.
public enum ConfigLoader {
  public static func load(path: String, environment: [String: String]) throws(ConfigError) -> DaemonConfig {
    guard let text = readSmallFile(path, limit: 16 << 20) else {
      throw ConfigError(file: path, field: "", reason: "cannot read: \(Errno.current)")
    }
    let base = FileRoots.directoryOf(path) ?? "."
    var merged = try object(text, file: path, environment: environment, base: base)
    for dropIn in dropIns(beside: path) {
      guard let text = readSmallFile(dropIn, limit: 16 << 20) else {
        throw ConfigError(file: dropIn, field: "", reason: "cannot read: \(Errno.current)")
      }
      merge(try object(text, file: dropIn, environment: environment, base: base), into: &merged)
    }
    var config = try DaemonConfig.parse(
      JSONWriter.bytes(.object(merged)), file: path, environment: environment, baseDirectory: base)
    config.protectedPaths.append(base + "/ferry.d")
    return config
  }

  /// The file's top-level object, after checking it is a valid configuration by itself.
  private static func object(
    _ text: String, file: String, environment: [String: String], base: String
  ) throws(ConfigError) -> JSONObject {
    let bytes = Array(text.utf8)
    _ = try DaemonConfig.parse(bytes, file: file, environment: environment, baseDirectory: base)
    guard case .object(let o)? = try? JSONReader().read(bytes) else {
      throw ConfigError(file: file, field: "", reason: "the top level must be an object")
    }
    return o
  }

  static func merge(_ dropIn: JSONObject, into base: inout JSONObject) {
    for m in dropIn {
      switch (m.key, base[m.key], m.value) {
      case ("sessions", .object(var old)?, .object(let new)),
        ("limits", .object(var old)?, .object(let new)),
        ("files", .object(var old)?, .object(let new)),
        ("egress", .object(var old)?, .object(let new)):
        for n in new { old[n.key] = n.value }
        base[m.key] = .object(old)
      default:
        base[m.key] = m.value
      }
    }
  }

  /// `DIR/ferry.d/*.json` for a config at `DIR/NAME`, sorted by name.
  static func dropIns(beside path: String) -> [String] {
    let dir = (FileRoots.directoryOf(path) ?? ".") + "/ferry.d"
    guard let entries = SystemCall.directoryEntries(dir) else { return [] }
    let names = entries.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
    return names.sorted().map { dir + "/" + $0 }
  }
}
