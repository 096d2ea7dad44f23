import FerryClient
import Testing

/// Event lines to what `ferry get` prints and how it exits.
struct EventRendererTests {
  static let headers =
    #""headers":{"content-type":"text/plain","set-cookie":["a=1","b=2"]},"http_version":"1.1""#

  @Test func printsATextBodyAsItIs() {
    var renderer = Fixture.renderer(.response)
    let r = renderer.render(#"{"event":"done","id":"t","seq":2,"status":200,\#(Self.headers),"body":"hi"}"#)
    #expect(r.stdoutText == "hi")
    #expect(r.stderr.isEmpty)
    #expect(r.exit == .success)
  }

  /// `--resume -o FILE` by descriptor: `done` renames FILE.part (with a note on a terminal),
  /// `resume_mismatch` removes it; other failures keep it for the next run.
  @Test func aResumedFileIsCommittedOnDoneAndDroppedOnAMismatch() {
    var renderer = Fixture.renderer(.response) {
      $0.resumedOutput = "/home/u/big.iso"
      $0.stderrIsTerminal = true
    }
    let done = renderer.render(#"{"event":"done","id":"t","seq":3,"status":206,"bytes":1572864}"#)
    #expect(done.commitResumed == "/home/u/big.iso" && done.dropResumed == nil && done.exit == .success)
    #expect(String(decoding: done.stderr, as: UTF8.self) == "ferry: saved 1.5 MiB to /home/u/big.iso\n")
    let mismatch = renderer.render(
      #"{"event":"failed","id":"t","seq":3,"error":{"code":"resume_mismatch","message":"m"}}"#)
    #expect(mismatch.dropResumed == "/home/u/big.iso" && mismatch.commitResumed == nil)
    let cut = renderer.render(
      #"{"event":"failed","id":"t","seq":3,"error":{"code":"transfer_failed","message":"m"}}"#)
    #expect(cut.dropResumed == nil && cut.commitResumed == nil && cut.exit == .failed)
    var plain = Fixture.renderer(.response)
    #expect(plain.render(#"{"event":"done","id":"t","seq":3,"status":200,"bytes":5}"#).commitResumed == nil)
  }

  @Test func endsATextBodyWithANewlineOnATerminal() {
    var renderer = Fixture.renderer(.response) { $0.stdoutIsTerminal = true }
    #expect(
      renderer.render(#"{"event":"done","id":"t","seq":2,"status":200,"body":"hi"}"#).stdoutText == "hi\n")
  }

  @Test func printsJSONCompactWhenPipedAndIndentedOnATerminal() {
    let line = #"{"event":"done","id":"t","seq":2,"status":200,"body":{"a":[1,2.50],"b":{},"c":"é"}}"#
    var piped = Fixture.renderer(.response)
    #expect(piped.render(line).stdoutText == #"{"a":[1,2.50],"b":{},"c":"é"}"# + "\n")
    var terminal = Fixture.renderer(.response) { $0.stdoutIsTerminal = true }
    #expect(
      terminal.render(line).stdoutText == """
        {
          "a": [
            1,
            2.50
          ],
          "b": {},
          "c": "é"
        }

        """)
  }

  @Test func decodesBase64BodiesButKeepsBinaryOffATerminal() {
    let line = #"{"event":"done","id":"t","seq":2,"status":200,"body_base64":"AAECaGk="}"#
    var piped = Fixture.renderer(.response)
    #expect(piped.render(line).stdout == [0, 1, 2, 0x68, 0x69])
    var terminal = Fixture.renderer(.response) { $0.stdoutIsTerminal = true }
    let r = terminal.render(line)
    #expect(r.stdout.isEmpty)
    #expect(r.stderrText == "ferry: binary body of 5 bytes not shown on a terminal; use -o FILE or a pipe\n")
    #expect(r.exit == .success)
    var text = Fixture.renderer(.response) { $0.stdoutIsTerminal = true }
    #expect(text.render(#"{"event":"done","id":"t","seq":2,"body_base64":"aGk="}"#).stdoutText == "hi")
  }

  @Test func reportsASavedFileOnlyToATerminal() {
    let line = #"{"event":"done","id":"t","seq":2,"status":200,"output":"/tmp/f","bytes":1536}"#
    var piped = Fixture.renderer(.response)
    let quiet = piped.render(line)
    #expect(quiet.stdout.isEmpty && quiet.stderr.isEmpty && quiet.exit == .success)
    var terminal = Fixture.renderer(.response) { $0.stderrIsTerminal = true }
    #expect(terminal.render(line).stderrText == "ferry: saved 1.5 KiB to /tmp/f\n")
  }

  @Test func includeHeadersPrintsTheStatusLineAndEveryHeader() {
    var renderer = Fixture.renderer(.response) { $0.includeHeaders = true }
    let r = renderer.render(#"{"event":"done","id":"t","seq":2,"status":201,\#(Self.headers),"body":"ok"}"#)
    #expect(
      r.stdoutText == """
        HTTP/1.1 201 Created\ncontent-type: text/plain\nset-cookie: a=1\nset-cookie: b=2\n\nok
        """)
  }

  @Test func unacceptableStatusPrintsTheBodyAndTheErrorAndExitsByStatusClass() {
    var renderer = Fixture.renderer(.response)
    let r = renderer.render(
      #"{"event":"failed","id":"t","seq":3,"error":{"code":"unacceptable_status","message":"request failed: unacceptable status 404"},"attempts":1,"status":404,\#(Self.headers),"body":"nope"}"#
    )
    #expect(r.stdoutText == "nope")
    #expect(r.stderrText == "ferry: request failed: unacceptable status 404 (unacceptable_status)\n")
    #expect(r.exit == .clientErrorStatus)
    #expect(r.exit?.rawValue == 14)
    for (status, code) in [(302, 13), (503, 15), (101, 1)] {
      var other = Fixture.renderer(.response)
      let line =
        #"{"event":"failed","id":"t","seq":3,"error":{"code":"unacceptable_status","message":"m"},"status":\#(status),\#(Self.headers)}"#
      #expect(other.render(line).exit?.rawValue == Int32(code), "status \(status)")
    }
  }

  @Test func transferFailuresExitAsCurlDoes() {
    for (code, exit) in [
      ("timeout", 28), ("resolve_failed", 6), ("connect_failed", 7), ("tls_failed", 35),
      ("too_many_redirects", 47), ("transfer_failed", 1), ("resume_mismatch", 1),
    ] {
      var renderer = Fixture.renderer(.response)
      let r = renderer.render(
        #"{"event":"failed","id":"t","seq":3,"error":{"code":"\#(code)","message":"m"}}"#)
      #expect(r.exit?.rawValue == Int32(exit), "\(code)")
      var raw = Fixture.renderer(.rawEvents)
      #expect(
        raw.render(#"{"event":"failed","id":"t","seq":3,"error":{"code":"\#(code)","message":"m"}}"#).exit?
          .rawValue == Int32(exit))
    }
    // curl's 60 for a certificate or name that does not verify; 35 for other TLS failures.
    for (message, exit) in [
      ("SSL certificate problem: self-signed certificate", 60),
      ("SSL: no alternative certificate subject name matches target host name 'h'", 60),
      ("OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to h:443", 35),
    ] {
      var renderer = Fixture.renderer(.response)
      let r = renderer.render(
        #"{"event":"failed","id":"t","seq":3,"error":{"code":"tls_failed","message":"\#(message)"}}"#)
      #expect(r.exit?.rawValue == Int32(exit), "\(message)")
    }
  }

  @Test func includeAndVerboseShowTheCacheOutcomeOnStderr() {
    let done = #"{"event":"done","id":"t","seq":2,"status":200,"headers":{"age":"3"},"body":"x","cache":"#
    for (outcome, line) in [
      ("hit", "* cache: hit (answered from the session's cache, no request sent)\n"),
      ("revalidated", "* cache: revalidated (the stored answer, confirmed by a 304 from the server)\n"),
      ("miss", "* cache: miss (fetched from the server)\n"),
    ] {
      var include = Fixture.renderer(.response) { $0.includeHeaders = true }
      let i = include.render(done + #""\#(outcome)"}"#)
      #expect(i.stderrText == line)
      #expect(i.stdoutText == "HTTP/1.1 200 OK\nage: 3\n\nx")
      var verbose = Fixture.renderer(.response) { $0.verbose = true }
      #expect(verbose.render(done + #""\#(outcome)"}"#).stderrText.hasSuffix("<\n" + line))
      var plain = Fixture.renderer(.response)
      #expect(plain.render(done + #""\#(outcome)"}"#).stderrText.isEmpty)
    }
  }

  @Test func aBodyTooLargeForTheTerminalNamesDashOAndAPipe() {
    var renderer = Fixture.renderer(.response)
    let r = renderer.render(
      #"{"event":"failed","id":"t","seq":3,"error":{"code":"response_too_large","message":"response body is larger than max_inline_bytes (8388608); use output to stream it to a file"}}"#
    )
    #expect(
      r.stderrText
        == "ferry: response body is larger than max_inline_bytes (8388608); save it with -o FILE, or pipe it (ferry get URL | less), which streams any size (response_too_large)\n"
    )
  }

  @Test func failuresNameTheirCodeFieldAndTimer() {
    var renderer = Fixture.renderer(.response)
    let timeout = renderer.render(
      #"{"event":"failed","id":"t","seq":3,"error":{"code":"timeout","message":"no data for 60 s","timer":"idle"}}"#
    )
    #expect(timeout.stderrText == "ferry: no data for 60 s (timeout, timer idle)\n")
    #expect(timeout.stdout.isEmpty)
    #expect(timeout.exit == .timeout)
    var other = Fixture.renderer(.response)
    let refused = other.render(
      #"{"event":"failed","id":"t","seq":1,"error":{"code":"invalid_job","message":"parts.0.file: must be an absolute path","field":"parts.0.file"}}"#
    )
    #expect(
      refused.stderrText
        == "ferry: parts.0.file: must be an absolute path (invalid_job, field parts.0.file)\n")
  }

  @Test func cancelledExitsFour() {
    var renderer = Fixture.renderer(.response)
    let r = renderer.render(#"{"event":"cancelled","id":"t","seq":2,"reason":"shutdown"}"#)
    #expect(r.exit == .cancelled)
    #expect(r.stderrText == "ferry: job t cancelled (shutdown)\n")
  }

  @Test func errorEventsEndTheCommandAndOtherJobsAreIgnored() {
    var renderer = Fixture.renderer(.response)
    #expect(renderer.render(#"{"event":"done","id":"other","seq":2,"body":"x"}"#) == Rendering())
    #expect(renderer.render(#"{"event":"queued","id":"t","seq":1}"#) == Rendering())
    let r = renderer.render(#"{"event":"error","error":{"code":"line_too_long","message":"line too long"}}"#)
    #expect(r.exit == .failed)
    #expect(r.stderrText == "ferry: line too long (line_too_long)\n")
  }

  @Test func progressEventsBecomeProgressUpdates() {
    var renderer = Fixture.renderer(.response)
    let down = renderer.render(
      #"{"event":"progress","id":"t","seq":4,"direction":"download","done":10,"total":null}"#)
    #expect(down.progress == ProgressUpdate(isUpload: false, done: 10, total: nil))
    #expect(down.exit == nil)
    let up = renderer.render(
      #"{"event":"progress","id":"t","seq":5,"direction":"upload","done":5,"total":9}"#)
    #expect(up.progress == ProgressUpdate(isUpload: true, done: 5, total: 9))
  }

  @Test func verbosePrintsTheExplainedRequestAndTheResponseHeadOnStderr() {
    var renderer = Fixture.renderer(.response) { $0.verbose = true }
    let request = renderer.render(
      #"{"event":"explained","method":"POST","url":"http://h/x","headers":{"Content-Type":"application/json"},"body":{"length":7,"sha256":"ab"},"curl":"curl"}"#
    )
    #expect(
      request.stderrText
        == "> POST http://h/x\n> Content-Type: application/json\n>\n> body: 7 bytes, sha256 ab\n")
    #expect(request.exit == nil)
    let done = renderer.render(
      #"{"event":"done","id":"t","seq":2,"status":200,"http_version":"2","body":"ok"}"#)
    #expect(done.stderrText == "< HTTP/2 200 OK\n<\n")
    #expect(done.stdoutText == "ok")
  }

  @Test func verboseLeavesAnExplainRefusalToTheJobsOwnFailure() {
    var renderer = Fixture.renderer(.response) { $0.verbose = true }
    #expect(
      renderer.render(#"{"event":"error","error":{"code":"unknown_session","message":"no"}}"#) == Rendering())
    let r = renderer.render(
      #"{"event":"failed","id":"t","seq":1,"error":{"code":"unknown_session","message":"no"}}"#)
    #expect(r.exit == .failed)
  }

  @Test func detachedPrintsTheIdOnceQueued() {
    var renderer = Fixture.renderer(.detached, id: "ferry-1")
    let r = renderer.render(#"{"event":"queued","id":"ferry-1","seq":1}"#)
    #expect(r.stdoutText == "ferry-1\n")
    #expect(r.exit == .success)
  }

  @Test func rawEventsAreCopiedLineByLineUntilTheEnd() {
    var renderer = Fixture.renderer(.rawEvents)
    let queued = #"{"event":"queued","id":"t","seq":1}"#
    #expect(renderer.render(queued) == Rendering(stdout: Array((queued + "\n").utf8)))
    #expect(renderer.render(#"{"event":"queued","id":"x","seq":1}"#) == Rendering())
    let failed = #"{"event":"failed","id":"t","seq":2,"error":{"code":"timeout","message":"m"}}"#
    #expect(renderer.render(failed) == Rendering(stdout: Array((failed + "\n").utf8), exit: .timeout))
    let cancelled = #"{"event":"cancelled","id":"t","seq":2,"reason":"client"}"#
    #expect(renderer.render(cancelled).exit == .cancelled)
  }

  @Test func explainPrintsTheRequestBodySummaryAndCurl() {
    var renderer = Fixture.renderer(.explain)
    let r = renderer.render(
      #"{"event":"explained","method":"POST","url":"http://h/u","headers":{"User-Agent":"ferry/0.1.0"},"body":{"length":184,"sha256":"ec3c","boundary":"B","parts":[{"name":"a","length":1},{"name":"f","filename":"p.png","type":"image/png","length":2}]},"curl":"curl -F a=b http://h/u"}"#
    )
    #expect(
      r.stdoutText == """
        POST http://h/u
        User-Agent: ferry/0.1.0

        body: 184 bytes, sha256 ec3c
          part "a": 1 byte
          part "f" (filename p.png, image/png): 2 bytes

        curl -F a=b http://h/u

        """)
    #expect(r.exit == .success)
  }

  @Test func opsPrintTheirAnswerWithoutTheEventKey() {
    var ping = Fixture.renderer(.op(.ping))
    #expect(ping.render(#"{"event":"pong"}"#) == Rendering(stdout: Array("pong\n".utf8), exit: .success))
    var stats = Fixture.renderer(.op(.stats))
    #expect(
      stats.render(#"{"event":"stats","clients":1,"uptime_s":3}"#).stdoutText
        == #"{"clients":1,"uptime_s":3}"# + "\n")
    var metrics = Fixture.renderer(.op(.metrics))
    #expect(
      metrics.render(#"{"event":"metrics","text":"ferry_clients 1\n"}"#)
        == Rendering(stdout: Array("ferry_clients 1\n".utf8), exit: .success))
    var hello = Fixture.renderer(.op(.hello)) { $0.stdoutIsTerminal = true }
    #expect(hello.render(#"{"event":"hello","protocol":1}"#).stdoutText == "{\n  \"protocol\": 1\n}\n")
  }

  @Test func cancelSucceedsWhenThePingComesBackWithoutAnError() {
    var ok = Fixture.renderer(.cancel, id: "J")
    #expect(ok.render(#"{"event":"pong"}"#).exit == .success)
    var unknown = Fixture.renderer(.cancel, id: "J")
    let r = unknown.render(
      #"{"event":"error","error":{"code":"unknown_id","message":"no live job with id J","id":"J"}}"#)
    #expect(r.exit == .failed)
    #expect(r.stderrText == "ferry: no live job with id J (unknown_id)\n")
  }

  @Test func aGarbledLineOrAnEarlyCloseEndsTheCommand() {
    var renderer = Fixture.renderer(.response)
    #expect(renderer.render("not json").exit == .failed)
    let end = renderer.endOfStream()
    #expect(end.exit == .unreachable)
    #expect(end.stderrText == "ferry: the daemon closed the connection before answering\n")
  }
}
