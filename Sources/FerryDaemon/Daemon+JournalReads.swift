import FerryStore
import FerryWire

/// A read of the journal that its writer thread does for the loop (issue 28), and what waits
/// for its answer.
enum JournalRead {
  /// The `jobs` op of a client.
  case jobs(Client)
  /// The results queued to a client that went away before they were written.
  case results([JournalKey])
}

/// Reads of the journal off the loop (issue 28): the `jobs` op and a vanished client's
/// uncollected results once drained the writer on the loop (an fsync under `journal.sync:
/// full`) and read there. Now what is staged is handed over, the read is queued on the writer
/// after it (so it sees every record before it), and the answer goes out when the writer
/// reports back; other clients are served meanwhile.
extension Daemon {
  /// `{"op":"jobs"}`: answered once the writer has read the caller's durable jobs; an `error`
  /// event (`store_failed`) when the journal cannot be read, never a list missing them.
  func jobsOp(client: Client) {
    guard let uid = client.credentials?.uid, let journal = openJournalIfPresent() else {
      return client.send(.payload(name: "jobs", jobsPayload(for: client, durable: [])))
    }
    guard let writer = journalWriter else {
      // No writer thread (it could not start): the read is made here.
      do throws(StoreError) {
        let durable = try journal.jobs(visibleTo: uid)
        return client.send(.payload(name: "jobs", jobsPayload(for: client, durable: durable)))
      } catch {
        return journalListed(error, client: client)
      }
    }
    askJournal(.jobs(client), journal, writer) { tag in writer.listJobs(visibleTo: uid, tag: tag) }
  }

  /// Hands what is staged to the writer, then `read` after it, waiting under a new tag.
  func askJournal(
    _ read: JournalRead, _ journal: Journal, _ writer: JournalWriter, ask: (UInt64) -> Void
  ) {
    journalPending = false
    journalTimer?.cancel()
    if journal.stagedCount > 0 { handOver(journal, to: writer) }
    journalReadsAsked += 1
    journalReads[journalReadsAsked] = read
    ask(journalReadsAsked)
  }

  /// The writer read the jobs of a `jobs` op.
  func journalListed(_ tag: UInt64, _ result: Result<[JobListing], StoreError>) {
    guard case .jobs(let client)? = journalReads.removeValue(forKey: tag) else { return }
    switch result {
    case .success(let durable):
      client.send(.payload(name: "jobs", jobsPayload(for: client, durable: durable)))
    case .failure(let error): journalListed(error, client: client)
    }
  }

  private func journalListed(_ error: StoreError, client: Client) {
    logger.warning("journal not read for the jobs op", ["error": "\(error)"])
    client.send(.error(WireError(.storeFailed, "the journal could not be read: \(error)"), id: nil))
  }

  /// The writer read every job back for a vanished client's results.
  func journalRecovered(_ tag: UInt64, _ result: Result<[RecoveredJob], StoreError>) {
    guard case .results(let keys)? = journalReads.removeValue(forKey: tag) else { return }
    switch result {
    case .success(let recovered): restoreResults(Set(keys), from: recovered)
    case .failure(let error):
      logger.warning("journal not read: uncollected results wait for the next start", ["error": "\(error)"])
    }
    guard !journalReads.values.contains(where: { if case .results = $0 { true } else { false } }) else {
      return
    }
    var waiting: [(id: String, client: Client)] = []
    swap(&waiting, &attachesAwaitingJournal)
    for (id, client) in waiting where !client.isGone { attach(id, from: client) }
  }
}
