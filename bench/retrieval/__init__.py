"""Benchmarks of recall and context: answers on LoCoMo, latency at scale, the reader, LongMemEval, event time, recall identity."""
