"""Indexing: scan, extract, chunk, embed, store, and watch folders."""
