"""Helpers the tests share: document writers, fakes, and steps several test files take."""
