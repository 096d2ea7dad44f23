import Glibc

/// The terminal in `ferry top`'s hands: raw keys, the alternate screen, no cursor, and
/// SIGINT, SIGTERM and SIGWINCH held back to be read between draws, so every way out passes
/// through `restore()` and leaves the terminal as it was found.
struct Terminal {
  private var saved = termios()
  private var signals = sigset_t()
  private var oldMask = sigset_t()

  /// Takes over the terminal on stdin and stdout; nil when stdin is not one.
  static func enter() -> Terminal? {
    var terminal = Terminal()
    guard tcgetattr(STDIN_FILENO, &terminal.saved) == 0 else { return nil }
    sigemptyset(&terminal.signals)
    for signal in [SIGINT, SIGTERM, SIGWINCH, SIGHUP] { sigaddset(&terminal.signals, signal) }
    sigprocmask(SIG_BLOCK, &terminal.signals, &terminal.oldMask)
    var raw = terminal.saved
    // Keys one at a time without echo; output processing stays (so "\n" is still a new line), and
    // so does ISIG: Ctrl-C is SIGINT, taken by `wait` like SIGTERM.
    raw.c_lflag &= ~tcflag_t(ICANON | ECHO | IEXTEN)
    raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
    _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
    System.write(STDOUT_FILENO, "\u{1B}[?1049h\u{1B}[?25l")
    return terminal
  }

  /// Gives the terminal back: the main screen, the cursor, the modes it had, the signals.
  func restore() {
    var saved = saved
    var oldMask = oldMask
    System.write(STDOUT_FILENO, "\u{1B}[?25h\u{1B}[?1049l")
    _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
    sigprocmask(SIG_SETMASK, &oldMask, nil)
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
      if let signal = pendingSignal() { return signal == SIGWINCH ? .resized : .stop }
      let left = deadline - System.nowMs()
      guard left > 0 else { return .timeout }
      var ready = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
      guard poll(&ready, 1, Int32(min(left, 100))) > 0 else { continue }
      var byte: UInt8 = 0
      let n = read(STDIN_FILENO, &byte, 1)
      if n == 1 { return .key(byte) }
      if n == 0 { return .stop }
    }
  }

  /// A held signal that has arrived, taken.
  private func pendingSignal() -> Int32? {
    var signals = signals
    var info = siginfo_t()
    var now = timespec(tv_sec: 0, tv_nsec: 0)
    let signal = sigtimedwait(&signals, &info, &now)
    return signal > 0 ? signal : nil
  }

  /// Rows and columns of the terminal on stdout (24 by 80 when it does not say).
  static func size() -> (rows: Int, columns: Int) {
    var size = winsize()
    guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0, size.ws_col > 0 else {
      return (24, 80)
    }
    return (Int(size.ws_row), Int(size.ws_col))
  }
}
