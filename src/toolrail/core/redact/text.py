"""`redact_text`: every pass over free text, each run only where what it hides may be."""

from __future__ import annotations

import functools

from toolrail.core.redact.assignments import _ASSIGNING, _redact_assignments
from toolrail.core.redact.calls import _named_then_valued
from toolrail.core.redact.commands import (
    _HEADER,
    _MYSQL_PASSWORD,
    _NETRC,
    _SSHPASS,
    _glued_password,
)
from toolrail.core.redact.curl import _curl_passwords
from toolrail.core.redact.entities import _decoded
from toolrail.core.redact.entries import _names_a_secret_entry
from toolrail.core.redact.flags import _FLAG_ITEM, _FLAG_WORD, _hidden_values
from toolrail.core.redact.held import _held_strings, _restored
from toolrail.core.redact.jsontext import (
    _JSON_OPENING,
    _OBJECT_OPENING,
    _embedded_json,
    _objects_restored,
    _redacted_json,
)
from toolrail.core.redact.line_entries import _FLOW_KEY, _flow_entries, _flow_secret_name
from toolrail.core.redact.listed_argv import _listed_argv, _may_list
from toolrail.core.redact.markers import REDACTED
from toolrail.core.redact.markup import _marked_up
from toolrail.core.redact.names import _MAY_REDACT, _SECRET_NAME, _reduced
from toolrail.core.redact.pair_entries import (
    _PAIR_KEY,
    _PAIR_VALUE_MARK,
    _pair_entries,
    _pair_secret_name,
)
from toolrail.core.redact.quotes import _quote_counts
from toolrail.core.redact.secret_commands import _stored_secrets
from toolrail.core.redact.stores import _may_store
from toolrail.core.redact.tokens import (
    _PRIVATE_KEY,
    _QUERY_KEY,
    _RUN,
    _SCHEME_CREDENTIALS,
    _SHORTEST_SECRET,
    _SLACK_WEBHOOK,
    _URL_CREDENTIALS,
    _URL_USER,
    _p_item,
    _query_key,
    _token,
    _token_prefixed,
    _url_user,
)
from toolrail.core.redact.yaml_argv import _YAML_DASHED_ITEM, _yaml_argv
from toolrail.core.redact.yaml_entries import _ENTRY_KEY_LINE, _yaml_entries, _yaml_secret_name


def redact_text(text: str) -> str:
    """Text with token-like substrings and assigned secrets replaced.

    >>> redact_text("curl -H 'Authorization: Bearer abc.def.ghi123' https://u:pw@host/x")
    "curl -H 'Authorization: [REDACTED]' https://[REDACTED]@host/x"
    """
    if len(text) < _SHORTEST_SECRET:
        return text
    if "&" in text:
        text = _entities_read(text, _ENTITY_LEVELS)
    return _redact_passes(text) if _may_hide(text) else text


def _may_hide(text: str) -> bool:
    """Whether any pass may change the text: no pass changes text without what its guard,
    or for tokens and PEM keys its pattern, looks for (most text holds none of it)."""
    if ("-" in text or "_" in text) and (_token_prefixed(text) or "-----BEGIN" in text):
        return True
    if ("://" in text and "@" in text) or "IA" in text or "AIza" in text or "eyJ" in text:
        return True
    if "hooks.slack.com/" in text or _query_key(text):
        return True
    if "\\u" in text:  # JSON's escapes (`{"\u0070assword": ...}`), read as data
        return True
    return (
        _may_redact(_reduced(text.lower())) is not None
        or _p_item(text)
        or _may_store(text)  # (`docker login -p X`, `setx NAME X`: no secret word)
    )


_may_redact = _MAY_REDACT.search  # (bound once: the search most text ends with)


_ENTITY_LEVELS = 4
"""How many times text escaped again and again (`&amp;amp;quot;`: 3) is decoded at most."""


def _entities_read(text: str, levels: int) -> str:
    """`text` read with its entities decoded, what that hides hidden in its own spelling (a
    value spelt with an entity may then be hidden whole by the passes over the text as
    written). The decoded text is read so in turn, `levels` times at most: text escaped
    again (`&amp;quot;`) is read at every level, a value's own entity too (`&lt;password&gt;
    a&amp;lt;b&lt;/password&gt;`: `a&lt;b`, where only the deepest reading ends it at `<`)."""
    decoded = _decoded(text)
    if decoded is None:
        return text
    inner = decoded.text
    if levels > 1 and "&" in inner:
        inner = _entities_read(inner, levels - 1)
    shown = _redact_passes(inner) if _may_hide(inner) else inner  # (as `redact_text` asks)
    return text if shown == decoded.text else decoded.restored(shown)


def _redact_passes(text: str) -> str:
    """Every pass; text too deep in JSON text in JSON (each depth a `redact` of its own) for
    the stack to read goes whole."""
    try:
        return _passes(text)
    except RecursionError:
        _STACK_RAN_OUT.count += 1  # (what depends on the stack's depth is not remembered)
        return REDACTED


class _StackRanOut:
    """How often the passes ran out of stack: what is redacted meanwhile is not remembered."""

    count = 0


_STACK_RAN_OUT = _StackRanOut()


def _passes(text: str) -> str:
    """Every pass, each skipped when what it replaces cannot be in the text."""
    if _JSON_OPENING.match(text) and (as_data := _redacted_json(text)) is not None:
        return as_data
    objects: list[str] = []
    mark = ""
    if "{" in text and _OBJECT_OPENING.search(text):
        text, objects, mark = _embedded_json(text, _may_hide)
    if "\n" in text and _YAML_DASHED_ITEM.search(text) is not None:
        text = _yaml_argv(text)  # (before JSON strings are held out: it reads them as YAML)
    if _may_list(text):
        text = _listed_argv(text)  # (so too)
    if "\n" in text and _names_a_secret_entry(text, _ENTRY_KEY_LINE, _yaml_secret_name):
        text = _yaml_entries(text)  # (so too)
    if "{" in text and _names_a_secret_entry(text, _FLOW_KEY, _flow_secret_name):
        text = _flow_entries(text)  # (so too)
    if _PAIR_VALUE_MARK.search(text) and _names_a_secret_entry(text, _PAIR_KEY, _pair_secret_name):
        text = _pair_entries(text)  # (so too)
    if "(" in text and "," in text:
        text = _named_then_valued(text)  # (so too)
    held: list[str] = []
    if '"' in text and "\0" not in text:  # (NUL marks where the strings held out were)
        text, held = _held_strings(text)
    if _token_prefixed(text) or "IA" in text or "AIza" in text or "eyJ" in text:
        text = _RUN.sub(_token, text)  # every token family starts with one of these
    if "-----BEGIN" in text:
        text = _PRIVATE_KEY.sub(REDACTED, text)
    if "earer" in text or "EARER" in text or "asic" in text or "ASIC" in text:
        text = _SCHEME_CREDENTIALS.sub(REDACTED, text)
    if "://" in text and "@" in text:
        text = _URL_CREDENTIALS.sub(rf"\1{REDACTED}@", text)
        text = _URL_USER.sub(_url_user, text)
    if "hooks.slack.com/" in text:
        text = _SLACK_WEBHOOK.sub(rf"\1{REDACTED}", text)
    if _query_key(text):
        text = _QUERY_KEY.sub(rf"\1{REDACTED}", text)
    if _may_store(text):  # (after JSON strings are held out: one holding a command is read)
        text = _stored_secrets(text, held)
    lowered_from, lowered = text, text.lower()
    if "uthorization" in lowered or "ookie" in lowered:
        text = _HEADER.sub(rf"\1{REDACTED}", text)
    if "<" in text and ("<input" in lowered or "<meta" in lowered):
        text = _marked_up(text)
    if "-p" in text and ("mysql" in lowered or "mariadb" in lowered):
        text = _MYSQL_PASSWORD.sub(functools.partial(_glued_password, _quote_counts(text)), text)
    if "-p" in text and "sshpass" in lowered:
        text = _SSHPASS.sub(functools.partial(_glued_password, _quote_counts(text)), text)
    if "curl" in lowered:
        text = _curl_passwords(text, held)
    if "password" in text or "passwd" in text:
        text = _NETRC.sub(rf"\1{REDACTED}", text)
    if any(separator in text for separator in _ASSIGNING):
        if text is not lowered_from:
            lowered_from, lowered = text, text.lower()
        if _SECRET_NAME.search(_reduced(lowered)):
            text = _redact_assignments(text)
    other_dashes = "\\u" in text or not text.isascii()  # a dash written other than `-`
    if "-" in text or other_dashes:
        text = _hidden_values(text, _FLAG_WORD)
        if (
            '"-' in text
            or "'-" in text
            or other_dashes
            or "\x1b[" in text
            or "1b[" in text
            or "033[" in text
        ):
            text = _hidden_values(text, _FLAG_ITEM)
    text = _restored(text, held) if held else text
    return _objects_restored(text, objects, mark) if objects else text
