import FerryStore

/// A durable job's journal state and its cookie jar (`JobRunExtras`), read and written as the
/// `JobRun`'s own: reading gives the initial value to a job without them, and only writing
/// something else makes them.
extension JobRun {
  private var madeExtras: JobRunExtras {
    if let extras { return extras }
    let made = JobRunExtras()
    extras = made
    return made
  }

  var journalKey: JournalKey? {
    get { extras?.journalKey }
    set { if newValue != nil || extras != nil { madeExtras.journalKey = newValue } }
  }
  var journalOwner: JobTable.DetachedKey? {
    get { extras?.journalOwner }
    set { if newValue != nil || extras != nil { madeExtras.journalOwner = newValue } }
  }
  var journalBatch: UInt64 {
    get { extras?.journalBatch ?? 0 }
    set { if newValue != 0 || extras != nil { madeExtras.journalBatch = newValue } }
  }
  var heldLines: [UInt8]? {
    get { extras?.heldLines }
    set { if newValue != nil || extras != nil { madeExtras.heldLines = newValue } }
    _modify {
      if let extras {
        yield &extras.heldLines
      } else {
        var value: [UInt8]? = nil
        yield &value
        if value != nil { madeExtras.heldLines = value }
      }
    }
  }
  var startHeld: Bool {
    get { extras?.startHeld ?? false }
    set { if newValue || extras != nil { madeExtras.startHeld = newValue } }
  }
  var transferAwaitsCommit: Bool {
    get { extras?.transferAwaitsCommit ?? false }
    set { if newValue || extras != nil { madeExtras.transferAwaitsCommit = newValue } }
  }
  var cookieKey: CookieJars.Key? {
    get { extras?.cookieKey }
    set { if newValue != nil || extras != nil { madeExtras.cookieKey = newValue } }
  }
  var cookieLease: CookieLease? {
    get { extras?.cookieLease }
    set { if newValue != nil || extras != nil { madeExtras.cookieLease = newValue } }
  }
}
