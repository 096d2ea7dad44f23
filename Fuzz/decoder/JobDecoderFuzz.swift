import FerryWire

/// Fuzzes `JobDecoder` on one client line.
///
/// Invariants, for any line:
/// - the decoder's fast path (parameters kept as text) and its full path (the line read as a
///   tree, then decoded) give the same message or the same failure;
/// - a line that is not JSON, or not an object, fails with `invalid_json` (or `invalid_job`
///   for a key given twice), never anything else;
/// - a failure carries a PROTOCOL.md code a line can fail with, `invalid_job` names a field,
///   and the id it reports is a valid one;
/// - a job has a URL, and parameters kept as text are byte for byte JSONWriter's text of the
///   parameters' tree (the serializer sends that text as the JSON body).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJobDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let line = fuzzInput(data, size)
  let decoder = JobDecoder()
  let result = decoder.decode(line)
  let tree = Result { () throws(JSONError) in
    try JSONReader(maxDepth: decoder.maxDepth, rejectsDuplicateKeys: true).read(line)
  }
  switch tree {
  case .failure(let error):
    let expected: ErrorCode = error.duplicateKeyPath == nil ? .invalidJSON : .invalidJob
    fuzzCheck(result.failure?.error.code == expected, "\(error) decoded as \(result)")
  case .success(.object(let object)):
    fuzzCheck(decoder.decode(object) == result, "fast and full paths differ on \(describe(line))")
  case .success(let value):
    fuzzCheck(result.failure?.error.code == .invalidJSON, "top-level \(value.typeName) decoded as \(result)")
  }
  switch result {
  case .failure(let failure): checkFailure(failure)
  case .success(.job(let job)), .success(.explain(let job, _)): checkJob(job)
  case .success(.cancel(let id)), .success(.attach(let id)): checkID(id)
  case .success: break
  }
  return 0
}

private func checkFailure(_ failure: DecodeFailure) {
  let error = failure.error
  fuzzCheck([.invalidJSON, .invalidJob, .unknownOp].contains(error.code), "code \(error.code)")
  fuzzCheck(!error.message.isEmpty, "empty message")
  if error.code == .invalidJob { fuzzCheck(error.field != nil, "invalid_job without field") }
  if let id = failure.id { checkID(id) }
}

private func checkJob(_ job: Job) {
  fuzzCheck(job.url != nil, "a job without url")
  fuzzCheck(job.hasParameters == (job.parameters != nil), "hasParameters disagrees")
  if let text = job.parametersJSON, let tree = job.parameters {
    fuzzCheck(JSONWriter.bytes(tree) == text, "kept parameters \(describe(text)) are not the writer's text")
  }
  if let id = job.id { checkID(id) }
}

/// PROTOCOL.md: an id is 1–256 bytes without control characters.
private func checkID(_ id: String) {
  let bytes = id.utf8
  fuzzCheck(!bytes.isEmpty && bytes.count <= 256, "id of \(bytes.count) bytes")
  fuzzCheck(!bytes.contains { $0 < 0x20 || $0 == 0x7F }, "id with a control character")
}

extension Result {
  fileprivate var failure: Failure? {
    if case .failure(let f) = self { return f }
    return nil
  }
}
