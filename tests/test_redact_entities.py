"""Secrets written with HTML entities (`{&quot;password&quot;: &quot;X&quot;}`,
`&lt;password&gt;X&lt;/password&gt;`, `password&#61;X`): the text is read with its entities
decoded as well as as it is, and what is hidden goes in its own spelling, entities included;
the text around it stays as it was written, and ordinary text with entities stays."""

from __future__ import annotations

import html

import pytest

from tests.hang_guard import finished
from toolrail.core.redact import REDACTED, redact, redact_text

X = "hunter2-s3cr3t"

# each shown with the secret alone replaced
HIDDEN = [
    f"{{&quot;password&quot;: &quot;{X}&quot;}}",
    f"data='{{&quot;user&quot;: &quot;bob&quot;, &quot;token&quot;: &quot;{X}&quot;}}'",
    f"password=&quot;{X}&quot;",
    f"password: &#39;{X}&#39;",
    f"&lt;password&gt;{X}&lt;/password&gt;",
    f"&lt;wsse:Password Type=&quot;t&quot;&gt;{X}&lt;/wsse:Password&gt;",
    f"&#34;token&#34;: &#34;{X}&#34;",
    f"&#x22;token&#x22;: &#x22;{X}&#x22;",
    f"password&#61;{X}",
    f"password&equals;{X} next",
    f"api_key&colon; {X}",
    f"&lt;input name=&quot;password&quot; value=&quot;{X}&quot;&gt;",
    # an entity before it, and two secrets
    f"Tom &amp; Jerry: password=&quot;{X}&quot; &#34;token&#34;: &#34;{X}&#34;",
    f"&NotEqualTilde; password=&quot;{X}&quot; &fjlig;",  # multi-character entities around
    # in a JSON string in text: the string's text is read decoded too
    f'log {{"html": "<p>password=&quot;{X}&quot;</p>"}}',
]
# a value that goes whole: with its own entities, or as the text as it is written hides it
HIDDEN_WHOLE = [
    (f"password=&quot;{X} more&quot; --verbose", f"password=&quot;{REDACTED}&quot; --verbose"),
    (f"password=&quot;{X}&amp;more&quot; done", f"password=&quot;{REDACTED}&quot; done"),
    (f"password=&quot;x&lt;{X}&quot;", f"password=&quot;{REDACTED}&quot;"),
    (f"--password &quot;{X}&quot;", f"--password {REDACTED}"),
    (f'password: "a&quot;{X}"', f'password: "{REDACTED}"'),
]

STAYS = [
    "Tom &amp; Jerry",
    "if a &lt; b &amp;&amp; c &gt; d: print(&quot;password&quot;)",
    "price:&nbsp;10&nbsp;EUR &copy; 2024",
    "&lt;p&gt;Enter your password below.&lt;/p&gt;",
    "the &quot;password&quot; field is required",
    "&lt;label for=&quot;password&quot;&gt;Password&lt;/label&gt;",
    "&#38;&#x26;&unknown; &#; &#x; & ; &amp password=&",
    "https://example.com/login?user=bob&amp;next=/home",
    # a value never starts with a separator: each of these is an empty value
    "https://host/login?password=&user=bob",
    "Server=db;Password=;Database=app;User Id=sa",
    "{password=}, [token=], password=, user=bob",
    f"&#91;{REDACTED}] &lt;{REDACTED}&gt;",
]


@pytest.mark.parametrize(
    ("text", "shown"), [*((text, text.replace(X, REDACTED)) for text in HIDDEN), *HIDDEN_WHOLE]
)
def test_a_secret_written_with_entities_is_hidden_in_its_spelling(text: str, shown: str) -> None:
    """The value goes whole, its entities with it; what is around it stays as written."""
    assert redact_text(text) == shown
    assert X not in str(redact({"page": text}))


@pytest.mark.parametrize("text", STAYS)
def test_ordinary_text_with_entities_stays(text: str) -> None:
    assert redact_text(text) == text


@pytest.mark.parametrize(
    "plain",
    [
        f'{{"password": "{X}"}}',
        f'"token": "{X}", "user": "bob"',
        f"<password>{X}</password>",
        f'<property name="password" value="{X}"/>',
        f"name='DB_PASSWORD' value='{X}'",
        f"password = '{X}'",
    ],
)
def test_a_shape_escaped_as_html_is_hidden(plain: str) -> None:
    """Whatever the escaping spells (`html.escape`, a decimal or a hex reference)."""
    for escaped in (
        html.escape(plain),
        html.escape(plain).replace("&quot;", "&#34;").replace("&#x27;", "&#39;"),
        plain.replace('"', "&#x22;").replace("'", "&#x27;").replace("<", "&#x3c;"),
    ):
        assert X not in redact_text(escaped), escaped
        assert X not in redact_text(f"before &amp; {escaped} after"), escaped


@pytest.mark.parametrize(
    "text",
    [
        "&quot;" * 200_000,
        "password=&quot;" * 80_000,
        "&amp;" * 250_000,
        "&amp;" + "amp;" * 250_000,
        "&#" * 500_000,
        "&#x" + "1" * 1_000_000,
        "&" + "a" * 1_000_000,
        "&lt;password&gt;" * 70_000,
        "&lt;password&gt;" + "x" * 1_000_000,
        "&#34;token&#34;: &#34;" * 50_000,
        "password=&quot;x&quot; " * 50_000,
        '"a\\/b &amp; password=x" ' * 40_000,  # a JSON string written again by the passes
    ],
)
def test_hostile_entities_take_linear_time(text: str) -> None:
    assert finished(lambda: redact_text(text)), text[:40]
