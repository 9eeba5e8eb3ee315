"""Secrets written with HTML entities escaped more than once: HTML-escaped JSON or XML put in
an HTML attribute or page and escaped again, as templating layers do
(`{&amp;quot;password&amp;quot;: &amp;quot;X&amp;quot;}`,
`&amp;lt;password&amp;gt;X&amp;lt;/password&amp;gt;`, `&amp;amp;quot;`). The text is read
with its entities decoded a level at a time, each level read by the passes, as far as they
nest; what is hidden goes in its own spelling, every level's entities included, and the text
around it stays as it was written."""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Sequence
from xml.sax.saxutils import escape as xml_escape

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hang_guard import finished
from toolrail.core.redact import REDACTED, redact, redact_text
from toolrail.core.redact.entities import _decoded

X = "hunter2-s3cr3t"
R = REDACTED

Escape = Callable[[str], str]

_SPECIAL = "&<>\"'="


def named(text: str) -> str:
    """As `html.escape` writes it (`&amp;`, `&lt;`, `&quot;`, `&#x27;`), `=` as `&equals;`."""
    return html.escape(text).replace("=", "&equals;")


def decimal(text: str) -> str:
    return "".join(f"&#{ord(c)};" if c in _SPECIAL else c for c in text)


def hexadecimal(text: str) -> str:
    return "".join(f"&#x{ord(c):x};" if c in _SPECIAL else c for c in text)


def escaped(text: str, escapes: Sequence[Escape]) -> str:
    for escape in escapes:
        text = escape(text)
    return text


# each shown with the secret alone replaced, escaped by each chain below
SHAPES = [
    f'{{"password": "{X}"}}',
    f'data=\'{{"user": "bob", "token": "{X}"}}\'',
    f'password="{X}"',
    f"password: '{X}'",
    f"<password>{X}</password>",
    f'<wsse:Password Type="t">{X}</wsse:Password>',
    f'"token": "{X}"',
    f"password={X}",
    f'<input name="password" value="{X}">',
    f'Tom & Jerry: password="{X}" "token": "{X}"',
    f'<property name="password" value="{X}"/>',
    f"name='DB_PASSWORD' value='{X}'",
]
CHAINS: list[tuple[Escape, ...]] = [
    (named, named),
    (decimal, decimal),
    (hexadecimal, hexadecimal),
    (named, decimal),
    (decimal, named),
    (hexadecimal, named),
    (named, named, named),
    (decimal, hexadecimal, named),
    (named, named, named, named),
]


def _ids(chain: Sequence[Escape]) -> str:
    return "+".join(escape.__name__ for escape in chain)


@pytest.mark.parametrize("chain", CHAINS, ids=_ids)
@pytest.mark.parametrize("plain", SHAPES)
def test_a_secret_escaped_more_than_once_is_hidden_in_its_spelling(
    plain: str, chain: tuple[Escape, ...]
) -> None:
    """The value goes, every level's entities around it stay as written."""
    text = escaped(plain, chain)
    assert redact_text(text) == text.replace(X, R)
    assert X not in str(redact({"page": text}))


# the examples that showed, and spellings at mixed levels in one text
HIDDEN = [
    (f"{{&amp;quot;password&amp;quot;: &amp;quot;{X}&amp;quot;}}", None),
    (f"&amp;lt;password&amp;gt;{X}&amp;lt;/password&amp;gt;", None),
    (f"password=&amp;quot;{X}&amp;quot;", None),
    (f"&amp;#34;token&amp;#34;: &amp;#34;{X}&amp;#34;", None),
    (f"password&amp;#61;{X}", None),
    (f"{{&amp;amp;quot;password&amp;amp;quot;: &amp;amp;quot;{X}&amp;amp;quot;}}", None),
    (f"&amp;amp;lt;password&amp;amp;gt;{X}&amp;amp;lt;/password&amp;amp;gt;", None),
    # the `&` of an entity spelt by another entity, any way
    (f"password=&#38;quot;{X}&#x26;quot;", None),
    (f"&#38;#34;token&#38;#34;: &#x26;#x22;{X}&#38;#34;", None),
    (f"password&#38;#x3d;{X}", None),
    (f"password=&#38;amp;quot;{X}&amp;#38;quot;", None),
    # levels mixed in one text
    (f"&quot;password&quot;: &amp;quot;{X}&amp;quot;", None),
    # (read a level at a time, the closing tag escaped once more than the opening one is
    # text at the level where the opening one is markup: the value runs to the end)
    (f"&lt;password&amp;gt;{X}&amp;amp;lt;/password&gt;", f"&lt;password&amp;gt;{R}"),
    (f"password=&quot;{X}&quot; and &amp;lt;token&amp;gt;{X}&amp;lt;/token&amp;gt;", None),
    (f'<div data-x="{{&amp;quot;api_key&amp;quot;: &amp;quot;{X}&amp;quot;}}">', None),
    (f"Tom &amp;amp; Jerry &amp; password=&amp;quot;{X}&amp;quot; &amp;lt;b&amp;gt;", None),
    (f"&amp;NotEqualTilde; password=&amp;quot;{X}&amp;quot; &amp;fjlig; &fjlig;", None),
    # in a JSON string in text: its text read decoded as far as it nests too
    (f'log {{"html": "<p>password=&amp;quot;{X}&amp;quot;</p>"}}', None),
    # a value that goes whole, its entities with it
    (
        f"password=&amp;quot;{X} more&amp;quot; --verbose",
        f"password=&amp;quot;{R}&amp;quot; --verbose",
    ),
    (f"password=&amp;quot;{X}&amp;amp;amp;more&amp;quot; x", f"password=&amp;quot;{R}&amp;quot; x"),
]


@pytest.mark.parametrize(("text", "shown"), HIDDEN)
def test_nested_entities_are_read_as_far_as_they_nest(text: str, shown: str | None) -> None:
    assert redact_text(text) == (text.replace(X, R) if shown is None else shown)
    assert X not in str(redact({"page": text}))


# text cut off (a preview) in the middle of an entity, at some level
CUT_OFF = [
    f"password=&amp;quot;{X}&amp;qu",
    f"password=&amp;quot;{X}&am",
    f"password=&amp;quot;{X}&amp;",
    f"password=&amp;quot;{X}&amp;#3",
    f"{{&amp;quot;password&amp;quot;: &amp;quot;{X}&amp;quot",
    f"{{&amp;quot;password&amp;quot;: &amp;quot;{X}&amp;amp;q",
    f"&amp;lt;password&amp;gt;{X}&amp;lt;/pass",
    f"&amp;lt;password&amp;gt;{X}&amp;l",
    f"&amp;#34;token&amp;#34;: &amp;#34;{X}&amp;#x2",
    f"&amp;amp;lt;password&amp;amp;gt;{X}&amp;amp;lt;/passw",
]


@pytest.mark.parametrize("text", CUT_OFF)
def test_cut_off_inside_a_nested_entity_is_hidden_to_the_end(text: str) -> None:
    redacted = redact_text(text)
    assert X not in redacted
    assert "s3cr3t" not in redacted
    assert redacted.startswith(text[: text.index(X)]), redacted


STAYS = [
    "Tom &amp;amp; Jerry",
    "Tom &amp;amp;amp; Jerry &amp; friends",
    "&amp;lt;b&amp;gt;bold&amp;lt;/b&amp;gt;",
    "&amp;amp;lt;i&amp;amp;gt;it&amp;amp;lt;/i&amp;amp;gt;",
    "&amp;lt;p&amp;gt;Enter your password below.&amp;lt;/p&amp;gt;",
    "the &amp;quot;password&amp;quot; field is required",
    "&amp;lt;label for=&amp;quot;password&amp;quot;&amp;gt;Password&amp;lt;/label&amp;gt;",
    "if a &amp;lt; b &amp;amp;&amp;amp; c &amp;gt; d: print(&amp;quot;password&amp;quot;)",
    "https://example.com/login?user=bob&amp;amp;next=/home",
    "&amp;#38;&amp;#x26;&amp;unknown; &amp;#; &amp;#x; &amp; ; &amp;amp password=&amp;",
    "&amp;amp;amp;amp;amp;amp;amp; &#38;#38;#38;#38;#38; &#x26;amp;amp;",
    f"&amp;#91;{R}] &amp;lt;{R}&amp;gt;",
    "price:&amp;nbsp;10&amp;nbsp;EUR &amp;copy; 2024",
    # a value never starts with a separator: an empty value
    "https://host/login?password=&amp;amp;user=bob",
    "{password=}, [token=], password&amp;#61;, user=bob",
]


@pytest.mark.parametrize("text", STAYS)
def test_ordinary_text_with_nested_entities_stays(text: str) -> None:
    assert redact_text(text) == text


# --- a property: random secrets, escaped one to three times ----------------------------------

_VALUE = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
# (no quote in a secret: some shapes write it between quotes as it is; a `<` in markup is
# escaped once more than the markup, see `CONTENT_ENTITY`)
_SECRET = st.text(alphabet="abcdefXYZ0123456789&<>-./+", min_size=6).map(lambda v: f"s3{v}")
_ESCAPE_KINDS: list[Escape] = [named, decimal, hexadecimal]
_ESCAPES = st.lists(st.sampled_from(_ESCAPE_KINDS), min_size=1, max_size=3)
_SECRET_NAMES = st.sampled_from(["password", "token", "api_key", "DB_PASSWORD", "secretKey"])
_OTHER_NAMES = st.sampled_from(["user", "title", "name", "colour", "DB_HOST"])
_SHAPES: list[Callable[[str, str], str]] = [
    lambda name, value: json.dumps({name: value}),
    lambda name, value: json.dumps({"user": "bob", name: value, "n": 1}),
    lambda name, value: f"<{name}>{xml_escape(value)}</{name}>",
    lambda name, value: f'<{name} id="1">{xml_escape(value)}</{name}>',
    lambda name, value: f'{name}="{value}"',
    lambda name, value: f"{name}='{value}'",
    lambda name, value: f"{name}={value}",
    lambda name, value: f'"{name}": "{value}"',
    lambda name, value: (
        f'<property name="{name}" value="{xml_escape(value, {chr(34): "&quot;"})}"/>'
    ),
]
_AROUND = st.sampled_from(["", "Tom & Jerry ", "<p>", 'x="1" ', "a < b; "])


@st.composite
def _written(
    draw: st.DrawFn, names: st.SearchStrategy[str], values: st.SearchStrategy[str]
) -> tuple[str, str, list[Escape]]:
    """A shape naming a name with a value (spelt as the shape spells it: in XML `&lt;`),
    between other text, escaped one to three times: the text, the value and the escapes."""
    name, value, escapes = draw(names), draw(values), draw(_ESCAPES)
    shape = draw(st.sampled_from(_SHAPES))(name, value)
    return escaped(f"{draw(_AROUND)}{shape} {draw(_AROUND)}", escapes), value, escapes


@settings(max_examples=300, deadline=None)
@given(_written(_SECRET_NAMES, _SECRET))
def test_a_secret_escaped_at_any_depth_never_shows(written: tuple[str, str, list[Escape]]) -> None:
    text, secret, escapes = written
    redacted = redact_text(text)
    for spelt in {secret, xml_escape(secret)}:
        for depth in range(len(escapes) + 1):
            assert escaped(spelt, escapes[:depth]) not in redacted, (text, redacted)


@settings(max_examples=300, deadline=None)
@given(_written(_OTHER_NAMES, _VALUE))
def test_text_without_a_secret_name_stays_at_any_depth(
    written: tuple[str, str, list[Escape]],
) -> None:
    assert redact_text(written[0]) == written[0]


# --- the reading: every position of a text read once maps back ---------------------------------

_PIECES = st.sampled_from(
    [
        *("&amp;", "&amp;amp;", "&#38;", "&#x26;", "&", "amp;", "quot;", "&quot;", "lt;"),
        *("#34;", "#x3c;", "&lt;", "&fjlig;", "&NotEqualTilde;", "&unknown;", ";", "a", " ", "#"),
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=30))
def test_the_reading_maps_each_entity_to_its_spelling(pieces: list[str]) -> None:
    """The text read is, in order, the text between entities as written and each entity as
    its spelling reads alone (`&amp;quot;` is `&quot;`, read again a level further): read
    back whole, the text as written."""
    written = "".join(pieces)
    decoded = _decoded(written)
    if decoded is None:
        return
    assert decoded.spelt(0, len(decoded.text)) == written
    done = done_written = 0
    for start, end, at, to in zip(
        decoded.starts, decoded.ends, decoded.at, decoded.to, strict=True
    ):
        assert decoded.text[done:start] == written[done_written:at]
        alone = _decoded(written[at:to])
        assert alone is not None
        assert alone.text == decoded.text[start:end], written[at:to]
        done, done_written = end, to
    assert decoded.text[done:] == written[done_written:]


# --- an entity of a value's own ------------------------------------------------------------

# Markup escaped once whose value holds an entity of its own (a `<` or a quote in a password,
# `&lt;password&gt;ab&amp;lt;X&lt;/password&gt;`): read once, the value goes whole; read
# twice, that entity is markup (`<password>ab<X</password>`) and ends the value before `X`.
# So every reading is read by the passes, not only the deepest.
CONTENT_ENTITY = [
    f"&lt;password&gt;ab&amp;lt;{X}&lt;/password&gt;",
    f"&lt;property name=&quot;password&quot; value=&quot;ab&amp;quot;{X}&quot;/&gt;",
    f"&lt;input name=&#x27;password&#x27; value=&#x27;ab&amp;#x27;{X}&#x27;&gt;",
    f"&amp;lt;password&amp;gt;ab&amp;amp;lt;{X}&amp;lt;/password&amp;gt;",
]


@pytest.mark.parametrize("text", CONTENT_ENTITY)
def test_a_value_holding_an_entity_of_its_own_is_hidden_whole(text: str) -> None:
    assert X not in redact_text(text)


# --- hostile inputs: linear, whatever the nesting ----------------------------------------------

MB = 1_000_000


@pytest.mark.parametrize(
    "text",
    [
        "&amp;" * 200_000,
        "&amp;amp;amp;" * 80_000,
        "&amp;amp;amp;amp;amp;amp;amp;" * 35_000,  # deeper than is read
        "&amp;" + "amp;" * 250_000,  # one level less at each reading
        "&#38;#38;#38;#38;" * 60_000,
        "&amp;quot;" * 100_000,
        "&amp;lt;password&amp;gt;" * 45_000,
        "&amp;#34;token&amp;#34;: &amp;#34;" * 30_000,
        "password=&amp;quot;x&amp;quot; " * 35_000,
        "password=&amp;quot;" + "x" * MB + "&amp;quot;",
        "{&amp;quot;password&amp;quot;: &amp;quot;" + "x" * MB + "&amp;quot;}",
        "{&amp;amp;quot;password&amp;amp;quot;: &amp;amp;quot;" + "x&amp;amp;" * 100_000,
        "&amp;lt;password&amp;gt;" + "x" * MB,
        "&amp;" + "a" * MB,
    ],
)
def test_hostile_nested_entities_take_linear_time(text: str) -> None:
    assert finished(lambda: redact_text(text)), text[:40]


# --- JSON written again: in the text's own spelling --------------------------------------

# PHP's `json_encode` escapes `/` (`\/`); HTML-escaped once or twice, in a page's attribute.
# Written again as JSON (`\/` read as `/`), the text used to come back half in entities and
# half in raw quotes: a raw `"` opened a string no quote closed, and the rest of the text
# went (a review found it)
_PHP = '{"ajax_url":"https:\\/\\/site.com\\/x","nonce":"abc","api_key":"X1","token":"Y2"}'
_PHP_SHOWN = _PHP.replace('"X1"', f'"{R}"').replace('"Y2"', f'"{R}"')


@pytest.mark.parametrize("escapes", [[named], [decimal], [named, named], [hexadecimal, named]])
def test_json_written_again_keeps_the_spelling_of_the_text(escapes: Sequence[Escape]) -> None:
    assert redact_text(escaped(_PHP, escapes)) == escaped(_PHP_SHOWN, escapes)


def test_json_text_with_escaped_slashes_keeps_them() -> None:
    assert redact_text(_PHP) == _PHP_SHOWN
    mixed = '{"a": "x\\/y/z", "password": "hunter22"}'  # `/` both ways: each kept as it is
    assert redact_text(mixed) == '{"a": "x\\/y/z", "password": "[REDACTED]"}'
