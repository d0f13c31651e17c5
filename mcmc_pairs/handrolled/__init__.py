"""Hand-written samplers: one module per example, each a sample() of docs/contracts.md."""
