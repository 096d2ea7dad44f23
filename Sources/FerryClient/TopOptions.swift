/// `ferry top [--session NAME] [--json] [-1|--once]`, as read from its command line.
public struct TopOptions: Sendable, Equatable {
  /// `--json`: print the `stats` answer once, as JSON, and exit.
  public var printsJSON = false
  /// `-1`, `--once`: one pass of the view, then exit (also what a non-terminal stdout gets).
  public var once = false
  /// `--session NAME`: start with the view filtered to sessions whose name holds NAME.
  public var filter: String?

  public init(printsJSON: Bool = false, once: Bool = false, filter: String? = nil) {
    self.printsJSON = printsJSON
    self.once = once
    self.filter = filter
  }
}
