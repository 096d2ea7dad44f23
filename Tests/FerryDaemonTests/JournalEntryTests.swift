import Testing

@testable import FerryDaemon

/// journald's native protocol, golden bytes; no socket.
struct JournalEntryTests {
  @Test func textFormCarriesPriorityIdentifierMessageIDAndFerryFields() {
    let bytes = JournalEntry.encode(
      priority: 4, message: "job refused: too many jobs job=j1", event: .overloaded,
      fields: ["job": "j1", "session": "default", "code": "overloaded", "client.uid": "1000"])
    #expect(
      String(decoding: bytes, as: UTF8.self)
        == "PRIORITY=4\nSYSLOG_IDENTIFIER=ferryd\nMESSAGE_ID=7e1599a82ab54acdb0e979337fd4c9b5\n"
        + "MESSAGE=job refused: too many jobs job=j1\nFERRY_JOB=j1\nFERRY_SESSION=default\n"
        + "FERRY_CODE=overloaded\nFERRY_CLIENT_UID=1000\n")
  }

  @Test func aValueWithANewlineTakesTheBinarySafeForm() {
    let bytes = JournalEntry.encode(priority: 3, message: "m", event: nil, fields: ["error": "a\nb"])
    let expected: [UInt8] =
      Array("PRIORITY=3\nSYSLOG_IDENTIFIER=ferryd\nMESSAGE=m\nFERRY_ERROR\n".utf8) + [3, 0, 0, 0, 0, 0, 0, 0]
      + Array("a\nb\n".utf8)
    #expect(bytes == expected)
  }

  @Test func fieldNamesAreUpperCaseLettersDigitsAndUnderscores() {
    #expect(JournalEntry.fieldName("moved_to") == "FERRY_MOVED_TO")
    #expect(JournalEntry.fieldName("client.pid") == "FERRY_CLIENT_PID")
    #expect(JournalEntry.fieldName("é") == "FERRY___")
    #expect(JournalEntry.fieldName(String(repeating: "a", count: 100)).utf8.count == 64)
  }

  @Test func messageIDsAre128BitHexAndDistinct() {
    let ids = LogEvent.allCases.map(\.messageID)
    #expect(Set(ids).count == ids.count)
    #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy { $0.isHexDigit && !$0.isUppercase } })
  }
}
