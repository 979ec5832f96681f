"""Retrieval, the prompt, the language model and the answer service."""
