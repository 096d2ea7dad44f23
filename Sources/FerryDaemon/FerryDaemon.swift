// The FerryDaemon module; see docs/ARCHITECTURE.md.
