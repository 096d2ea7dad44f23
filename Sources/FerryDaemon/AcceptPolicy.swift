import FerryWire

/// Response validation after AFHTTPResponseSerializer's `validateResponse`: status in the
/// acceptable ranges (default 200–299) and, when the job names content types, the response's
/// media type among them.
public struct AcceptPolicy: Sendable, Equatable {
  public var status: [ClosedRange<Int>]
  public var contentTypes: [String]?

  /// 2xx, built once rather than for every job that keeps the default.
  private static let successful = [200...299]

  public init(_ accept: Accept?) {
    status = accept?.status ?? Self.successful
    contentTypes = accept?.contentTypes.map { $0.map { $0.lowercased() } }
  }

  /// `nil` when acceptable, else the error the job fails with.
  ///
  /// Like AFNetworking, an empty body is not rejected for its content type: there is nothing to
  /// misread.
  public func check(status code: Int, contentType: String?, bodyIsEmpty: Bool) -> WireError? {
    if !status.contains(where: { $0.contains(code) }) {
      return WireError(.unacceptableStatus, "request failed: unacceptable status \(code)")
    }
    if let contentTypes, !bodyIsEmpty {
      let media = MediaType(contentType).essence
      if !contentTypes.contains(media) {
        let shown = media.isEmpty ? "none" : media
        return WireError(.unacceptableContentType, "request failed: unacceptable content type \(shown)")
      }
    }
    return nil
  }
}
