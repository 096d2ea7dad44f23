import FerryClient
import Testing

struct ProgressBarTests {
  @Test func drawsNothingDuringTheFirst300Milliseconds() {
    var bar = ProgressBar(startMs: 1000)
    #expect(bar.draw(ProgressUpdate(isUpload: false, done: 10, total: 100), nowMs: 1299, width: 80) == nil)
    #expect(!bar.isDrawn)
    #expect(bar.finish() == [])
  }

  @Test func drawsBytesRateEtaAndABarSizedToTheTerminal() {
    var bar = ProgressBar(startMs: 0)
    _ = bar.draw(ProgressUpdate(isUpload: false, done: 0, total: 4 << 20), nowMs: 100, width: 80)
    let drawn = bar.draw(
      ProgressUpdate(isUpload: false, done: 1 << 20, total: 4 << 20), nowMs: 1100, width: 80)
    let text = String(decoding: drawn ?? [], as: UTF8.self)
    #expect(
      text == "\rdownload  25% [===>        ]    1.0 MiB /    4.0 MiB     1.0 MiB/s  ETA    0:03\u{1B}[K")
    #expect(text.count - 4 <= 80)
    #expect(bar.finish() == Array("\r\u{1B}[K".utf8))
    #expect(bar.finish() == [])
  }

  @Test func showsOnlyBytesAndRateWithoutATotal() {
    var bar = ProgressBar(startMs: 0)
    _ = bar.draw(ProgressUpdate(isUpload: true, done: 0, total: nil), nowMs: 400, width: 80)
    let drawn = bar.draw(ProgressUpdate(isUpload: true, done: 2048, total: nil), nowMs: 900, width: 80)
    #expect(String(decoding: drawn ?? [], as: UTF8.self) == "\rupload   2.0 KiB  4.0 KiB/s\u{1B}[K")
  }

  @Test func unknownRateShowsDashesAndNarrowTerminalsDropTheBar() {
    var bar = ProgressBar(startMs: 0)
    let drawn = bar.draw(ProgressUpdate(isUpload: false, done: 500, total: 1000), nowMs: 500, width: 40)
    #expect(
      String(decoding: drawn ?? [], as: UTF8.self)
        == "\rdownload  50%      500 B /     1000 B          --/s  ETA   --:--\u{1B}[K")
  }

  @Test func hostileCountsNeitherTrapNorGoNegative() {
    var bar = ProgressBar(startMs: 0)
    _ = bar.draw(ProgressUpdate(isUpload: false, done: -5, total: Int64.max), nowMs: 0, width: 80)
    let drawn = bar.draw(ProgressUpdate(isUpload: false, done: Int64.max, total: 1), nowMs: 1000, width: 80)
    #expect(String(decoding: drawn ?? [], as: UTF8.self).contains("100%"))
  }

  @Test func formatsBytesAndDurations() {
    let bytes: [(Int64, String)] = [
      (0, "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (1536, "1.5 KiB"), ((1 << 20) - 1, "1023.9 KiB"),
      (5 << 30, "5.0 GiB"), (Int64.max, "8191.9 PiB"),
    ]
    for (n, text) in bytes { #expect(ByteFormat.text(n) == text) }
    #expect(ByteFormat.duration(seconds: 7) == "0:07")
    #expect(ByteFormat.duration(seconds: 62) == "1:02")
    #expect(ByteFormat.duration(seconds: 3723) == "1:02:03")
  }
}
