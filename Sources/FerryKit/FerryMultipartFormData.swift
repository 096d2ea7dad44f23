import Glibc

/// The form builder of `FerryHTTPSessionManager.POST(_:parameters:headers:constructingBodyWith:…)`,
/// after AFMultipartFormData. Files are not read here: each is opened when the job is sent and
/// passed to the daemon as a descriptor (at most 4 files per request).
public final class FerryMultipartFormData {
  var parts: [FerryRequest.Part] = []
  /// The first part that could not be added; the request then fails with it.
  var error: FerryError?

  init() {}

  /// Adds the file at `path` (AF's `appendPartWithFileURL:name:fileName:mimeType:error:`);
  /// false, with the request failing `file_unreadable`, when the caller cannot read it.
  @discardableResult
  public func appendPart(withFileAt path: String, name: String, fileName: String, mimeType: String) -> Bool {
    guard access(path, R_OK) == 0 else {
      let reason = String(cString: strerror(errno))
      if error == nil {
        error = FerryError(code: "file_unreadable", message: "cannot read \(path): \(reason)", field: "parts")
      }
      return false
    }
    parts.append(
      FerryRequest.Part(name: name, content: .file(path: path), filename: fileName, type: mimeType))
    return true
  }

  /// Adds the file at `path` named after its last component, its type from its extension.
  @discardableResult
  public func appendPart(withFileAt path: String, name: String) -> Bool {
    let count = parts.count
    let added = appendPart(
      withFileAt: path, name: name, fileName: FerryRequest.lastComponent(path), mimeType: "")
    if added { parts[count].type = nil }
    return added
  }

  /// Adds a form field (AF's `appendPartWithFormData:name:`).
  public func appendPart(withForm data: [UInt8], name: String) {
    parts.append(FerryRequest.Part(name: name, content: .bytes(data)))
  }

  /// Adds a form field from text.
  public func appendPart(withForm text: String, name: String) {
    parts.append(FerryRequest.Part(name: name, content: .text(text)))
  }

  /// Adds bytes as a file part (AF's `appendPartWithFileData:name:fileName:mimeType:`).
  public func appendPart(withFileData data: [UInt8], name: String, fileName: String, mimeType: String) {
    parts.append(FerryRequest.Part(name: name, content: .bytes(data), filename: fileName, type: mimeType))
  }
}
