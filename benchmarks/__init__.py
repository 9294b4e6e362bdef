"""Benchmarks: throughput, tournaments among bots, ratings and the CI rating check."""
