"""Query expansion with word-embedding neighbours, from a small table shipped with toolrail.

A request often names a tool's job in other words ("film" for a movie tool, "purchase" for
a shopping one): the lexical index cannot see that. Following Kuzi, Shtok & Kurland
("Query expansion using word embeddings", CIKM 2016) and Roy et al. ("Using word embeddings
for automatic query expansion", Neu-IR 2016), each request word brings its nearest words in
an embedding space as extra, lighter query terms.

The neighbours were computed offline (`bench/build_neighbours.py` makes `neighbours.tsv`
again) from WordLlama's l2_supercat_256 token embeddings (MIT licence, (c) 2024 Lee Miller,
https://github.com/dleemiller/WordLlama), over a general English vocabulary: the lower-case
whole-word tokens of WordLlama's tokenizer that a general English dictionary (Debian's
`wamerican` word list) also holds; nothing was taken from any benchmark. Words are grouped
by Porter stem (a stem's vector is the mean of its words'), and each stem keeps its nearest
stems by cosine. At run time this is a dict look-up: no embedding library is needed.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from importlib import resources

MIN_SIMILARITY = 0.5
"""A neighbour counts when its cosine to the request word reaches this: the same
"paraphrase, not a shared topic" level the router asks of a whole request's embedding
(`RoutingSettings.min_similarity`). Far above chance in this space (the cosine of two random
words here has mean 0.005 and standard deviation 0.07, so 0.5 is about seven deviations
out), and below it the neighbours are words of the same topic rather than words for the
same thing (weather: temperature 0.56, climate 0.52, then winter 0.46, snow 0.45)."""
MAX_NEIGHBOURS = 5
"""At most this many neighbours a word (the table keeps no more): Roy et al. expand each
query word with its few nearest neighbours; past five they are rarely above
`MIN_SIMILARITY` anyway (1.7 neighbours a word on average)."""
WEIGHT = 0.5
"""An expansion word's query weight is its cosine times this, against 1 for each word of
the request: the usual equal interpolation of the original query and its expansion
(RM3's lambda = 0.5; Abdul-Jaleel et al., 2004; Kuzi et al. interpolate the same way). So a
neighbour counts at most half an original word, never more."""

_TABLE = "neighbours.tsv"
_lock = threading.Lock()
_loaded: dict[str, tuple[tuple[str, float], ...]] | None = None


def neighbours() -> Mapping[str, tuple[tuple[str, float], ...]]:
    """The table: stem -> its neighbour stems with their cosines, best first. Read from the
    package on first use (about 2,000 lines), then kept."""
    global _loaded
    found = _loaded
    if found is not None:
        return found
    with _lock:
        if _loaded is None:
            text = resources.files(__package__).joinpath(_TABLE).read_text(encoding="utf-8")
            _loaded = parse(text)
        return _loaded


def parse(text: str) -> dict[str, tuple[tuple[str, float], ...]]:
    """Lines `stem<TAB>neighbour:cosine neighbour:cosine ...`; `#` starts a comment line."""
    table: dict[str, tuple[tuple[str, float], ...]] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        stem, _, rest = line.partition("\t")
        pairs = []
        for item in rest.split():
            word, _, cosine = item.rpartition(":")
            similarity = float(cosine)
            if similarity >= MIN_SIMILARITY:
                pairs.append((word, similarity))
        if pairs:
            table[stem] = tuple(pairs[:MAX_NEIGHBOURS])
    return table


def expand(
    terms: Iterable[str], table: Mapping[str, tuple[tuple[str, float], ...]] | None = None
) -> dict[str, tuple[float, str]]:
    """Each neighbour of `terms` that is not itself one of them: its cosine to the closest
    of `terms` and that word. A neighbour of two request words keeps the higher cosine (one
    extra term, counted once: the request did not say it twice)."""
    table = neighbours() if table is None else table
    own = set(terms)
    found: dict[str, tuple[float, str]] = {}
    for term in sorted(own):  # ties go to the same word every time
        for word, similarity in table.get(term, ()):
            if word not in own and similarity > found.get(word, (0.0, ""))[0]:
                found[word] = (similarity, term)
    return found
