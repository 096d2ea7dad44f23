// The FerrySession module; see docs/ARCHITECTURE.md.
