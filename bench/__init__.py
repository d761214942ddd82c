"""Performance benchmarks of docs/spec/quality.md, run by `make bench` (`python -m bench`).

Kept out of the test suite on purpose: timings on a shared 2-core machine are noisy, so
they are printed, never asserted. Query counts that must hold belong in ordinary tests.
"""
