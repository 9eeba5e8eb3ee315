"""Query expansion with word-embedding neighbours, from a table shipped with toolrail.

A request often names a tool's job in other words ("film" for a movie tool, "purchase" for
a shopping one): the lexical index cannot see that. Following Kuzi, Shtok & Kurland
("Query expansion using word embeddings", CIKM 2016) and Roy et al. ("Using word embeddings
for automatic query expansion", Neu-IR 2016), each request word brings its nearest words in
an embedding space as extra, lighter query terms.

The neighbours were computed offline (`bench/build_neighbours.py` makes `neighbours.tsv`
again), over a general English vocabulary (Debian's `wamerican` word list); nothing was
taken from any benchmark. Each word is embedded alone by all-MiniLM-L6-v2 (Apache-2.0), so
every word has a vector, also one a tokenizer splits; words are grouped by Porter stem (a
stem's vector is the mean of its words'), and each stem keeps its nearest common stems by
cosine: stems of the whole-word tokens of WordLlama's tokenizer (MIT licence, (c) 2024 Lee
Miller, https://github.com/dleemiller/WordLlama), a frequent-word list, since a tool's text
says "buy" more often than "procure". At run time this is a dict look-up: no embedding
library is needed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from toolrail.routing._shipped import shipped

MIN_SIMILARITY = 0.5
"""A neighbour counts when its cosine to the request word reaches this: the level the router
asks of a whole request's MiniLM embedding to call it close to a tool
(`RoutingSettings.min_similarity`), here for words by the same encoder. Far above chance
(two random words' cosine has mean 0.22 and standard deviation 0.08 here, so 0.5 is about
3.7 deviations out); it admits words of the same topic as well as words for the same thing
(weather: winter 0.67, climate 0.67, rain 0.66, storm 0.62), which is why a neighbour weighs
at most half a request word (`WEIGHT`) and never makes a request relevant by itself."""
MAX_NEIGHBOURS = 5
"""At most this many neighbours a word (the table keeps no more): Roy et al. expand each
query word with its few nearest neighbours."""
WEIGHT = 0.5
"""An expansion word's query weight is its cosine times this, against 1 for each word of
the request: the usual equal interpolation of the original query and its expansion
(RM3's lambda = 0.5; Abdul-Jaleel et al., 2004; Kuzi et al. interpolate the same way). So a
neighbour counts at most half an original word, never more."""


def _read(data: bytes) -> dict[str, tuple[tuple[str, float], ...]]:
    return parse(data.decode("utf-8"))


neighbours: Callable[[], Mapping[str, tuple[tuple[str, float], ...]]] = shipped(
    "neighbours.tsv", _read
)
"""The table: stem -> its neighbour stems with their cosines, best first. Read from the
package on first use (about 23,000 lines, ~0.1 s), then kept."""


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
