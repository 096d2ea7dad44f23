// swift-tools-version:6.0
import PackageDescription

// Release builds of the daemon's modules skip the run-time exclusivity checks: with them, every
// access to a class's stored property goes through swift_beginAccess, about 6 % of ferryd's
// instructions per job. Debug builds, which the tests run, keep them.
// Not on FerryWire or FerryKit: SwiftPM refuses a product whose targets carry unsafe flags in a
// versioned dependency, and FerryKit (with FerryWire) is meant to be one. FerryWire's code is
// structs and enums, which make no dynamic exclusivity checks (docs/CLIENTS.md has the measure).
let daemonSpeed: [SwiftSetting] = [
  .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))
]

let package = Package(
  name: "ferry",
  products: [
    .executable(name: "ferryd", targets: ["ferryd"]),
    .executable(name: "ferry", targets: ["ferry"]),
    // The Swift client library (issue 27): standard library, Dispatch, Glibc and FerryWire.
    .library(name: "FerryKit", targets: ["FerryKit"]),
  ],
  targets: [
    // C shims: system headers and one-line wrappers for macros and variadic functions.
    .target(name: "CFerryEvent", linkerSettings: [.linkedLibrary("event_core")]),
    .target(name: "CFerryCurl", linkerSettings: [.linkedLibrary("curl")]),
    .target(name: "CFerrySQLite", linkerSettings: [.linkedLibrary("sqlite3")]),
    // hiredis 0.14 and its libevent adapter (issue 32: coordination through Redis).
    .target(name: "CFerryRedis", linkerSettings: [.linkedLibrary("hiredis"), .linkedLibrary("event_core")]),

    // Pure modules: no I/O, no clock, no C.
    // libm: Double's rounding in the standard library calls into it, and the `ferry` client
    // imports no Glibc that would link it otherwise.
    .target(name: "FerryWire", linkerSettings: [.linkedLibrary("m")]),
    .target(name: "FerrySerializer", dependencies: ["FerryWire"], swiftSettings: daemonSpeed),
    // RFC 9111's decisions for the HTTP cache (issue 17, docs/CACHE.md); the store drives it.
    .target(name: "FerryCache", swiftSettings: daemonSpeed),

    // The one system-call funnel (issue 28): Glibc only, no libevent, so `ferry` uses it too.
    .target(name: "FerrySystem", swiftSettings: daemonSpeed),

    // Drivers over libevent and libcurl.
    .target(name: "FerryLoop", dependencies: ["CFerryEvent", "FerrySystem"], swiftSettings: daemonSpeed),
    .target(
      name: "FerrySession",
      dependencies: ["FerryWire", "FerrySerializer", "FerryLoop", "CFerryCurl"],
      swiftSettings: daemonSpeed
    ),
    // A Redis connection on the daemon's loop (issue 32, docs/FLEET.md).
    .target(name: "FerryRedis", dependencies: ["CFerryRedis", "FerryLoop"], swiftSettings: daemonSpeed),
    .target(
      name: "FerryDaemon",
      dependencies: [
        "FerryWire", "FerrySerializer", "FerryLoop", "FerrySession", "FerryStore", "FerryCache", "FerryRedis",
      ],
      swiftSettings: daemonSpeed
    ),
    // The durable journal (issue 14): SQLite in WAL mode behind one typed wrapper.
    .target(
      name: "FerryStore", dependencies: ["CFerrySQLite", "FerryLoop", "FerryWire"], swiftSettings: daemonSpeed
    ),
    .target(
      name: "FerryTestSupport",
      dependencies: ["FerryWire", "FerryLoop", "FerrySystem"]
    ),

    .executableTarget(name: "ferryd", dependencies: ["FerryDaemon"], swiftSettings: daemonSpeed),
    // The command-line client: argument parsing and rendering are pure and tested; main does I/O.
    // It talks to the daemon through FerryKit's connection layer (FerryChannel), which holds the
    // socket discovery and the daemon-owner trust rule for both.
    .target(name: "FerryClient", dependencies: ["FerryWire", "FerrySerializer", "FerryChannel"]),
    .executableTarget(
      name: "ferry", dependencies: ["FerryClient", "FerryChannel", "FerryWire", "FerrySystem"]),
    // Programs' client library: no unsafe flags anywhere in its closure (FerryWire's neither).
    .target(name: "FerryKit", dependencies: ["FerryWire", "FerryChannel"]),
    // FerryKit's connection layer, in the FerryKit product: the socket, the blocking line channel
    // `ferry` runs on, where to find the daemon and whom to trust. Glibc and FerryWire only, no
    // Dispatch: a one-shot `ferry` loads nothing it does not use (B2, bench/b2_ab.py).
    .target(name: "FerryChannel", dependencies: ["FerryWire"]),
    // The HTTP fixture server as its own process, for black-box tests of a real ferryd.
    .executableTarget(name: "ferry-fixture", dependencies: ["FerryTestSupport"]),
    // Writes journal batches until it is killed, for FerryStoreTests' crash tests.
    .executableTarget(name: "ferry-journal-writer", dependencies: ["FerryStore"]),

    // Benchmarks (make bench): the pure core per job, and a pipelining client for ferryd.
    .executableTarget(
      name: "ferry-bench-core", dependencies: ["FerryWire", "FerrySerializer"], path: "bench/core"),
    .executableTarget(name: "ferry-bench-client", dependencies: ["FerryWire"], path: "bench/client"),
    // The same through FerryKit (data(for:) per job), for the library's overhead per job.
    .executableTarget(name: "ferry-bench-kit", dependencies: ["FerryKit"], path: "bench/kit"),
    // Journal commits per second, per record and per batch (docs/STORE.md).
    .executableTarget(name: "ferry-bench-journal", dependencies: ["FerryStore"], path: "bench/journal"),

    .testTarget(name: "FerryWireTests", dependencies: ["FerryWire"]),
    .testTarget(name: "FerryKitTests", dependencies: ["FerryKit", "FerryChannel", "FerryTestSupport"]),
    .testTarget(name: "FerryCacheTests", dependencies: ["FerryCache"], exclude: ["Fixtures"]),
    .testTarget(name: "FerryClientTests", dependencies: ["FerryClient", "FerryChannel", "FerryWire"]),
    .testTarget(
      name: "FerrySerializerTests", dependencies: ["FerrySerializer", "FerryWire", "FerryTestSupport"],
      // Read by the tests through #filePath, not bundled.
      exclude: ["Fixtures"]),
    .testTarget(name: "FerryLoopTests", dependencies: ["FerryLoop", "FerryTestSupport"]),
    .testTarget(name: "FerryRedisTests", dependencies: ["FerryRedis", "FerryLoop", "FerryTestSupport"]),
    .testTarget(
      name: "FerrySessionTests",
      dependencies: ["FerrySession", "FerryLoop", "FerryTestSupport", "FerryWire", "FerrySerializer"]
    ),
    .testTarget(
      name: "FerryStoreTests", dependencies: ["FerryStore", "FerryTestSupport", "FerryDaemon", "FerryWire"]),
    .testTarget(
      name: "FerryDaemonTests",
      dependencies: ["FerryDaemon", "FerryTestSupport", "FerryWire"],
      // The RFC 6265 corpus (Fixtures/http-state), read through #filePath, not bundled.
      exclude: ["Fixtures"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
