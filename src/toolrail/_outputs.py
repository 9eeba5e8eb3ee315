"""Oversized outputs: cut to a cap, optionally with the whole output kept in a file."""

from __future__ import annotations

from pathlib import Path

from toolrail._jsonish import dumps
from toolrail.core.redact import redact_text


def _text(value: object) -> str:
    return value if isinstance(value, str) else dumps(value).decode()


def fits(value: object, cap: int) -> bool:
    """Whether the output's text is at most `cap` characters (cheap for short strings and
    numbers: their JSON text's length is known without serialising them)."""
    if type(value) is str:
        return len(value) <= cap
    if (type(value) is int and -(2**63) <= value < 2**63) or type(value) in (bool, float):
        return cap >= _LONGEST_NUMBER or len(repr(value)) <= cap
    if value is None:
        return cap >= len("null")
    if isinstance(value, str):  # a subclass of str
        return len(value) <= cap
    return len(_text(value)) <= cap


_LONGEST_NUMBER = len("-1.7976931348623157e+308")
"""No int64, bool or float is longer as text: 24 characters."""


def cap_output(value: object, cap: int, spill: Path | None) -> object:
    """`value` if its text fits in `cap` characters; else a marker with a preview and the
    original size, and — given `spill` — the path of a file (`spill` plus a suffix) holding
    all of it, redacted. Blocking: the executor runs it on a worker thread."""
    text = _text(value)
    if len(text) <= cap:
        return value
    marker: dict[str, object] = {
        "truncated": True,
        "original_chars": len(text),
        "preview": text[:cap] + "…",
    }
    if spill is None:
        return marker
    path = spill.with_name(spill.name + (".txt" if isinstance(value, str) else ".json"))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(redact_text(text), encoding="utf-8", errors="replace")
        marker["full_output_path"] = str(path)
    except OSError as error:
        marker["full_output_error"] = str(error)
    return marker
