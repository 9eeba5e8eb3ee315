"""Benchmarks (not tests): run with `make bench`."""
