"""Tuning runs: the sweeps and replays the ranking constants were chosen with."""
