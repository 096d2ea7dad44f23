// The FerryLoop module; see docs/ARCHITECTURE.md.
