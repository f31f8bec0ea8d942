"""Benchmarks of the merge pass: labelled pairs, the fitted verifier, cross-dataset checks, distinct events, the guard, pass speed."""
