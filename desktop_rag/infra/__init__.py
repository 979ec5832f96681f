"""Plumbing: fault points, file locks, one window per library, frozen-build files, logs."""
