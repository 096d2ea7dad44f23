import Testing

@testable import FerryKit

/// Which waiting op an answer goes to (PROTOCOL.md "Ops": an op's answer carries no id).
struct OpMatchingTests {
  private func waiter(_ answers: Set<String>) -> FerryConnection.OpWaiter {
    FerryConnection.OpWaiter(answers: answers, resume: { _ in })
  }

  @Test func aPongThatOvertakesAJobsAnswerGoesToThePingNotNowhere() {
    var state = FerryConnection.State()
    state.ops = [waiter(["jobs"]), waiter(["pong"])]
    #expect(state.takeOp(answering: "pong")?.answers == ["pong"])
    #expect(state.ops.map(\.answers) == [["jobs"]])
    #expect(state.takeOp(answering: "jobs")?.answers == ["jobs"])
    #expect(state.ops.isEmpty)
  }

  @Test func anErrorGoesToTheOldestOpAndAnUnaskedAnswerToNone() {
    var state = FerryConnection.State()
    state.ops = [waiter(["jobs"]), waiter(["pong"])]
    #expect(state.takeOp(answering: "stats") == nil)
    #expect(state.takeOp(answering: "error")?.answers == ["jobs"])
    #expect(state.ops.map(\.answers) == [["pong"]])
  }
}
