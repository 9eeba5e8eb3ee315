"""Static word vectors shipped with toolrail: a dense similarity for the default router,
in pure Python (no numpy at run time).

The table (`word_vectors.bin`, made by `bench/build_word_vectors.py`) holds one small
vector per Porter stem: WordLlama's l2_supercat_256 vectors (MIT licence, (c) 2024 Lee
Miller, https://github.com/dleemiller/WordLlama), the model of the `[semantic]` extra, of
the words of a general English word list, averaged per stem, reduced by PCA over those
stems and quantised to int8 per dimension. A text's vector is the unit mean of its words'
vectors (WordLlama's own way, with the lexical side's words: identifiers split, stop words
dropped, stemmed); a word the table lacks is left out. Cosine is a dot product.
"""

from __future__ import annotations

import math
import struct
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from operator import mul

from toolrail.routing._shipped import shipped

_TABLE = "word_vectors.bin"
_MAGIC = b"TRWV1"
_BIAS = 128
"""Added to each int8 value so that packed fields stay non-negative (sums cannot borrow)."""


class WordVectors:
    """stem -> int8 row, per-dimension scales. Each row is also kept as one Python int of
    32-bit fields (value + 128 each): adding such ints adds the rows field by field in C,
    so a text's sum costs one big-int addition a word."""

    def __init__(self, data: bytes) -> None:
        if data[:5] != _MAGIC:
            raise ValueError("not a toolrail word-vector table")
        count, dims = struct.unpack_from("<IH", data, 5)
        offset = 11
        self.dims = dims
        self.scales: tuple[float, ...] = struct.unpack_from(f"<{dims}f", data, offset)
        offset += 4 * dims
        (size,) = struct.unpack_from("<I", data, offset)
        offset += 4
        stems = data[offset : offset + size].decode().split("\n")
        offset += size
        if len(stems) != count or len(data) - offset != count * dims:
            raise ValueError("word-vector table is truncated")
        self._rows = memoryview(data)[offset:].cast("b")
        self._index = {stem: i for i, stem in enumerate(stems)}
        self._packed: dict[str, int] = {}
        self._squares = tuple(s * s for s in self.scales)
        self._bias = _packed([_BIAS] * dims)
        self._half = _packed([1 << 31] * dims)

    def __contains__(self, stem: object) -> bool:
        return stem in self._index

    def __len__(self) -> int:
        return len(self._index)

    def row(self, stem: str) -> list[int] | None:
        i = self._index.get(stem)
        if i is None:
            return None
        d = self.dims
        return self._rows[i * d : (i + 1) * d].tolist()

    def _pack(self, stem: str) -> int:
        """The row of `stem` as one int (0 when the table has no such stem). Rows are
        remembered, misses not: the cache is bounded by the table (requests bring ids)."""
        found = self._packed.get(stem)
        if found is None:
            row = self.row(stem)
            if row is None:
                return 0
            found = self._packed[stem] = _packed([x + _BIAS for x in row])
        return found

    def embed(self, counts: Mapping[str, int]) -> tuple[array[int], float] | None:
        """The sum of the int8 rows of `counts`' words (each `count` times) and the inverse
        length of the real vector it stands for (each dimension times its scale); None if
        no word has a row or the sum is 0."""
        total = n = 0
        pack = self._pack
        for term, count in counts.items():
            packed = pack(term)
            if packed:
                total += packed * count
                n += count
        if not n:
            return None
        # less the bias, then each field in two's complement: plain 32-bit signed ints
        signed = (total - n * self._bias + self._half) ^ self._half
        fields = array("i")
        fields.frombytes(signed.to_bytes(4 * self.dims, "little"))
        squared = sum(map(mul, self._squares, map(mul, fields, fields)))
        return (fields, 1.0 / math.sqrt(squared)) if squared > 0.0 else None

    def query(self, counts: Mapping[str, int]) -> array[float] | None:
        """The request's unit vector with each dimension times its scale once more, so that
        its dot product with a tool's int sum, times that sum's inverse length, is a cosine."""
        found = self.embed(counts)
        if found is None:
            return None
        fields, inverse = found
        return array("d", [x * s * s * inverse for x, s in zip(fields, self.scales, strict=False)])


def _packed(fields: list[int]) -> int:
    """Non-negative 32-bit `fields` as one int, the first in the lowest bits."""
    return int.from_bytes(array("I", fields).tobytes(), "little")


word_vectors: Callable[[], WordVectors] = shipped(_TABLE, WordVectors)
"""The shipped table, read on first use, then kept."""


class VectorIndex:
    """Each tool's vector (with its inverse length), kept in step with the router's registry."""

    def __init__(self, table: WordVectors | None = None) -> None:
        self.table = table or word_vectors()
        self._vectors: dict[str, tuple[array[int], float]] = {}

    def add(self, name: str, counts: Mapping[str, int]) -> None:
        """Embed the tool called `name` by its words' counts: those of its name and
        description, as the `[semantic]` extra embeds a tool (the router reads them from
        its lexical index's fields)."""
        found = self.table.embed(counts)
        if found is None:
            self._vectors.pop(name, None)
        else:
            self._vectors[name] = found

    def remove(self, name: str) -> None:
        self._vectors.pop(name, None)

    def __len__(self) -> int:
        return len(self._vectors)

    def similarities(
        self, terms: Sequence[str], names: Iterable[str] | None = None
    ) -> dict[str, float]:
        """The cosine of the request's words to each tool of `names` (every tool if None)
        that has a vector; empty when no request word has one."""
        query = self.table.query(Counter(terms))
        if query is None:
            return {}
        vectors = self._vectors
        chosen = vectors.items() if names is None else ((n, vectors.get(n)) for n in names)
        return {name: sum(map(mul, query, v[0])) * v[1] for name, v in chosen if v is not None}
