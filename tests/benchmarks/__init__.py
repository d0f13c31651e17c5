"""Tests of the benchmarks (tiny sizes; no timing is asserted)."""
