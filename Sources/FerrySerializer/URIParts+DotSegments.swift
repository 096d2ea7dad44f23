extension URIParts {
  /// RFC 3986 §5.2.4 remove_dot_segments; returns `path` itself when it has no `.` or `..`
  /// segment (the usual case, checked without allocating).
  static func removingDotSegments(_ path: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    guard hasDotSegment(path) else { return path }
    let slash = UInt8(ascii: "/")
    var out: [UInt8] = []
    out.reserveCapacity(path.count)
    var i = path.startIndex
    let end = path.endIndex
    /// Whether the input from `i` starts with `prefix`.
    func starts(_ prefix: StaticString) -> Bool {
      prefix.withUTF8Buffer { p in
        end - i >= p.count && path[i..<(i + p.count)].elementsEqual(p)
      }
    }
    /// Whether the input from `i` is exactly `whole`.
    func equals(_ whole: StaticString) -> Bool {
      whole.withUTF8Buffer { end - i == $0.count } && starts(whole)
    }
    /// Drops the last segment and its preceding "/" (if any) from the output.
    func popSegment() {
      if let last = out.lastIndex(of: slash) { out.removeSubrange(last...) } else { out.removeAll() }
    }
    while i < end {
      if starts("../") {
        i += 3
      } else if starts("./") {
        i += 2
      } else if starts("/./") {
        i += 2
      } else if equals("/.") {
        out.append(slash)
        i = end
      } else if starts("/../") {
        i += 3
        popSegment()
      } else if equals("/..") {
        popSegment()
        out.append(slash)
        i = end
      } else if equals(".") || equals("..") {
        i = end
      } else {
        var j = i + 1
        while j < end, path[j] != slash { j += 1 }
        out.append(contentsOf: path[i..<j])
        i = j
      }
    }
    return out[...]
  }

  /// Whether `path` has a segment that is `.` or `..`.
  static func hasDotSegment(_ path: ArraySlice<UInt8>) -> Bool {
    let dot = UInt8(ascii: ".")
    let slash = UInt8(ascii: "/")
    var i = path.startIndex
    while i < path.endIndex {
      // `i` is at the start of a segment.
      var j = i
      while j < path.endIndex, path[j] != slash { j += 1 }
      let length = j - i
      if length == 1, path[i] == dot { return true }
      if length == 2, path[i] == dot, path[i + 1] == dot { return true }
      i = j + 1
    }
    return false
  }
}
