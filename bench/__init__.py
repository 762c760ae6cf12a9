"""Benchmarks: engine speed, playing strength, recognition accuracy and speed."""
