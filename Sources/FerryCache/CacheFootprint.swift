/// What one stored entry takes on disk, as `max_bytes` counts it (issue 26): its body file's
/// blocks and an estimate of its index row.
///
/// A body file takes whole filesystem blocks (a 1-byte body takes 4 KiB on ext4), and at least
/// one: an empty file has no block but an inode and a directory entry, which one block stands
/// for. The row is its text and blob columns, written twice where an index repeats them, plus
/// SQLite's per-row cost (record header, cell pointer, the integer columns), in B-tree pages
/// that random keys leave about two-thirds full. Measured against `du` in
/// `HTTPCacheBoundsTests`.
public enum CacheFootprint {
  /// The block when the filesystem does not say.
  public static let defaultBlockBytes: Int64 = 4096
  /// SQLite's cost per row beyond its columns' bytes: the record header, the cell pointer, six
  /// integer columns, and the two index cells' own headers.
  public static let rowOverhead: Int64 = 96

  /// The bytes an entry counts: `body` rounded up to whole blocks of `block` (at least one),
  /// and `rowBytes` (its columns as `CacheFootprint.rowBytes` adds them) with the row's cost,
  /// times 3/2 for the pages' free space.
  public static func bytes(body: Int64, rowBytes: Int64, block: Int64) -> Int64 {
    let block = max(512, block)
    let blocks = max(1, (max(0, body) + block - 1) / block)
    return blocks * block + (max(0, rowBytes) + rowOverhead) * 3 / 2
  }

  /// The bytes of a row's columns: `key`, `session` and `variant` twice (the table and its
  /// primary key), `url` twice (and the session again: the URL index), the rest once.
  public static func rowBytes(
    session: Int, key: Int, variant: Int, url: Int, partition: Int, fields: Int, bodyName: Int
  ) -> Int64 {
    Int64(3 * session + 2 * key + 2 * variant + 2 * url + 2 * partition + fields + bodyName + 32)
  }
}
