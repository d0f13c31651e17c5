"""Benchmarks: ESS per second against PyMC, LDA tokens per second; ``make bench``."""
