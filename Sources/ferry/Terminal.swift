import FerrySystem

/// The terminal in `ferry top`'s hands: raw keys, the alternate screen, no cursor, and
/// SIGINT, SIGTERM and SIGWINCH held back to be read between draws, so every way out passes
/// through `restore()` and leaves the terminal as it was found.
struct Terminal {
  private let saved: TerminalMode
  private let signals: HeldSignals

  /// Takes over the terminal on stdin and stdout; nil when stdin is not one.
  static func enter() -> Terminal? {
    guard let saved = SystemCall.terminalMode(SystemCall.standardInput) else { return nil }
    let signals = HeldSignals([
      HeldSignals.interrupt, HeldSignals.terminate, HeldSignals.windowChanged, HeldSignals.hangUp,
    ])
    // Keys one at a time without echo; Ctrl-C is still SIGINT, taken by `wait` like SIGTERM.
    SystemCall.setTerminalMode(SystemCall.standardInput, saved.keyByKey, when: .afterFlush)
    System.write(SystemCall.standardOutput, "\u{1B}[?1049h\u{1B}[?25l")
    return Terminal(saved: saved, signals: signals)
  }

  /// Gives the terminal back: the main screen, the cursor, the modes it had, the signals.
  func restore() {
    System.write(SystemCall.standardOutput, "\u{1B}[?25h\u{1B}[?1049l")
    SystemCall.setTerminalMode(SystemCall.standardInput, saved, when: .afterFlush)
    signals.release()
  }

  /// What came while waiting.
  enum Input: Equatable {
    case key(UInt8)
    case resized
    case stop
    case timeout
  }

  /// Waits up to `milliseconds` for a key or one of the held signals (looked at every 100 ms).
  func wait(milliseconds: Int64) -> Input {
    let deadline = System.nowMs() + milliseconds
    while true {
      if let signal = signals.takePending() { return signal == HeldSignals.windowChanged ? .resized : .stop }
      let left = deadline - System.nowMs()
      guard left > 0 else { return .timeout }
      guard SystemCall.waitReadable(SystemCall.standardInput, milliseconds: Int32(min(left, 100))) else {
        continue
      }
      var byte: UInt8 = 0
      let read = withUnsafeMutableBytes(of: &byte) {
        SystemCall.read(from: SystemCall.standardInput, into: $0, trapsOnBadDescriptor: false)
      }
      if case .success(1) = read { return .key(byte) }
      if case .success(0) = read { return .stop }
    }
  }

  /// Rows and columns of the terminal on stdout (24 by 80 when it does not say).
  static func size() -> (rows: Int, columns: Int) {
    guard let size = SystemCall.terminalSize(SystemCall.standardOutput), size.rows > 0, size.columns > 0
    else {
      return (24, 80)
    }
    return size
  }
}
