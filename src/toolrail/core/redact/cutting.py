"""Cutting to size after redacting, so no piece of a secret is left at the cut."""

from __future__ import annotations

import json

import orjson

from toolrail.core.redact.data import redact, redact_name, redacts_nothing
from toolrail.core.redact.markers import TOO_DEEP
from toolrail.core.redact.terminal import printable
from toolrail.core.redact.text import redact_text


def shorten(text: str, limit: int, *, redacted: bool = False) -> str:
    """`text` redacted, at most `limit` characters: a longer one is cut and says from how
    long (the one bound every error's text shares). Redacted before it is cut, as a whole
    (see `_redacted_start`), so no piece of a secret is left at the cut. `redacted`: the
    text is redacted already (it is only cut)."""
    if len(text) <= limit:
        return text if redacted else redact_text(text)
    note = f"… ({len(text)} characters, cut)"
    keep = max(0, limit - len(note))
    return (text[:keep] if redacted else _redacted_start(text, keep)) + note


_WHOLE = 1_000_000
"""Texts up to this long are redacted whole before they are cut; a longer one, this much past
the cut (a secret longer than that is the one thing that could straddle it)."""


def _redacted_start(text: str, keep: int) -> str:
    """The first `keep` characters of `text` redacted. Redacting only a little past the cut
    would leak: a secret straddling the window's end is not recognised (a JWT needs all its
    parts), and a secret redacted inside the window shortens it, pulling unread text in."""
    return redact_text(text[: keep + _WHOLE])[:keep]


def shown_name(name: str, limit: int = 120) -> str:
    """A name someone supplied, as it may be shown (`redact_name`, `printable`) and at most
    about `limit` characters: a longer one keeps its start and says how long it was."""
    shown = printable(redact_name(name), one_line=True)
    return shown if len(shown) <= limit else f"{shown[:limit]}… ({len(name)} characters)"


def cut(value: object, max_bytes: int, *, redact_secrets: bool = True) -> object:
    """`value`, redacted, if its JSON fits in `max_bytes`; else a marker with its size and
    a redacted preview (redacted before it is cut, as `shorten` is).
    Where redaction would change nothing, `value` itself comes back, not a copy. A value
    that is not JSON data (an int key, an int past 64 bits, nesting past orjson's limit) is
    taken as `json.dumps` writes it, or as a marker if even that fails: never an exception."""
    try:
        encoded = orjson.dumps(value, default=str)
    except (TypeError, RecursionError):
        value, encoded = _as_json(value)
    if len(encoded) <= max_bytes:
        if not redact_secrets or redacts_nothing(value):
            return value
        return redact(value)
    keep = max(0, max_bytes - 64)
    text = encoded[: keep + _WHOLE].decode("utf-8", errors="ignore")
    preview = _redacted_start(text, keep) if redact_secrets else text[:keep]
    return {"truncated": True, "original_bytes": len(encoded), "preview": preview + "…"}


def _as_json(value: object) -> tuple[object, bytes]:
    """A value orjson cannot write, as `json.dumps` writes it (keys made strings, any int),
    read back; a marker if that fails too."""
    try:
        text = json.dumps(value, default=str)
    except RecursionError:
        return TOO_DEEP, orjson.dumps(TOO_DEEP)
    except (TypeError, ValueError):  # a key no JSON has (a tuple)
        return _NOT_JSON, orjson.dumps(_NOT_JSON)
    return json.loads(text), text.encode()


_NOT_JSON = "[NOT JSON]"


def truncate(value: object, max_bytes: int) -> object:
    """`value` if its JSON fits in `max_bytes`, else a marker with its size and a preview
    (no redaction: `cut` is the one to use for anything a person may read)."""
    return cut(value, max_bytes, redact_secrets=False)
