import FerryLoop
import FerryWire

#if canImport(Glibc)
  import Glibc
#endif

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
    var st = stat()
    let fd = self.fd
    guard case .success = SystemCall.retrying(trapsOnBadDescriptor: false, { fstat(fd, &st) }) else {
      return 0
    }
    return Int64(st.st_size)
  }

  /// The validator kept in `validator_fd`, or nil (none passed, empty, not a short text line).
  func storedValidator() -> String? {
    guard let vfd = validatorFD else { return nil }
    var bytes = [UInt8](repeating: 0, count: OutputFile.maxValidatorBytes + 1)
    let read = bytes.withUnsafeMutableBytes { buffer in
      SystemCall.retrying(trapsOnBadDescriptor: false) { pread(vfd, buffer.baseAddress!, buffer.count, 0) }
    }
    guard case .success(let n) = read, n > 0, n <= OutputFile.maxValidatorBytes else { return nil }
    return OutputFile.validatorText(bytes[..<n])
  }

  /// The response continues the file at `base`: the bytes go on from there.
  func continuePart(at base: Int64) throws(WireError) {
    let fd = self.fd
    if case .failure(let error) = SystemCall.retrying(
      trapsOnBadDescriptor: false, { lseek(fd, off_t(base), SEEK_SET) }
    ) {
      throw Self.failure("cannot continue the file at byte \(base): \(error)")
    }
    resumedFrom = base
  }

  /// The response begins the file (a 200, or a 206 of the whole): it is emptied, and
  /// `validator` (nil: none) is kept for the next resume.
  func startPartOver(validator: String?) throws(WireError) {
    let fd = self.fd
    if case .failure(let error) = SystemCall.retrying(trapsOnBadDescriptor: false, { ftruncate(fd, 0) }) {
      throw Self.failure("cannot empty the file to start it over: \(error)")
    }
    _ = SystemCall.retrying(trapsOnBadDescriptor: false) { lseek(fd, 0, SEEK_SET) }
    resumedFrom = 0
    storeValidator(validator)
  }

  /// The server's answer does not continue the file (`resume_mismatch`): it is emptied, with its
  /// validator, as `output`'s partial file is removed, so the next try starts over.
  func dropPartial() {
    let fd = self.fd
    if fd >= 0 { _ = SystemCall.retrying(trapsOnBadDescriptor: false) { ftruncate(fd, 0) } }
    storeValidator(nil)
  }

  private func storeValidator(_ validator: String?) {
    guard let vfd = validatorFD else { return }
    guard case .success = SystemCall.retrying(trapsOnBadDescriptor: false, { ftruncate(vfd, 0) }) else {
      return
    }
    guard let validator else { return }
    let bytes = Array(validator.utf8)
    let written = bytes.withUnsafeBytes { buffer in
      SystemCall.retrying(trapsOnBadDescriptor: false) { pwrite(vfd, buffer.baseAddress!, buffer.count, 0) }
    }
    if written != .success(bytes.count) {
      _ = SystemCall.retrying(trapsOnBadDescriptor: false) { ftruncate(vfd, 0) }
    }
  }

  /// Why `fd` cannot keep a validator, or nil: it must be a regular file open for reading and
  /// writing.
  static func validatorProblem(_ fd: Int32) -> String? {
    var st = stat()
    guard case .success = SystemCall.retrying(trapsOnBadDescriptor: false, { fstat(fd, &st) }) else {
      return "cannot be examined"
    }
    guard st.st_mode & S_IFMT == S_IFREG else { return "is not a regular file" }
    let flags = fcntl(fd, F_GETFL)
    guard flags >= 0, flags & pathOnly == 0, flags & O_ACCMODE == O_RDWR else {
      return "is not open for reading and writing"
    }
    return nil
  }
}
