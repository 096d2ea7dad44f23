import FerryClient
import FerryWire
import Testing

/// `explain` and `-v` describe the files and stdin `ferry` would pass (issue 25): the op's
/// `files` give paths and lengths, and the printer says when a body is a pipe.
struct ExplainAccountTests {
  private func explainLine(_ arguments: [String], stdin: [UInt8]? = nil) throws -> String {
    var context = Fixture.context(stdin: stdin)
    context.passedLength = { item in
      switch item {
      case .readFile(let path): path == "/home/u/photo.png" ? 302 : nil
      case .stdin: stdin == Array("{}".utf8) ? 2 : nil
      default: nil
      }
    }
    let plan = try CommandPlan.make(
      try ArgumentParser.parse(arguments).command, context: context,
      terminals: .init(stdout: false, stderr: false))
    guard case .converse(let lines, _, _) = plan, let first = lines.first else {
      throw FixtureError("no lines")
    }
    return String(decoding: first, as: UTF8.self)
  }

  @Test func theExplainOpDescribesEveryFileThePlanWouldPass() throws {
    let parts = try explainLine(["explain", "post", "http://h/", "note=hi", "f@photo.png", "g@missing.bin"])
    #expect(
      parts.hasSuffix(
        #","files":[{"path":"/home/u/photo.png","length":302},{"path":"/home/u/missing.bin"}]}"#))
    let body = try explainLine(["explain", "post", "http://h/", "--body-file", "photo.png"])
    #expect(body.hasSuffix(#","files":[{"path":"/home/u/photo.png","length":302}]}"#))
    // A regular file on stdin has a length; a pipe has none.
    #expect(
      try explainLine(["explain", "post", "http://h/"], stdin: Array("{}".utf8)).hasSuffix(
        #","files":[{"length":2}]}"#))
    #expect(
      try explainLine(["explain", "post", "http://h/"], stdin: Array("[]".utf8)).hasSuffix(#","files":[{}]}"#)
    )
    let verbose = try explainLine(["post", "-v", "http://h/", "f@photo.png"])
    #expect(verbose.hasPrefix(#"{"op":"explain","#))
    #expect(verbose.hasSuffix(#","files":[{"path":"/home/u/photo.png","length":302}]}"#))
    #expect(!(try explainLine(["explain", "post", "http://h/", "a=1"])).contains("files"))
  }

  @Test func aPipeIsSaidToBeOneAndFilesShowTheirLength() throws {
    let piped = try JSONReader().read(#"{"length":0,"sha256":null,"stream":true}"#)
    #expect(
      ExplainPrinter.bodySummary(piped.objectValue ?? JSONObject())
        == "body: a pipe, read only when the request is sent: its length and bytes cannot be shown\n")
    let form = try JSONReader().read(
      #"{"length":302,"sha256":null,"stream":true,"parts":[{"name":"f","filename":"a.png","type":"image/png","length":100},{"name":"s","filename":"-","length":0,"stream":true}]}"#
    )
    #expect(
      ExplainPrinter.bodySummary(form.objectValue ?? JSONObject())
        == """
        body: 302 bytes and more: a pipe, read only when the request is sent: its length and bytes cannot be shown
          part "f" (filename a.png, image/png): 100 bytes
          part "s" (filename -): a pipe, read when sent

        """)
  }
}
