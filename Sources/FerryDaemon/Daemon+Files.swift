import FerryLoop
import FerrySession
import FerryWire

/// Output files: where a job may write, and one live job per file.
extension Daemon {
  /// The output's target (`FileRoots.outputTarget`), refused when no `write_roots` are
  /// configured, when it is outside them or one of the daemon's own files, and `output_busy`
  /// when a live job already writes it. A daemon that cannot make a file `owner`'s (it is
  /// neither root nor that user) writes none for them: `file_not_allowed`, pointing at
  /// `output_fd` (issue 26; a daemon-owned file would be the daemon's to read, not theirs).
  func outputTarget(_ path: String, for owner: OutputOwner?) throws(WireError) -> String {
    guard let roots = config.writeRoots else {
      throw WireError(
        .fileNotAllowed, "\(path): no files.write_roots are configured, so jobs write no files",
        field: "output")
    }
    if let owner, !owner.canBeGivenFiles {
      throw WireError(
        .fileNotAllowed,
        "ferryd runs as uid \(SystemCall.effectiveUserID) and cannot make \(path) a file of uid \(owner.uid); pass it as output_fd (ferry -o does)",
        field: "output")
    }
    let target = try FileRoots.outputTarget(path, within: roots, protected: config.protectedPaths)
    if outputsInUse[target] != nil || outputsInUse[target + ".part"] != nil {
      throw WireError(.outputBusy, "another live job writes \(path)", field: "output")
    }
    return target
  }

  /// Records that job `serial` writes `target`; returns what is there now, for the job.
  func claimOutput(_ target: String, serial: UInt64) -> OutputFile.Baseline {
    outputsInUse[target] = serial
    return OutputFile.Baseline(of: target)
  }

  /// Forgets the output a finished job held, so another may write it.
  func releaseOutput(of run: JobRun) {
    guard run.job.output != nil, let held = outputsInUse.first(where: { $0.value == run.serial }) else {
      return
    }
    outputsInUse.removeValue(forKey: held.key)
  }
}
