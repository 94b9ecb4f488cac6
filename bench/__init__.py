"""Benchmarks: ``python -m bench`` measures the whole chain and prints one table (bench/__main__.py).

The per-part scripts (``bench/explain.py``, ``bench/serial_bench.py``, ...) also run on their own.
"""
