import Glibc

/// A terminal's modes (`struct termios`), read and set through `SystemCall`, with the changes
/// `ferry` makes: echo off for a password, keys one at a time for `ferry top`.
public struct TerminalMode: Sendable {
  fileprivate var attributes: termios

  /// When a change applies: at once (TCSANOW), or once output is written with pending input
  /// thrown away (TCSAFLUSH).
  public enum When: Sendable {
    case now, afterFlush
  }

  /// These modes without echo.
  public var withoutEcho: TerminalMode {
    var mode = self
    mode.attributes.c_lflag &= ~tcflag_t(ECHO)
    return mode
  }

  /// These modes with keys read one at a time and not echoed; output processing stays (so
  /// "\n" is still a new line), and so does ISIG (Ctrl-C is still SIGINT).
  public var keyByKey: TerminalMode {
    var mode = self
    mode.attributes.c_lflag &= ~tcflag_t(ICANON | ECHO | IEXTEN)
    mode.attributes.c_iflag &= ~tcflag_t(IXON | ICRNL)
    return mode
  }
}

extension SystemCall {
  /// The modes of the terminal on `fd` (`tcgetattr`), or nil when it is not one.
  public static func terminalMode(_ fd: Int32) -> TerminalMode? {
    var attributes = termios()
    guard case .success = retrying(trapsOnBadDescriptor: false, { tcgetattr(fd, &attributes) }) else {
      return nil
    }
    return TerminalMode(attributes: attributes)
  }

  /// Sets the modes of the terminal on `fd` (`tcsetattr`); failures are ignored, as a
  /// terminal that went away has no modes to keep.
  public static func setTerminalMode(_ fd: Int32, _ mode: TerminalMode, when: TerminalMode.When) {
    var attributes = mode.attributes
    _ = retrying(trapsOnBadDescriptor: false) {
      tcsetattr(fd, when == .now ? TCSANOW : TCSAFLUSH, &attributes)
    }
  }

  /// Rows and columns of the terminal on `fd` (`TIOCGWINSZ`), nil when it does not say.
  public static func terminalSize(_ fd: Int32) -> (rows: Int, columns: Int)? {
    var size = winsize()
    guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0 else { return nil }
    return (Int(size.ws_row), Int(size.ws_col))
  }

  /// Waits up to `milliseconds` for `fd` to be readable (`poll`); false on timeout, or when a
  /// signal cut the wait short (the caller looks at its signals, then waits again).
  public static func waitReadable(_ fd: Int32, milliseconds: Int32) -> Bool {
    var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&ready, 1, milliseconds) > 0
  }
}
