import FerryLoop
import FerryWire

/// `output_fd` with `resume` (decision 40): the descriptor is a regular file holding the start
/// of the body, as `<output>.part` is for `output`; `validator_fd`, when passed, is the twin of
/// `<output>.part.validator`. The daemon reads the validator from it for the next `If-Range`
/// and writes it there when a response begins the file, so the client (the CLI) keeps it
/// across runs without knowing the rules (which response begins the file, which validator it
/// has): a different file on the server can never be spliced onto the old one's head when the
/// first response had a validator, exactly as for `output` paths.
extension DescriptorOutput {
  /// The size of the file the descriptor continues (0 when it cannot be examined).
  func partSize() -> Int64 {
    guard case .success(let st) = SystemCall.status(of: fd, trapsOnBadDescriptor: false) else { return 0 }
    return st.size
  }

  /// The validator kept in `validator_fd`, or nil (none passed, empty, not a short text line).
  func storedValidator() -> String? {
    guard let vfd = validatorFD else { return nil }
    var bytes = [UInt8](repeating: 0, count: OutputFile.maxValidatorBytes + 1)
    let read = bytes.withUnsafeMutableBytes {
      SystemCall.read(vfd, into: $0, at: 0, trapsOnBadDescriptor: false)
    }
    guard case .success(let n) = read, n > 0, n <= OutputFile.maxValidatorBytes else { return nil }
    return OutputFile.validatorText(bytes[..<n])
  }

  /// The response continues the file at `base`: the bytes go on from there.
  func continuePart(at base: Int64) throws(WireError) {
    if case .failure(let error) = SystemCall.seek(fd, to: base, trapsOnBadDescriptor: false) {
      throw Self.failure("cannot continue the file at byte \(base): \(error)")
    }
    resumedFrom = base
  }

  /// The response begins the file (a 200, or a 206 of the whole): it is emptied, and
  /// `validator` (nil: none) is kept for the next resume.
  func startPartOver(validator: String?) throws(WireError) {
    if case .failure(let error) = SystemCall.truncate(fd, trapsOnBadDescriptor: false) {
      throw Self.failure("cannot empty the file to start it over: \(error)")
    }
    _ = SystemCall.seek(fd, to: 0, trapsOnBadDescriptor: false)
    resumedFrom = 0
    storeValidator(validator)
  }

  /// The server's answer does not continue the file (`resume_mismatch`): it is emptied, with its
  /// validator, as `output`'s partial file is removed, so the next try starts over.
  func dropPartial() {
    if fd >= 0 { _ = SystemCall.truncate(fd, trapsOnBadDescriptor: false) }
    storeValidator(nil)
  }

  private func storeValidator(_ validator: String?) {
    guard let vfd = validatorFD else { return }
    guard case .success = SystemCall.truncate(vfd, trapsOnBadDescriptor: false) else { return }
    guard let validator else { return }
    let bytes = Array(validator.utf8)
    let written = bytes.withUnsafeBytes { SystemCall.write(vfd, $0, at: 0, trapsOnBadDescriptor: false) }
    if written != .success(bytes.count) { _ = SystemCall.truncate(vfd, trapsOnBadDescriptor: false) }
  }

  /// Why `fd` cannot keep a validator, or nil: it must be a regular file open for reading and
  /// writing.
  static func validatorProblem(_ fd: Int32) -> String? {
    guard case .success(let st) = SystemCall.status(of: fd, trapsOnBadDescriptor: false) else {
      return "cannot be examined"
    }
    guard st.kind == .regular else { return "is not a regular file" }
    guard case .success(let flags) = SystemCall.statusFlags(fd, trapsOnBadDescriptor: false),
      !flags.contains(.pathOnly), flags.accessMode == .readWrite
    else {
      return "is not open for reading and writing"
    }
    return nil
  }
}
