import FerryWire
import Testing

@testable import FerrySession

/// The transfer's life as a value: each event's effect on the phase and the action it asks for.
struct TransferStateMachineTests {
  typealias Machine = TransferStateMachine

  func running(_ receive: Machine.Receive, endedWith: UInt32? = nil) -> Machine.Phase {
    .running(Machine.Running(receive: receive, endedWith: endedWith))
  }

  @Test func aFlowingTransferTakesEveryChunkAndDeliversIt() {
    var machine = Machine()
    #expect(machine.bodyOffered() == .take)
    #expect(machine.bodyOffered() == .take)
    #expect(machine.bodyArrived() == .deliver)
    #expect(machine.phase == running(.flowing))
    #expect(!machine.isReceivePaused)
  }

  @Test func aRefusedChunkHoldsTheRestAndTheNextOfferPausesCurl() {
    var machine = Machine()
    #expect(machine.bodyOffered() == .take)
    machine.bodyRefused()
    #expect(machine.phase == running(.pauseRequested))
    #expect(machine.isReceivePaused)
    // Chunks recorded in the same curl call are held after the refused one.
    #expect(machine.bodyArrived() == .hold)
    // The next chunk curl offers is refused, which pauses curl.
    #expect(machine.bodyOffered() == .refuse)
    #expect(machine.phase == running(.paused))
    #expect(machine.bodyOffered() == .refuse)
    #expect(machine.phase == running(.paused))
  }

  @Test func resumingAPausedTransferHandsOverTheHeldBodyThenUnpausesCurl() {
    var machine = Machine()
    machine.bodyRefused()
    _ = machine.bodyOffered()
    let changed1 = machine.resumeRequested()
    #expect(changed1)
    #expect(machine.phase == running(.resuming(isCurlPaused: true)))
    #expect(machine.isHandingOverHeldBody)
    #expect(!machine.isReceivePaused)
    // Recorded while the held body goes: held after it, never ahead of it.
    #expect(machine.bodyArrived() == .hold)
    #expect(machine.heldBodyTaken() == .unpauseCurl)
    // What curl re-delivers from inside curl_easy_pause is taken.
    #expect(machine.bodyOffered() == .take)
    machine.curlUnpaused()
    #expect(machine.phase == running(.flowing))
    #expect(machine.bodyArrived() == .deliver)
  }

  @Test func aTransferAtItsRecordLimitPausesCurlUntilTheRecordedBodyIsDelivered() {
    var machine = Machine()
    #expect(machine.bodyOffered(isRecordFull: false) == .take)
    #expect(machine.bodyOffered(isRecordFull: true) == .refuseUntilDelivered)
    #expect(machine.phase == running(.draining))
    #expect(machine.bodyOffered(isRecordFull: true) == .refuse)
    // The delegate still takes body: nothing is paused on its side.
    #expect(!machine.isReceivePaused)
    #expect(machine.bodyArrived() == .deliver)
    let changed2 = machine.resumeRequested()
    #expect(!changed2)
    let changed3 = machine.recordedBodyDelivered()
    #expect(changed3)
    #expect(machine.phase == running(.resuming(isCurlPaused: true)))
    #expect(machine.bodyOffered(isRecordFull: true) == .take)
    machine.curlUnpaused()
    #expect(machine.phase == running(.flowing))
    let changed4 = machine.recordedBodyDelivered()
    #expect(!changed4)
  }

  @Test func aDrainingTransferWhoseDelegatePausesStaysPausedInCurl() {
    var machine = Machine()
    _ = machine.bodyOffered(isRecordFull: true)
    machine.bodyRefused()
    #expect(machine.phase == running(.paused))
    // Delivering the rest of the round does not unpause curl.
    let changed5 = machine.recordedBodyDelivered()
    #expect(!changed5)
    let changed6 = machine.resumeRequested()
    #expect(changed6)
    #expect(machine.heldBodyTaken() == .unpauseCurl)
  }

  @Test func resumingBeforeCurlPausedNeedsNoCurlCall() {
    var machine = Machine()
    let changed7 = machine.pauseRequested()
    #expect(changed7)
    let changed8 = machine.pauseRequested()
    #expect(!changed8)
    let changed9 = machine.resumeRequested()
    #expect(changed9)
    let changed10 = machine.resumeRequested()
    #expect(!changed10)
    #expect(machine.phase == running(.resuming(isCurlPaused: false)))
    #expect(machine.heldBodyTaken() == .none)
    #expect(machine.phase == running(.flowing))
  }

  @Test func pausingAgainWhileTheHeldBodyGoesKeepsCurlsState() {
    var paused = Machine()
    paused.bodyRefused()
    _ = paused.bodyOffered()
    _ = paused.resumeRequested()
    let changed11 = paused.pauseRequested()
    #expect(changed11)
    #expect(paused.phase == running(.paused))

    var requested = Machine()
    requested.bodyRefused()
    _ = requested.resumeRequested()
    requested.bodyRefused()
    #expect(requested.phase == running(.pauseRequested))
    #expect(!requested.isHandingOverHeldBody)
  }

  @Test func curlsEndWaitsForTheHeldBody() {
    var machine = Machine()
    machine.bodyRefused()
    #expect(machine.curlEnded(0, hasHeldBody: true) == .wait)
    #expect(machine.phase == running(.pauseRequested, endedWith: 0))
    _ = machine.resumeRequested()
    #expect(machine.heldBodyTaken() == .end(0))
    #expect(machine.phase == running(.flowing))
    let machineFinished = machine.finish()
    #expect(machineFinished)
    #expect(machine.phase == .finished)
  }

  @Test func curlsEndWithNothingHeldEndsTheHopAtOnceEvenWhilePaused() {
    var machine = Machine()
    _ = machine.pauseRequested()
    #expect(machine.curlEnded(28, hasHeldBody: false) == .end(28))
  }

  @Test func aRedirectFollowedHopByHopDropsItsBodyAndCarriesThePauseOver() {
    var machine = Machine()
    _ = machine.pauseRequested()
    machine.redirectHeadCompleted(status: 307)
    #expect(machine.phase == .redirecting(status: 307, isPauseRequested: true))
    #expect(machine.bodyOffered() == .drop)
    #expect(machine.isReceivePaused)
    #expect(machine.curlEnded(0, hasHeldBody: false) == .followRedirect(307))
    machine.redirectHopStarted()
    #expect(machine.phase == running(.pauseRequested))
    #expect(!machine.isHeadReported)
  }

  @Test func aRedirectHopThatFailsEndsWithCurlsCode() {
    var machine = Machine()
    machine.redirectHeadCompleted(status: 302)
    #expect(machine.curlEnded(56, hasHeldBody: false) == .end(56))
  }

  @Test func theUndecodedReplayReportsItsHeadOnce() {
    var machine = Machine()
    // No head reported yet: nothing to replay.
    let changed12 = machine.undecodedReplayStarted()
    #expect(!changed12)
    let changed13 = machine.finalHeadCompleted()
    #expect(changed13)
    let changed14 = machine.undecodedReplayStarted()
    #expect(changed14)
    #expect(machine.decoding == .replaying)
    let changed15 = machine.finalHeadCompleted()
    #expect(!changed15)
    #expect(machine.decoding == .undecoded)
    let changed16 = machine.undecodedReplayStarted()
    #expect(!changed16)
    let changed17 = machine.headReported()
    #expect(!changed17)
  }

  @Test func anEarlyEndIsRecordedOnce() {
    var machine = Machine()
    let changed18 = machine.responseCompletedEarly()
    #expect(changed18)
    let changed19 = machine.responseCompletedEarly()
    #expect(!changed19)
  }

  @Test func finishedAndCancelledTransfersTakeNoMore() {
    var finished = Machine()
    let finishedFinished = finished.finish()
    #expect(finishedFinished)
    let finishedFinishedAgain = finished.finish()
    #expect(!finishedFinishedAgain)
    let changed20 = finished.cancel()
    #expect(!changed20)
    #expect(finished.bodyOffered() == .fail)
    #expect(finished.bodyArrived() == .skip)
    #expect(finished.curlEnded(0, hasHeldBody: false) == .ignore)
    let changed21 = finished.pauseRequested()
    #expect(!changed21)
    let changed22 = finished.resumeRequested()
    #expect(!changed22)

    var cancelled = Machine()
    let changed23 = cancelled.cancel()
    #expect(changed23)
    #expect(cancelled.phase == .cancelled)
    #expect(!cancelled.isRunning)
    #expect(cancelled.bodyArrived() == .skip)
  }

  @Test func aStartFailureStillRunsUntilItIsDelivered() {
    var machine = Machine()
    let error = WireError(.transferFailed, "cannot start")
    machine.startFailed(error)
    #expect(machine.phase == .failingToStart(error))
    #expect(machine.isRunning)
    let machineFinished = machine.finish()
    #expect(machineFinished)
    machine.startFailed(error)
    #expect(machine.phase == .finished)
  }
}
