import FerrySerializer
import FerryWire
import Testing

/// Every `invalid_job` the serializer raises, with the field it names.
@Suite struct InvalidJobTests {
  static func job(_ edit: (inout Job) -> Void) -> Job {
    var job = makeJob("POST")
    edit(&job)
    return job
  }

  static let cases: [(String, Job)] = [
    ("url", job { $0.url = nil }),
    ("url", job { $0.url = "http://a/b c" }),
    ("url", job { $0.url = "/relative" }),
    ("method", job { $0.method = "GE T" }),
    ("method", job { $0.method = "" }),
    (
      "parameters",
      job {
        $0.method = "GET"
        $0.parameters = [1]
      }
    ),
    (
      "parameters",
      job {
        $0.parameters = "x"
        $0.encoding = .form
      }
    ),
    (
      "parameters",
      job {
        $0.parameters = true
        $0.encoding = .multipart
      }
    ),
    (
      "parameters.k",
      job {
        $0.parameters = ["k": nil]
        $0.encoding = .plist
      }
    ),
    (
      "parameters",
      job {
        $0.parameters = ["k": "v"]
        $0.body = RawBody(content: .text("x"))
      }
    ),
    (
      "body",
      job {
        $0.body = RawBody(content: .text("x"))
        $0.parts = []
      }
    ),
    (
      "body",
      job {
        $0.method = "HEAD"
        $0.body = RawBody(content: .text("x"))
      }
    ),
    ("body.file", job { $0.body = RawBody(content: .file("relative.txt")) }),
    ("body.type", job { $0.body = RawBody(content: .text("x"), type: "text/plain\r\nX-Evil: 1") }),
    ("body.type", job { $0.body = RawBody(content: .text("x"), type: "") }),
    (
      "parts",
      job {
        $0.method = "GET"
        $0.parts = []
      }
    ),
    (
      "encoding",
      job {
        $0.method = "HEAD"
        $0.encoding = .multipart
      }
    ),
    ("parts.0.file", job { $0.parts = [Part(name: "f", content: .file("f.txt"))] }),
    (
      "parts.1.type",
      job {
        $0.parts = [Part(name: "a", content: .text("")), Part(name: "b", content: .text(""), type: "a\nb")]
      }
    ),
    (
      "parts.0.headers.Bad Name",
      job {
        $0.parts = [Part(name: "a", content: .text(""), headers: [HeaderField(name: "Bad Name", value: "v")])]
      }
    ),
    (
      "parts.0.headers.X-A",
      job {
        $0.parts = [Part(name: "a", content: .text(""), headers: [HeaderField(name: "X-A", value: "v\0")])]
      }
    ),
    ("headers.X:Y", job { $0.headers = [HeaderField(name: "X:Y", value: "v")] }),
    ("headers.X-A", job { $0.headers = [HeaderField(name: "X-A", value: "a\r\nInjected: 1")] }),
    ("headers.", job { $0.headers = [HeaderField(name: "", value: "v")] }),
    ("headers.content-length", job { $0.headers = [HeaderField(name: "content-length", value: "5")] }),
    (
      "headers.Transfer-Encoding",
      job { $0.headers = [HeaderField(name: "Transfer-Encoding", value: "chunked")] }
    ),
    ("auth.bearer", job { $0.auth = .bearer("t\r\nX: y") }),
    ("auth.bearer", job { $0.auth = .bearer("") }),
  ]

  @Test(arguments: cases)
  func refusesNamingTheField(_ example: (String, Job)) {
    let files = MemoryFiles(contents: ["/f": []])
    let error = thrownError { () throws(WireError) in
      _ = try makeSerializer(files: files).serialize(example.1)
    }
    #expect(error?.code == .invalidJob)
    #expect(error?.field == example.0)
  }

  @Test func badSessionHeaderIsRefusedToo() {
    var settings = SerializerSettings(version: "1", acceptLanguage: "fr\r\n")
    let error = thrownError { () throws(WireError) in
      _ = try makeSerializer(settings).serialize(makeJob("GET"))
    }
    #expect(error?.field == "headers.Accept-Language")
    settings.acceptLanguage = nil
    settings.headers = [HeaderField(name: "Bad(", value: "x")]
    let session = thrownError { () throws(WireError) in
      _ = try makeSerializer(settings).serialize(makeJob("GET"))
    }
    #expect(session?.field == "headers.Bad(")
  }

  @Test func removingAFramingHeaderIsHarmless() throws {
    let job = makeJob("GET", headers: [HeaderField(name: "Content-Length", value: nil)])
    #expect(try makeSerializer().serialize(job).header("Content-Length") == nil)
  }
}
