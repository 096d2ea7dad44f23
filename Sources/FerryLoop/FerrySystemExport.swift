// FerryLoop's users reach the kernel through the funnel FerrySystem holds (`SystemCall`,
// `Errno`, `LoopError` and their value types): one import for the daemon's files. FerrySystem
// itself is libevent-free, so `ferry` uses it without loading libevent. Glibc is not
// re-exported (issue 28).
@_exported import FerrySystem
