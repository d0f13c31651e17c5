"""Hand-written samplers: one module per example, each with a sample() of the DESIGN.md contract."""
