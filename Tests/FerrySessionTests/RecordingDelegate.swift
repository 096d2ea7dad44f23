import FerrySession
import FerryWire

/// A delegate that records everything a transfer reports, in order, for engine tests.
@MainActor final class RecordingDelegate: TransferDelegate {
  /// The kinds of calls, in the order they came: `head`, `body`, `progress`, `finish`.
  private(set) var calls: [String] = []
  private(set) var heads: [ResponseHead] = []
  private(set) var body: [UInt8] = []
  private(set) var bodyChunks = 0
  private(set) var progress: [(direction: ProgressDirection, done: Int64, total: Int64?)] = []
  private(set) var result: Result<TransferMetrics, WireError>?
  private(set) var finishCount = 0
  /// Decides what to do with each chunk (default: take it).
  var onBody: ((UnsafeRawBufferPointer) -> BodyDisposition)?
  var onHead: ((ResponseHead) -> Void)?
  var onFinish: (() -> Void)?

  var isFinished: Bool { result != nil }

  var metrics: TransferMetrics? {
    if case .success(let metrics) = result { return metrics }
    return nil
  }

  var error: WireError? {
    if case .failure(let error) = result { return error }
    return nil
  }

  var bodyText: String { String(decoding: body, as: UTF8.self) }

  func transferDidReceiveHead(_ head: ResponseHead) {
    calls.append("head")
    heads.append(head)
    onHead?(head)
  }

  func transferDidReceiveBody(_ bytes: UnsafeRawBufferPointer) -> BodyDisposition {
    let disposition = onBody?(bytes) ?? .continue
    if disposition == .continue {
      if calls.last != "body" { calls.append("body") }
      body.append(contentsOf: bytes)
      bodyChunks += 1
    }
    return disposition
  }

  func transferDidProgress(direction: ProgressDirection, done: Int64, total: Int64?) {
    if calls.last != "progress" { calls.append("progress") }
    progress.append((direction, done, total))
  }

  func transferDidFinish(_ result: Result<TransferMetrics, WireError>) {
    calls.append("finish")
    finishCount += 1
    self.result = result
    onFinish?()
  }
}
