"""eltwise's benchmark suite: ``python -m benchmarks --help`` (run from the repository root)."""
