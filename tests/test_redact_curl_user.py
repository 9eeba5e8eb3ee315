"""`curl -u user:password`: the argument after the flag is read as the shell reads a word
(quoted parts, `$'...'`, escapes, parts glued together), and everything after its first
colon, which curl splits it at, is hidden: a password with spaces in quotes, a user that is
empty or long, a flag written with a word processor's dash."""

from __future__ import annotations

import itertools
import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolrail.core.redact import REDACTED, redact, redact_text

_COUNTER = itertools.count()


def _marker(_: object = None) -> str:
    return f"Zq{next(_COUNTER)}Xv"


def _markers(text: str) -> set[str]:
    return set(re.findall(r"Zq\d+Xv", text))


# each showed some of the secret on the commit before it was added
SPELLINGS = {
    "a quoted password with a space": ('curl -u "me:Zq1Xv Zq2Xv" https://x', '"me:'),
    "single-quoted with a space": ("curl -u 'me:Zq1Xv Zq2Xv' https://x", "'me:"),
    "an empty user": ('curl -u ":Zq1Xv Zq2Xv" https://x', '-u ":'),
    "an empty user, bare": ("curl -u :Zq1Xv https://x", "-u :"),
    "ANSI-C quoting": ("curl -u $'me:Zq1Xv Zq2Xv' https://x", "$'me:"),
    "quoted parts glued": ('curl -u "me":"Zq1Xv Zq2Xv" https://x', '"me":'),
    "a quoted password after a bare user": ('curl -u me:"Zq1Xv Zq2Xv" https://x', "me:"),
    "an escaped quote": ('curl -u "me:Zq1Xv\\"Zq2Xv" https://x', '"me:'),
    "an escaped space": ("curl -u me:Zq1Xv\\ Zq2Xv https://x", "me:"),
    "an em dash": ("curl —user me:Zq1Xv https://x", "me:"),
    "an en dash, short": ("curl –u me:Zq1Xv https://x", "me:"),
    "an em dash with =": ('curl —user="me:Zq1Xv Zq2Xv" https://x', '"me:'),
    "a long user": ("curl -u " + "a" * 300 + ":Zq1Xv https://x", "a" * 300 + ":"),
    "--user= quoted": ('curl --user="me:Zq1Xv Zq2Xv" https://x', '"me:'),
    "a list item with a space": ('["curl", "-u", "me:Zq1Xv Zq2Xv", "https://x"', '"me:'),
    "a cut-off quote": ('curl -u "me:Zq1Xv Zq2Xv', '"me:'),
    # (an odd `'` before the flag may be an apostrophe: the rest of the word goes too)
    "in a shell's -c": ("bash -c 'curl -u me:Zq1Xv' && echo done", "bash -c 'curl -u me:"),
    # found by the review of the commit that read the argument as a shell word
    "shell operators in a bare password": ("curl -u admin:Tr0ub&3Zq1Xv https://api", "admin:"),
    "a pipe": ("curl -u me:a|Zq1Xv", "me:"),
    "an odd quote before": ('curl -d \'size=5"\' -u "admin:Zq1Xv" https://h', '"admin:'),
    "cmd /c": ('cmd /c "curl -u "admin:Zq1Xv" https://h"', '"admin:'),
    "a quote in prose": ('He said "run curl -u "me:Zq1Xv Zq2Xv" now"', '"me:'),
    "a glued item with a space": ('log ["curl", "-u me:a b Zq1Xv"]', '"-u me:'),
    "a glued item, --user=": ('log ["curl", "--user=me:a b Zq1Xv"] x', '"--user=me:'),
    "a glued item, cut off": ('["curl", "-u me:a b Zq1Xv', '"-u me:'),
    "a glued item with a token": ('x ["curl", "-u me:Zq1Xv b sk-' + "a" * 24 + '"]', '"-u me:'),
    "a Python repr item": ("['curl', '-u', 'e:\\'—\"Zq1Xv']", "'e:"),
    "combined short flags": ("curl -fsSLu me:Zq1Xv https://h", "me:"),
    "-su": ("curl -su me:Zq1Xv h", "me:"),
    "many spaces": ("curl -u" + " " * 12 + "me:Zq1Xv h", "me:"),
    "a continued line": ("curl -u \\\n  me:Zq1Xv h", "me:"),
    "a continued line, CRLF": ("curl -u \\\r\n  me:Zq1Xv h", "me:"),
    "a quoted password over a line": ("curl -u 'me:a\nZq1Xv' h", "'me:"),
    # found by the second review (a secret flag glued to what precedes it, too)
    "a flag glued after CJK text": ("请使用--password Zq1Xv 登录", "--password"),
    "after a terminal colour": ("\x1b[33m--password Zq1Xv\x1b[0m", "--password"),
    "after a colour in a JSON document": ('{"out": "\\u001b[36m--password Zq1Xv"}', "--password"),
    "after a colour in JSON text": ('x "\\u001b[36m--password Zq1Xv"', "--password"),
    "a quoted flag glued to its value": ('curl "-u"me:Zq1Xv x', '"-u"me:'),
    "a single-quoted flag glued": ("curl '-u'me:Zq1Xv x", "'-u'me:"),
    "a cut after a backslash": ('curl -u "me:Zq1Xv Zq2Xv\\', '"me:'),
    "a cut after a backslash, bare user": ('curl -u me:"Zq1Xv Zq2Xv\\', "me:"),
    "a long item": ('x ["curl", "-u", "me:' + "a" * 4100 + 'Zq1Xv"] y', '"me:'),
    "-pu": ("curl -pu me:Zq1Xv -x http://proxy x", "me:"),
    "-#u": ("curl -#u me:Zq1Xv x", "me:"),
}


@pytest.mark.parametrize(("text", "kept"), SPELLINGS.values(), ids=list(SPELLINGS))
def test_curl_password_is_hidden_however_the_shell_spells_it(text: str, kept: str) -> None:
    shown = redact_text(text)
    assert not _markers(shown), shown
    assert kept in shown, shown  # the user stays
    assert ("https://x" in shown) == ("https://x" in text), shown  # and what follows the word


def test_a_quoted_password_is_closed_again() -> None:
    assert redact_text('curl -u "me:pw with spaces" -s https://x') == (
        f'curl -u "me:{REDACTED}" -s https://x'
    )
    assert redact_text('["curl", "-u", "me:pw with space", "https://x"]x') == (
        f'["curl", "-u", "me:{REDACTED}", "https://x"]x'
    )


def test_a_user_alone_is_shown() -> None:
    """`-u me` makes curl ask for the password: there is none to hide."""
    for text in ("curl -u me https://x", 'curl -u "me" https://x', "curl -U proxyuser x"):
        assert redact_text(text) == text


@pytest.mark.parametrize(
    "argv",
    [
        ["curl", "—user", "me:Zq1Xv"],
        ["curl", "–u", "me:Zq1Xv"],
        ["curl", "‐‐user", "me:Zq1Xv"],
        ["curl", "—user=me:Zq1Xv"],
        ["curl", "—ume:Zq1Xv"],
        ["curl", "-u", ":Zq1Xv Zq2Xv"],
    ],
)
def test_curl_argv_with_other_dashes_hides_the_password(argv: list[str]) -> None:
    shown = redact(argv)
    assert not _markers(json.dumps(shown, ensure_ascii=False)), shown
    assert not _markers(redact_text(json.dumps(argv))), argv
    assert not _markers(redact_text(json.dumps(argv) + " cut")), argv  # not a document


FLAGS = ["-u", "--user", "-U", "--proxy-user", "—user", "–u", "—proxy-user", "‐‐user"]
QUOTINGS = {  # how the shell may write user:password ({u}, {p}): whether {p} is quoted
    '"{u}:{p}"': True,
    "'{u}:{p}'": True,
    "$'{u}:{p}'": True,
    '"{u}":"{p}"': True,
    '{u}:"{p}"': True,
    "{u}:'{p}'": True,
    '"{u}:"{p}': False,
    "{u}\\:{p}": False,
    "{u}:{p}": False,
}


@given(
    st.sampled_from(FLAGS),
    st.sampled_from([" ", "  ", "\t", "="]),
    st.sampled_from(["admin", "", "a.b-c_d", "me@example.com", "x" * 300]),
    st.lists(st.builds(_marker), min_size=1, max_size=3),
    st.sampled_from(list(QUOTINGS)),
    st.sampled_from(["curl -s {a} https://host/x", "run: curl {a}", "curl {a} | jq .", "{a}"]),
)
def test_curl_password_in_any_quoting_is_hidden(
    flag: str, gap: str, user: str, words: list[str], quoting: str, line: str
) -> None:
    password = " ".join(words) if QUOTINGS[quoting] else words[0]  # a space ends a bare word
    argument = quoting.format(u=user, p=password)
    text = line.format(a=f"{flag}{gap}{argument}")
    if "curl" not in text:
        text = "curl " + text
    shown = redact_text(text)
    assert not _markers(shown), (text, shown)
    assert "https://host/x" in shown or "https://host/x" not in text, (text, shown)
    for end in range(text.index(argument), len(text) + 1):  # a preview cut anywhere in it
        assert not _markers(redact_text(text[:end]) + "Xv"), text[:end]


IN_A_STRING = {  # the flag in a "string" (or 'item'): the argument ends where it does
    "a log line's flag item": (
        'log: [[0, ["curl"], "--user"], [{"x2": false}], "curl"] end',
        'log: [[0, ["curl"], "--user"], [{"x2": false}], "curl"] end',
    ),
    "a command in a list item": (
        '["curl -u me:Zq1Xv", "https://x"]',
        f'["curl -u me:{REDACTED}", "https://x"]',
    ),
    "a glued item": ('["curl", "-u me:Zq1Xv", "-s"]', f'["curl", "-u me:{REDACTED}", "-s"]'),
    "a user alone, then a flag with a password": (
        '["curl -u me", "-u", "you:Zq1Xv"] x',
        f'["curl -u me", "-u", "you:{REDACTED}"] x',
    ),
    "an apostrophe before": (
        "don't run curl -u 'me:Zq1Xv Zq2Xv' here",
        f"don't run curl -u 'me:{REDACTED}' here",
    ),
}


@pytest.mark.parametrize(("text", "shown"), IN_A_STRING.values(), ids=list(IN_A_STRING))
def test_an_argument_in_a_string_ends_with_it(text: str, shown: str) -> None:
    assert redact_text(text) == shown


def test_what_looks_like_a_held_string_is_read_as_text() -> None:
    """NUL marks the strings held out of the passes only where the text had none."""
    assert redact_text('curl -u "\x005\x00":Zq1Xv x') == f'curl -u "\x005\x00":{REDACTED} x'
    assert redact_text('curl -u "\x005\x00" x') == 'curl -u "\x005\x00" x'


@pytest.mark.parametrize(
    "argv",
    [
        ["curl", "-ume:Zq1Xv,sk-" + "a" * 24],
        ["curl", "--user=me:Zq1Xv Bearer abcdefghijkl"],
        ["curl", "-u me:a b Zq1Xv sk-" + "a" * 24],
        ["curl", "-u me:a b Zq1Xv"],
        ["sudo", "curl", "-u", "me:Zq1Xv"],
        ["CURL", "-u", "me:Zq1Xv"],
        ["C:\\bin\\curl.exe", "-u", "me:Zq1Xv"],
        ["curl", "-su", "me:Zq1Xv"],
        ["curl", "-fsSLume:Zq1Xv"],
    ],
)
def test_curl_argv_hides_the_password_in_data_and_in_text(argv: list[str]) -> None:
    shown = redact(argv)
    assert isinstance(shown, list)
    assert not _markers(json.dumps(shown, ensure_ascii=False)), shown
    assert any("me:" in str(item) for item in shown), shown  # the user stays
    text = json.dumps(argv)
    for framed in (text, "log " + text, text[:-1]):  # a document, a log line, cut off
        assert not _markers(redact_text(framed)), framed


def test_what_is_not_a_password_stays() -> None:
    assert redact_text("curl --user-agent=a:b h") == "curl --user-agent=a:b h"  # not --user


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("curl https://api.x/v1 -u Zq1Xv: -d a=1", f"curl https://api.x/v1 -u {REDACTED}: -d a=1"),
        ('curl -u "Zq1Xv:" x', f"curl -u {REDACTED}: x"),
        ('["curl", "-u", "Zq1Xv:", "x"]x', f'["curl", "-u", "{REDACTED}:", "x"]x'),
        ('["curl", "-u Zq1Xv:"] x', f'["curl", "-u {REDACTED}:"] x'),
    ],
)
def test_a_key_as_the_user_of_an_empty_password_is_hidden(text: str, shown: str) -> None:
    """`-u KEY:` is how many APIs (Stripe's, Recurly's, Chargebee's) take a key."""
    assert redact_text(text) == shown
    assert redact(["curl", "-u", "Zq1Xv:"]) == ["curl", "-u", f"{REDACTED}:"]
    assert redact(["curl", "-uZq1Xv:"]) == ["curl", f"-u{REDACTED}:"]


def test_a_flag_item_before_other_json_reads_no_value() -> None:
    text = 'log: [["--user",{"name":"x"},"Zq1Xv"],["psql",{"Cookie":"curl"}]] end'
    assert redact_text(text) == text.replace('"curl"', f'"{REDACTED}"')
    assert redact_text("curl '-u' 'me:Zq1Xv Zq2Xv' h") == f"curl '-u' 'me:{REDACTED}' h"


def test_data_and_text_agree_on_a_user_alone() -> None:
    assert redact(["curl", "-u", "me", "x"]) == ["curl", "-u", "me", "x"]
    assert redact(["curl", "-pu", "me:Zq1Xv"]) == ["curl", "-pu", f"me:{REDACTED}"]
    assert redact({"out": "\x1b[36m--password Zq1Xv"}) == {"out": f"\x1b[36m--password {REDACTED}"}
    assert redact(["curl", "--pass", "Zq1Xv"]) == ["curl", "--pass", REDACTED]  # not a user


def test_a_no_break_space_is_part_of_the_password() -> None:
    """The shell splits words at ASCII whitespace only."""
    shown = redact_text("curl -u me:Zq1Xv\u00a0Zq2Xv https://x")
    assert shown == f"curl -u me:{REDACTED} https://x"


# --- the third review ----------------------------------------------------------------------

GLUED_FLAGS = [  # a secret flag glued to what comes before it, or named beyond ASCII
    "app --passwordé Zq1Xv",
    "app --secret-schlüssel Zq1Xv",
    "app --token --passwordé Zq1Xv",
    "app \x1b[38;5;208m--token Zq1Xv x",
    "\r\x1b[K--token Zq1Xv",
    '{"m": "\\u001b[38;5;208m--token Zq1Xv"}',
    "__--token Zq1Xv__",
    "https://x/bin/app--token Zq1Xv",
    "cmd=deploy%20--token Zq1Xv",
    "-----token Zq1Xv",
]


@pytest.mark.parametrize("text", GLUED_FLAGS)
def test_a_secret_flag_hides_its_value_whatever_precedes_it(text: str) -> None:
    assert not _markers(redact_text(text)), redact_text(text)


@pytest.mark.parametrize(
    "argv",
    [
        ["curl", "-u", "--password", "Zq1Xv"],
        ["curl", "-u", "--token", "Zq1Xv", "https://x"],
        ["sudo", "curl", "-u", "-token", "Zq1Xv"],
        ["curl", "-fsSLu", "--api-key", "Zq1Xv"],
    ],
)
def test_a_secret_flag_after_curls_user_flag_hides_its_value(argv: list[str]) -> None:
    assert not _markers(json.dumps(redact(argv))), redact(argv)
    assert not _markers(redact_text(json.dumps(argv)))


@pytest.mark.parametrize(
    "text",
    ['curl -u "Zq1Xv:\\', "curl -u $'Zq1Xv:\\", "curl -u Zq1Xv:$'' x", "curl -u Zq1Xv:\\\n x"],
)
def test_a_key_as_the_user_is_hidden_when_nothing_follows_its_colon(text: str) -> None:
    assert not _markers(redact_text(text)), redact_text(text)
