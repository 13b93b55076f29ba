"""Engine benchmarks: ``python -m benchmarks.run --quick`` (see benchmarks/run.py)."""
