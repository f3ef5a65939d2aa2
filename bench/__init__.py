"""Benchmarks for Seaway (run as ``python -m bench.<name>`` from the repository root)."""
