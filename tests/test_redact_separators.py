"""However a secret name and its value are set apart, the value is hidden: Ruby's `=>`, an
arrow (`->`, `→`), any
Unicode space (a non-breaking one, an ideographic one), full-width `：` and `＝`, columns
aligned far apart, and YAML's block values (`password: |` and the indented lines after it,
or a value on the next line); and a URL's `?key=` parameter, an API key by convention."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.hang_guard import finished
from tests.test_redact import NAME_PREFIXES, PLAIN_VALUES, SECRET_NAME_WORDS, SPELLINGS
from toolrail.core.redact import REDACTED, redact_text

SETTINGS = st.sampled_from(
    [
        '{{"{name}" => "{value}"}}',  # Ruby hash
        ":{name} => '{value}'",
        "{name} => {value}",
        "{name} -> {value}",  # an arrow
        "{name}->{value}",
        "{name} → {value}",
        "{name}\u00a0=\u00a0{value}",  # non-breaking spaces
        "{name}:\u00a0{value}",
        "{name}\u3000：\u3000{value}",  # ideographic space, full-width colon
        "{name}＝{value}",
        "{name}\u202f=\u2009{value}",
        "{name}" + " " * 24 + ": {value}",  # aligned columns
        "{name}\t\t\t\t= {value}",
        "db:\n  {name}: |\n    {value}\n  port: 5432\n",  # YAML block scalar
        "{name}: >-\n  {value}\n  more {value}\nnext: 1",
        "{name}: |+2\n    {value}\n",
        "{name}:\n  {value}\nnext: 1",  # a plain scalar on the next line
        "{name}:\n  user: bob\n  value: {value}\nnext: 1",  # a mapping under the name
    ]
)


@given(NAME_PREFIXES, SECRET_NAME_WORDS, SPELLINGS, SETTINGS, PLAIN_VALUES)
def test_a_secret_value_is_hidden_however_it_is_set_apart(
    prefix: tuple[str, ...], words: tuple[str, ...], spell: object, setting: str, value: str
) -> None:
    name = spell((*prefix, *words))  # type: ignore[operator]
    text = setting.format(name=name, value=value)
    assert value not in redact_text(text), text


def test_what_follows_a_yaml_block_stays() -> None:
    text = "db:\n  password: |\n    hunter22x\n    more\n  port: 5432\nuser: bob\n"
    assert redact_text(text) == f"db:\n  password: {REDACTED}\n  port: 5432\nuser: bob\n"
    text = "password:\n\n  hunter22x\n\nuser: bob"
    assert redact_text(text) == f"password: {REDACTED}\n\nuser: bob"


@pytest.mark.parametrize(
    "text",
    [
        "password -> hunter22x",
        "passwd → hunter22x",
        "login bob password -> hunter22x",
        "machine h login u password => hunter22x",
    ],
)
def test_an_arrow_is_not_taken_for_the_value(text: str) -> None:
    assert "hunter22x" not in redact_text(text)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("password is hunter22x", "password is [REDACTED]"),
        ("  passwd was hunter22x today", "  passwd was [REDACTED] today"),
        ("machine h login u password is hunter22x", "machine h login u password is [REDACTED]"),
        ("password\u00a0is\u3000hunter22x", "password\u00a0is\u3000[REDACTED]"),
        ("password island9x", "password [REDACTED]"),  # a word starting "is" is the value
    ],
)
def test_a_copula_is_not_taken_for_the_value(text: str, shown: str) -> None:
    """`.netrc`'s `password X` read `password is X` as the value "is" and showed X."""
    assert redact_text(text) == shown


@pytest.mark.parametrize(
    "url",
    [
        "https://maps.example.com/api?key=hunter22x",
        "https://maps.example.com/api?q=paris&key=hunter22x&z=3",
        "GET /v1/boards?KEY=hunter22x HTTP/1.1",
        "see https://x.test/a?b=1&amp;key=hunter22x",
    ],
)
def test_a_urls_key_parameter_is_hidden(url: str) -> None:
    shown = redact_text(url)
    assert "hunter22x" not in shown
    assert REDACTED in shown


@pytest.mark.parametrize(
    "text",
    [
        "keyboard layout\u00a0: us",  # not a secret name
        "key=value pairs, monkey=banana",  # `key` outside a URL's query
        "a => b, max_tokens => 500",
        "tokens -> words -> stems",
        "password:\nuser: bob",  # an empty value, then the next entry
        "settings:\n  keyboard: us\n  tokens_used: 12",
        "the password is wrong\u00a0— try again",
    ],
)
def test_ordinary_text_stays(text: str) -> None:
    assert redact_text(text) == text


HOSTILE = {
    "arrows": "password =>" * 40_000,
    "thin arrows": "password ->" * 40_000,
    "unicode spaces": "password" + "\u00a0" * 300_000 + "=",
    "full-width": "password：" * 40_000,
    "block openers": "password: |\n" * 30_000,
    "next-line values": "password:\n  " * 30_000,
    "deep block": "password: |\n" + "  x\n" * 100_000,
    "query keys": "?key=" * 60_000,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_separators_are_redacted_without_a_stall(name: str) -> None:
    assert finished(lambda: redact_text(HOSTILE[name])), f"redacting {name!r} did not finish"


# -- found by a second outside review --


@pytest.mark.parametrize(
    "text",
    [
        "password ： hunter2xy",
        "password\t＝ hunter2xy",
        "password =          hunter2xy",  # aligned far after the separator
        "password:\n- hunter2xy\nuser: bob",  # a list at the key's own indent
        "password: &anchor\n  hunter2xy",
        "password: !!str\n  hunter2xy",
        "https://x.test/a?kEy=hunter2xy",
    ],
)
def test_more_spellings_of_a_secret_value_are_hidden(text: str) -> None:
    assert "hunter2xy" not in redact_text(text), redact_text(text)


def test_a_non_breaking_space_is_not_taken_for_a_quote() -> None:
    assert redact_text("password\u00a0=\u00a0hunter22x") == f"password\u00a0=\u00a0{REDACTED}"


@pytest.mark.parametrize(
    "text",
    [
        "if password:\n    login(user)\n    audit.log('ok')\nprint(1)",
        "class TokenManager:\n    def renew(self) -> None:\n        pass\n",
        "ERROR auth: \n  at com.foo.Login.run(Login.java:42)\n",
        "- password: |\n    x\n- user: bob\n",
    ],
)
def test_code_and_logs_keep_the_lines_below_a_name(text: str) -> None:
    shown = redact_text(text)
    for line in text.splitlines()[1:]:
        if "user" in line or "login" in line or "def renew" in line or "Login.java" in line:
            assert line in shown, shown


@pytest.mark.parametrize(
    "text", ["password: #" * 27_272 + "\n", "a: # password: # " * 17_647 + "\n"]
)
def test_names_inside_a_long_comment_are_read_in_linear_time(text: str) -> None:
    assert finished(lambda: redact_text(text)), "redacting did not finish"


@pytest.mark.parametrize("text", ["password " + "--a" * 3_000_000, "token " + "-x" * 4_500_000])
def test_runs_of_dashes_are_read_in_linear_time(text: str) -> None:
    """A flag's name is read once at each dash (possessive): 9 MB took about 40 s when it
    was read again, one character shorter, at every dash of the run."""
    assert finished(lambda: redact_text(text)), "redacting did not finish"


@pytest.mark.parametrize(
    "text",
    [
        'os.environ["DB_PASSWORD"] = "hunter2X"',
        "os.environ['DB_PASSWORD']='hunter2X'",
        "$_ENV['API_KEY'] = 'hunter2X';",
        'ENV["STRIPE_SECRET_KEY"] = "hunter2X"',
        'process.env["API_TOKEN"]="hunter2X"',
        'if cfg["password"] == "hunter2X":',
        'settings[\\"api_key\\"] = \\"hunter2X\\"',  # in JSON text
    ],
)
def test_a_quoted_subscript_naming_a_secret_is_assigned_a_secret(text: str) -> None:
    """`os.environ["DB_PASSWORD"] = X` in a script a tool ran or an agent wrote (a review
    found it shown: the name's quote, then `]`, kept it from its separator)."""
    assert redact_text(text) == text.replace("hunter2X", "[REDACTED]")


@pytest.mark.parametrize(
    "text",
    [
        'x = os.environ["DB_PASSWORD"]',
        "[password]: https://example.com/reset",  # a markdown link's definition
        'required: ["username", "password"]',
        'fields["password"].widget = forms.PasswordInput()',
    ],
)
def test_a_subscript_read_or_a_link_stays(text: str) -> None:
    assert redact_text(text) == text


def test_a_json_path_in_a_message_is_no_subscript_set() -> None:
    text = "$['password']: unexpected field; remove it"
    assert redact_text(text) == text
