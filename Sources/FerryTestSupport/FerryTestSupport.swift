// The FerryTestSupport module; see docs/ARCHITECTURE.md.
