/// Why an engine could not start: libcurl failed to set up its multi handle.
public struct EngineError: Error, Sendable, Equatable, CustomStringConvertible {
  public var message: String

  public init(_ message: String) { self.message = message }

  public var description: String { message }
}
