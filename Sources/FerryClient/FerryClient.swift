// The ferry command-line client library; see docs/CLI.md.
