// swift-tools-version:6.0
import PackageDescription

// A program that uses FerryKit from the source tree, as another package would from a release
// (`.package(url: …, from: …)`): FerryKit's targets carry no unsafe flags, so both work.
let package = Package(
  name: "ferry-kit-example",
  dependencies: [.package(name: "ferry", path: "../..")],
  targets: [
    .executableTarget(
      name: "ferry-kit-example", dependencies: [.product(name: "FerryKit", package: "ferry")])
  ],
  swiftLanguageModes: [.v6]
)
