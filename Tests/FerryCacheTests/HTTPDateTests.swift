import Testing

@testable import FerryCache

@Test(arguments: [
  ("Sun, 06 Nov 1994 08:49:37 GMT", Int64(784_111_777)),
  ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777),
  ("Sun Nov  6 08:49:37 1994", 784_111_777),
  ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
  ("Tue, 29 Feb 2000 23:59:59 GMT", 951_868_799),
  ("Tuesday, 01-Jan-30 00:00:00 GMT", 1_893_456_000),
  ("Fri, 01 Jan 2038 01:01:01 GMT", 2_145_920_461),
  ("  Sun, 06 Nov 1994 08:49:37 GMT ", 784_111_777),
])
func parsesAllThreeDateForms(text: String, seconds: Int64) {
  #expect(HTTPDate.parse(text) == seconds)
}

@Test(arguments: [
  "", "0", "-1", "yesterday", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 UTC",
  "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 nov 1994 08:49:37 GMT", "Sun, 31 Nov 1994 08:49:37 GMT",
  "Sun, 29 Feb 1900 00:00:00 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:49:37 GMTx",
  "Sun Nov 6 08:49:37 1994", "Sunday, 06-Nov-1994 08:49:37 GMT",
])
func rejectsWhatIsNoHTTPDate(text: String) {
  #expect(HTTPDate.parse(text) == nil)
}

@Test func formatsIMFFixdateAndRoundTrips() {
  #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
  #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
  #expect(HTTPDate.format(-1) == "Wed, 31 Dec 1969 23:59:59 GMT")
  #expect(HTTPDate.format(Int64.max) == "Fri, 31 Dec 9999 23:59:59 GMT")
  #expect(HTTPDate.format(Int64.min) == "Mon, 01 Jan 0001 00:00:00 GMT")
  for seconds in stride(from: Int64(-86_400 * 400), to: 4_102_444_800, by: 9_876_543) {
    #expect(HTTPDate.parse(HTTPDate.format(seconds)) == seconds)
  }
}
