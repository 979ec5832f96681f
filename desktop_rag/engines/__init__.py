"""Adapters for external engines: the embedder (PyTorch, ONNX Runtime), the LLM (llama.cpp)."""
