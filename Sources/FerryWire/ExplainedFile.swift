/// What the client says about a descriptor its `explain` job names (`fd`): the op's line
/// carries no descriptor, so the daemon opens nothing and takes these for the account only.
///
/// `{"path": "/abs/photo.png", "length": 302}` is a regular file the client would pass;
/// without `length` it is a stream (a pipe), whose bytes are known only when sent. The path
/// is shown in the curl command (`-F 'f=@/abs/photo.png'`); it is never opened.
public struct ExplainedFile: Sendable, Equatable {
  public var path: String?
  public var length: Int64?

  public init(path: String? = nil, length: Int64? = nil) {
    self.path = path
    self.length = length
  }

  /// The op's `files`: at most four (as many as a job line passes), indexed as `fd` fields.
  static func decode(_ field: Field) throws(WireError) -> [ExplainedFile] {
    let elements = try field.array()
    guard elements.count <= 4 else { throw field.invalid("at most 4 files, one per passable descriptor") }
    var files: [ExplainedFile] = []
    for (i, element) in elements.enumerated() {
      let item = field.child(String(i), element)
      var file = ExplainedFile()
      for member in try item.object().members {
        let child = item.child(member.key, member.value)
        switch member.key {
        case "path":
          let path = try child.string()
          guard path.hasPrefix("/"), !path.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw child.invalid("an absolute path without control characters")
          }
          file.path = path
        case "length": file.length = Int64(try child.integer(0...Int.max))
        default: throw child.invalid("unknown field")
        }
      }
      files.append(file)
    }
    return files
  }
}
