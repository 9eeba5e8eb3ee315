"""A secret flag's value is hidden however the flag is written: a dash a word processor or
a font made of `-` or `--` (`—password x`, `–token x`, `‐‐password x`, a minus sign), an
item of a YAML flow list (`[--password, x]`), or a value on the next line after a line
continuation (a shell's `\\`, PowerShell's `` ` ``, cmd's `^`); in raw text and in JSON text
holding it, which stays JSON. Text and argv data agree."""

from __future__ import annotations

import json

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.test_redact import ALNUM
from toolrail.core.redact import REDACTED, hides_next, redact, redact_text
from toolrail.core.redact.quotes import _ESCAPE_OR_QUOTE, _QuotesBefore

FLAGS = ["password", "db-password", "token", "api-key", "client-secret", "passphrase"]
WRITTEN = st.sampled_from(
    [
        "tool —{flag} {value} —verbose",  # an em dash made of `--`
        "tool –{flag} {value}",  # an en dash
        "tool —{flag}={value}",
        "tool \u2010\u2010{flag} {value}",  # hyphens
        "tool \u2212{flag} {value}",  # a minus sign
        "tool \uff0d\uff0d{flag} {value}",  # full-width
        "tool \u2015{flag} {value}",  # a bar
        "args: [--{flag}, {value}, --verbose]",  # a YAML flow list
        "args: [ -{flag} , {value} ]",
        "args: [--verbose, --{flag}, '{value}']",
        "tool --{flag} \\\n  {value} \\\n  --verbose",  # a shell's line continuation
        "tool --{flag}\\\n{value}",
        "tool --{flag} \\\r\n    {value}",
        "tool --{flag} `\n  {value}",  # PowerShell's
        "tool --{flag} ^\r\n  {value}",  # cmd's
        "tool --{flag}\t{value}",
    ]
)
# "Zq" opens no flag nor any word of the texts around it: a value is never a piece of them
VALUE = st.text(alphabet=ALNUM, min_size=6, max_size=22).map(lambda v: f"Zq{v}")


@given(st.sampled_from(FLAGS), WRITTEN, VALUE)
def test_a_secret_flags_value_is_hidden_however_the_flag_is_written(
    flag: str, written: str, value: str
) -> None:
    text = written.format(flag=flag, value=value)
    assert value not in redact_text(text).replace(REDACTED, ""), text


@given(st.sampled_from(FLAGS), WRITTEN, VALUE, st.booleans())
def test_and_in_json_text_holding_it_which_stays_json(
    flag: str, written: str, value: str, indented: bool
) -> None:
    data = {"command": written.format(flag=flag, value=value), "n": 1}
    text = json.dumps(data, indent=2) if indented else orjson.dumps(data).decode()
    shown = redact_text(text)
    assert value not in shown.replace(REDACTED, ""), text
    assert json.loads(shown)["n"] == 1


@pytest.mark.parametrize(
    "text",
    [
        "see /etc/hosts and /usr/share/doc for details",
        "cd /srv/app && make test",
        "robocopy /mir /r 3 src dst",
        "a range — from one to the other — of values",
        "items: [--verbose, --quiet, --dry-run]",
        "tool --verbose \\\n  --quiet",
        "GET /api/v1/users HTTP/1.1",
        # a secret's name, but no flag with a value: paths, routes, lists of flags
        "POST /token HTTP/1.1",
        "cd /secret && ls",
        "ls /token /tmp",
        "routes: /token, /refresh, /revoke",
        "Options: --password, --token, --verbose",
        "Usage: tool [--password, --user, --host]",
        "[--pass, --user]",
        "the key—password—is kept apart",  # dashes glued to words: punctuation
    ],
)
def test_text_without_a_secret_flag_is_left_alone(text: str) -> None:
    assert redact_text(text) == text


@pytest.mark.parametrize(
    "data",
    [
        {"cwd": "C:\\work\\", "flags": "--token,", "exit": 0},
        {"cwd": "C:\\work\\", "note": "signed with —password ", "exit": 0},
        {"cwd": "C:\\work\\", "note": "signed with --password ", "exit": 0},
        {"cwd": "C:\\work\\", "script": "deploy --password \\\n", "exit": 0},
        ["C:\\", "\u2014password ", "rest"],
    ],
)
def test_an_escaped_backslash_before_a_quote_does_not_open_a_value(data: object) -> None:
    """`\\\\"` is an escaped backslash, then the quote that ends the string: a flag at the
    end of a JSON string takes nothing from the next one, and the JSON stays JSON: read as
    its data when it is JSON whole, and by the passes inside a line of a log."""
    for text in (json.dumps(data), json.dumps(data, ensure_ascii=False)):
        assert json.loads(redact_text(text)) == redact(data)
        logged = redact_text(f"log: {text}")
        assert logged.startswith("log: ")
        if isinstance(data, dict):
            assert json.loads(logged.removeprefix("log: ")) == redact(data)
        else:
            assert json.loads(logged.removeprefix("log: "))[:2] == data[:2]  # type: ignore[index]


@given(
    st.sampled_from(["\u2014", "\u2013", "\u2010\u2010", "\u2212", "--"]),
    st.sampled_from(FLAGS),
    VALUE,
    st.booleans(),
)
def test_argv_data_and_its_json_text_hide_the_same(
    dash: str, flag: str, value: str, ascii_only: bool
) -> None:
    """In argv data a dashed secret flag hides the next item; written out as JSON (ASCII or
    not), so does the text."""
    argv = {"argv": ["tool", f"{dash}{flag}", value, "--verbose"]}
    assert hides_next(f"{dash}{flag}")
    assert value not in orjson.dumps(redact(argv)).decode()
    text = json.dumps(argv, ensure_ascii=ascii_only)
    assert value not in redact_text(text).replace(REDACTED, "")


def test_a_p_switch_is_no_password_flag() -> None:
    """`/p` is findstr's and robocopy's switch; `/password x` is not read as a flag either
    (`/password:x` is an assignment, hidden as one)."""
    assert not hides_next("/p")
    assert "needle" in orjson.dumps(redact({"argv": ["findstr", "/p", "needle"]})).decode()
    assert "hunter22x" not in redact_text("net use /password:hunter22x")


@given(
    st.sampled_from(["\u2014", "\u2013", "\u2212", "-", "--"]),
    st.sampled_from(["run\n", "run\r\n", "run\t", "run ", "(", "[", "x: ", "k="]),
    st.sampled_from(FLAGS),
    VALUE,
    st.booleans(),
)
def test_a_dashed_flag_after_any_separator_hides_in_json_text_as_in_data(
    dash: str, before: str, flag: str, value: str, ascii_only: bool
) -> None:
    """An escaped newline or tab before the flag (`"run\\n—password x"`) sets it apart as a
    raw one does."""
    data = {"cmd": f"{before}{dash}{flag} {value}"}
    assert value not in orjson.dumps(redact(data)).decode()
    text = json.dumps(data, ensure_ascii=ascii_only)
    assert value not in redact_text(text).replace(REDACTED, "")


@pytest.mark.parametrize(
    "argv",
    [
        ["psql", "\u2014password", "hunter22x"],
        ["psql", "\u2013\u2013token", "hunter22x"],
        ["cmd", "--p", "hunter22x"],
        ["cmd", "\u2014p", "hunter22x"],
    ],
)
def test_a_dashed_flag_as_a_json_item_hides_the_next(argv: list[str]) -> None:
    assert "hunter22x" not in orjson.dumps(redact({"argv": argv})).decode()
    for text in (json.dumps(argv), json.dumps(argv, ensure_ascii=False)):
        assert "hunter22x" not in redact_text(text)


@pytest.mark.parametrize(
    "text",
    [
        "Pass the secret with `--password`\nThen run the tests.",  # markdown code spans
        "- `--token`\n- `--verbose`",
        "Use `--api-key` ^ or the env\nvariable",
    ],
)
def test_markdown_is_not_a_line_continuation(text: str) -> None:
    assert redact_text(text) == text
    as_json = json.dumps({"doc": text})
    assert redact_text(as_json) == as_json


def test_a_value_glued_to_a_comma_still_goes() -> None:
    assert "hunter22x" not in redact_text("use --password ,hunter22x here")


@pytest.mark.parametrize(
    "data",
    [
        {"argv": ["cmd", "-\u2014password", "Zqhunter2xyz"]},  # dashes mixed
        {"argv": ["cmd", "---password", "Zqhunter2xyz"]},  # three
        {"c": "x \u00ab\u2014password Zqhunter2xyz"},  # after a character escaped in ASCII
        {"c": "x\f\u2014password Zqhunter2xyz"},
        {"c": "--password\u00a0Zqhunter2xyz"},  # a no-break space, escaped in ASCII
        {"a": json.dumps(["psql", "\u2014password", "Zqhunter2xyz"])},  # JSON in JSON
        {"a": json.dumps({"c": "run --password\tZqhunter2xyz"})},
    ],
)
def test_what_data_hides_json_text_hides_too(data: object) -> None:
    assert "Zqhunter2xyz" not in orjson.dumps(redact(data)).decode()
    for text in (json.dumps(data), json.dumps(data, ensure_ascii=False)):
        shown = redact_text(text)
        assert "Zqhunter2xyz" not in shown, text
        assert json.loads(shown) is not None


@pytest.mark.parametrize("quote", ['"', "'", '\\"'])
def test_a_quoted_value_after_a_spaced_comma_goes(quote: str) -> None:
    assert "hunter2xyz" not in redact_text(f"--password ,{quote}hunter2xyz{quote}")


@pytest.mark.parametrize(
    "tail", [["--password=", "x"], ["mysql -u root -p", "x"], ["export PASSWORD=", "x"]]
)
@pytest.mark.parametrize("before", [0, 200, 5000])
def test_a_long_json_line_keeps_its_strings_apart(tail: list[str], before: int) -> None:
    """Default `json.dumps` writes one line: which quotes open a string is counted over the
    whole line, not the last 1024 characters of it."""
    data = ["ab"] * before + tail
    text = f"log: {json.dumps(data)}"  # in a log's line: the passes read it as text
    assert json.loads(redact_text(text).removeprefix("log: ")) == data
    assert json.loads(redact_text(json.dumps(data))) == redact(data)  # whole: as its data


@given(
    st.text(alphabet='ab"\\\n', max_size=300),
    st.lists(st.integers(min_value=0, max_value=300), max_size=12),
)
def test_quotes_are_counted_on_their_line_at_every_position_asked(
    text: str, positions: list[int]
) -> None:
    """`_QuotesBefore` counts as a plain reading of each escape does, for positions asked
    in order (each stretch read once) and out of order."""
    counts = _QuotesBefore(text, '"')
    for at in sorted(min(p, len(text)) for p in positions) + positions[:3]:
        at = min(at, len(text))
        line_start = text.rfind("\n", 0, at) + 1
        if at - line_start > 1024:
            continue  # out of order, only the last 1024 characters are read
        expected = _ESCAPE_OR_QUOTE['"'].findall(text, line_start, at).count('"')
        assert counts(at) == expected


@pytest.mark.parametrize(
    "value", ["\u2212api-key\t: Zqhunter2xyz", "-token Zqhunter2xyz", "--secret: Zqhunter2xyz"]
)
def test_a_value_that_opens_like_a_flag_but_is_no_word_goes(value: str) -> None:
    """A flag is one word (`--token`); an item with spaces after its dashes is a value,
    in argv data and as a JSON item alike."""
    argv = ["tool", "--password", value]
    assert "Zqhunter2xyz" not in orjson.dumps(redact(argv)).decode()
    for text in (json.dumps(argv), json.dumps(argv, ensure_ascii=False)):
        assert "Zqhunter2xyz" not in redact_text(text)


def test_a_list_cut_off_in_json_in_a_json_string_ends_with_that_string() -> None:
    """JSON text held in a JSON string, a flag's value a list that string cuts off: the
    value ends where the string does, so the text around it stays JSON."""
    inner = '["psql", "--password", ["Zqhunter2xyz", "more'  # cut off by max_tokens
    text = json.dumps({"arguments": inner, "n": 1})
    shown = redact_text(text)
    assert "Zqhunter2xyz" not in shown
    assert json.loads(shown)["n"] == 1


@pytest.mark.parametrize("flag", ["--password ", "--password:", "--password,", "--password\n"])
def test_a_flag_item_not_quite_a_word_still_hides_the_next(flag: str) -> None:
    """Whether an item starts hiding is read loosely (as before this was tightened): only
    whether it is a flag of its own, after another, asks for one word."""
    shown = orjson.dumps(redact({"argv": ["tool", flag, "Zqhunter2xyz"]})).decode()
    assert "Zqhunter2xyz" not in shown


def test_an_escaped_backslash_at_the_end_of_a_cut_off_list_ends_no_string() -> None:
    text = json.dumps({"p": '{"passwords": ["abc\\', "q": "x"})
    assert json.loads(redact_text(text))["q"] == "x"


@pytest.mark.parametrize("run", [62, 64, 200])
def test_a_long_run_of_backslashes_does_not_lose_count_of_the_line(run: int) -> None:
    """After a run of backslashes of any length, quotes are still counted over the whole
    line: one-line JSON stays JSON, and an assignment in text is still hidden."""
    data = ["run", "\\" * (run // 2) + "--password=", "y", "p" * 1100, "--password=", "z"]
    assert json.loads(redact_text(json.dumps(data))) == data
    line = "\\" * run + 'PASSWORD=":a" "' + "p" * 1100 + '" PASSWORD=":Zqhunter2xyz"'
    assert "Zqhunter2xyz" not in redact_text(line)


@pytest.mark.parametrize(
    "text", ["args: [--password, ]", "args: [--password,]", "args: [--verbose, --password, ] x"]
)
def test_a_flow_list_ending_after_a_secret_flag_keeps_its_bracket(text: str) -> None:
    """No value follows the flag: the list's `]` is not taken for one."""
    assert redact_text(text) == text


# --- a value that looks like a flag (stop 35) ------------------------------------------------

_DASHED_VALUES = ["-Secret4Zq9", "—tokenZq9x", "--apiKeyZq9", "-Secret4Zq9!", "–passwordZq9"]


@pytest.mark.parametrize("value", _DASHED_VALUES)
@pytest.mark.parametrize(
    "after", ["", " ", "\n", " | tee log", " 2>&1", " 2>/dev/null", " \\\n  -v"]
)
def test_a_value_that_looks_like_a_secret_flag_is_still_the_value(value: str, after: str) -> None:
    """After a flag that hides its value, a word that looks like a flag hiding its own value
    (`--token —tokenX`, `--password -Secret4!`) is taken for a flag of its own only when a
    value of its own follows it; else it is the first flag's value, and goes."""
    for shown in (
        redact_text(f"app --password {value}{after}"),
        redact_text(json.dumps(["app", "--password", value]) + after),
        redact_text("x " + json.dumps(["app", "--password", value, "-v"])),  # text around it
        redact_text(json.dumps(["app", "--password", value, "--host", "db"])[:-8]),  # cut off
        orjson.dumps(redact(["app", "--password", value])).decode(),
        orjson.dumps(redact({"argv": ["app", "--token", value]})).decode(),
    ):
        assert "Zq9" not in shown, shown


@pytest.mark.parametrize(
    ("argv", "hidden"),
    [
        (["app", "--token", "--password", "Zqpw1"], "Zqpw1"),
        (["app", "--token", "—password", "Zqpw1", "--host", "db"], "Zqpw1"),
        (["app", "--no-auth-warning", "--pass", "Zqpw1"], "Zqpw1"),
        (["app", "--token", "--password", "-Zqpw1"], "Zqpw1"),  # a value with a dash
        (["app", "--token", "--password", "-SecretZqpw1"], "Zqpw1"),
    ],
)
def test_a_secret_flag_after_another_still_hides_its_own_value(
    argv: list[str], hidden: str
) -> None:
    for shown in (
        redact_text(" ".join(argv)),
        redact_text(json.dumps(argv)),
        orjson.dumps(redact(argv)).decode(),
    ):
        assert hidden not in shown, shown
        assert "db" in shown or "db" not in argv
