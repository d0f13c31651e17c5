"""The harness: registry of pairs, running both sides, agreement checks, reports and the CLI."""
