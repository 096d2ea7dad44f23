import Dispatch

/// AFHTTPSessionManager's shape over a `FerryClient`: `GET`, `HEAD`, `POST`, `PUT`, `PATCH`,
/// `DELETE` with success and failure blocks, each returning a `FerryTask` to cancel.
///
/// Blocks run on `completionQueue`. Its default is a private serial queue, not the main
/// queue as in AFNetworking: a Linux program may never run Dispatch's main queue (it needs
/// `dispatchMain()` or a RunLoop), and blocks sent there would never run. Set it to
/// `.main` in a program that does run the main queue.
public final class FerryHTTPSessionManager: Sendable {
  public typealias Success = @Sendable (FerryTask, FerryResponse) -> Void
  public typealias Failure = @Sendable (FerryTask?, FerryError) -> Void
  public typealias Progress = @Sendable (FerryProgress) -> Void

  public let client: FerryClient
  /// The daemon session every request runs in (nil: `default`).
  public let session: String?
  private let settings: FerryLock<(FerryRequestSerializer, DispatchQueue)>

  public init(client: FerryClient, session: String? = nil) {
    self.client = client
    self.session = session
    settings = FerryLock((FerryRequestSerializer(), DispatchQueue(label: "ferrykit.completion")))
  }

  public var requestSerializer: FerryRequestSerializer {
    get { settings.withLock { $0.0 } }
    set { settings.withLock { $0.0 = newValue } }
  }

  public var completionQueue: DispatchQueue {
    get { settings.withLock { $0.1 } }
    set { settings.withLock { $0.1 = newValue } }
  }

  @discardableResult
  public func GET(
    _ url: String, parameters: FerryValue? = nil, headers: [String: String]? = nil, progress: Progress? = nil,
    success: Success?, failure: Failure?
  ) -> FerryTask {
    dataTask(
      "GET", url, parameters, headers, parts: nil, progress: progress.map { (.download, $0) }, success,
      failure)
  }

  @discardableResult
  public func HEAD(
    _ url: String, parameters: FerryValue? = nil, headers: [String: String]? = nil, success: Success?,
    failure: Failure?
  ) -> FerryTask {
    dataTask("HEAD", url, parameters, headers, parts: nil, progress: nil, success, failure)
  }

  /// POST; `progress` reports the upload (AF's uploadProgress).
  @discardableResult
  public func POST(
    _ url: String, parameters: FerryValue? = nil, headers: [String: String]? = nil, progress: Progress? = nil,
    success: Success?, failure: Failure?
  ) -> FerryTask {
    dataTask(
      "POST", url, parameters, headers, parts: nil, progress: progress.map { (.upload, $0) }, success, failure
    )
  }

  /// A multipart POST: `parameters` become form fields, then `block` adds parts.
  @discardableResult
  public func POST(
    _ url: String, parameters: FerryValue? = nil, headers: [String: String]? = nil,
    constructingBodyWith block: (FerryMultipartFormData) -> Void, progress: Progress? = nil,
    success: Success?, failure: Failure?
  ) -> FerryTask {
    let form = FerryMultipartFormData()
    block(form)
    if let error = form.error {
      let task = FerryTask()
      completionQueue.async { failure?(nil, error) }
      return task
    }
    return dataTask(
      "POST", url, parameters, headers, parts: form.parts, progress: progress.map { (.upload, $0) }, success,
      failure)
  }

  @discardableResult
  public func PUT(
    _ url: String, parameters: FerryValue? = nil, headers: [String: String]? = nil, success: Success?,
    failure: Failure?
  ) -> FerryTask {
    dataTask("PUT", url, parameters, headers, parts: nil, progress: nil, success, failure)
  }

  @discardableResult
  public func PATCH(
    _ url: String, parameters: FerryValue? = nil, headers: [String: String]? = nil, success: Success?,
    failure: Failure?
  ) -> FerryTask {
    dataTask("PATCH", url, parameters, headers, parts: nil, progress: nil, success, failure)
  }

  @discardableResult
  public func DELETE(
    _ url: String, parameters: FerryValue? = nil, headers: [String: String]? = nil, success: Success?,
    failure: Failure?
  ) -> FerryTask {
    dataTask("DELETE", url, parameters, headers, parts: nil, progress: nil, success, failure)
  }

  /// AF's `dataTaskWithHTTPMethod:…`: every method above ends here.
  @discardableResult
  public func dataTask(
    _ method: String, _ url: String, _ parameters: FerryValue?, _ headers: [String: String]?,
    parts: [FerryRequest.Part]?, progress: (FerryEvent.Direction, Progress)?, _ success: Success?,
    _ failure: Failure?
  ) -> FerryTask {
    let (serializer, queue) = settings.withLock { $0 }
    var request = serializer.request(method, url, parameters: parameters, headers: headers, session: session)
    if let parts {
      request.parts = parts
      request.encoding = .multipart
    }
    let task = FerryTask()
    var observer: (@Sendable (FerryEvent) -> Void)?
    if let (direction, block) = progress {
      observer = { event in
        guard case .progress(let moved, let done, let total) = event, moved == direction else { return }
        queue.async { block(FerryProgress(completedUnitCount: done, totalUnitCount: total)) }
      }
    }
    let job: FerryJob
    do {
      job = try client.makeJob(
        request, mode: .inline, events: progress == nil ? [] : ["progress"], keepsEvents: false,
        observer: observer)
    } catch {
      queue.async { failure?(nil, error) }
      return task
    }
    task.attach(job)
    Task {
      do {
        let response = try await job.result()
        queue.async { success?(task, response) }
      } catch {
        let error = error as? FerryError ?? FerryError(code: "protocol_error", message: "\(error)")
        queue.async { failure?(task, error) }
      }
    }
    return task
  }
}
