/// A request made through `FerryHTTPSessionManager` (AF's NSURLSessionDataTask): cancel it, or
/// read its job's id.
public final class FerryTask: Sendable {
  private let job = FerryLock<FerryJob?>(nil)
  private let isCancelled = FerryLock(false)

  init() {}

  /// The job's id, once it was handed to the connection (nil when the request could not be
  /// built).
  public var jobID: String? { job.withLock { $0?.id } }

  /// Cancels the job: the failure block gets `FerryError` `cancelled` (as AF's gets
  /// NSURLErrorCancelled), unless the job ended first.
  public func cancel() {
    isCancelled.withLock { $0 = true }
    job.withLock { $0 }?.cancel()
  }

  func attach(_ newJob: FerryJob) {
    job.withLock { $0 = newJob }
    if isCancelled.withLock({ $0 }) { newJob.cancel() }
  }
}

/// A transfer's progress as the manager's `progress` blocks get it (AF's NSProgress).
public struct FerryProgress: Sendable, Equatable {
  public var completedUnitCount: Int64
  /// Nil when the size is not known.
  public var totalUnitCount: Int64?

  /// From 0 to 1; 0 when the total is unknown.
  public var fractionCompleted: Double {
    guard let total = totalUnitCount, total > 0 else { return 0 }
    return Double(completedUnitCount) / Double(total)
  }
}
