// The request serializer; see docs/ARCHITECTURE.md.
