"""An argv written in text as a list of quoted items (JSON after a log's prefix, a Python
repr, a call's argument), or a program given apart from its list of arguments (a repr's
mapping, a call's keywords, JSON cut off), hides what `redact` hides in the same data. Only
a store's (`gh secret set`) did: `mysql -pX`, `sshpass -p X` and `curl -u me:X` leaked."""

from __future__ import annotations

import json
from functools import partial

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hang_guard import finished
from toolrail.core.redact import redact, redact_text

X = "Hunter2secretvalue"

LEAKED = [
    # a list after a prefix: JSON, a repr, a call's argument
    'log ["mysql", "-uroot", "-p%s"]',
    "log ['mysql', '-uroot', '-p%s']",
    "subprocess.run(['mysql', '-h', 'db', '-p%s'], check=True)",
    'args=["mariadb", "-p%s"]',
    "['/usr/bin/mysql', '-p%s']",
    # a program apart from its arguments
    "spawn {'command': 'mysql', 'args': ['-uroot', '-p%s']}",
    "spawn {'command': 'mysql', 'env': {}, 'args': ['-uroot', '-p%s']}",
    "spawn {'args': ['-uroot', '-p%s'], 'command': 'mysql'}",
    "spawn {'command': 'mysql', 'cwd': None, 'args': ['-p%s'], 'env': None}",
    "StdioServerParameters(command='mysql', args=['-p%s'], env=None)",
    "StdioServerParameters(command='mysql', env=None, args=['-p%s'])",
    "command='mysql' args=['-uroot', '-p%s'] env=None cwd=None",
    'INFO {"command": "mysql", "args": ["-uroot", "-p%s"',
    'command: mysql\nargs: ["-uroot", "-p%s"]\n',
    "{'cmd': 'mysql', 'argv': ['-p%s']}",
    "{'program': 'sshpass', 'args': ['-p', '%s', 'ssh', 'db']}",
    # a review's: the program chosen as `redact` chooses it (`command` before `file`), a
    # key in a string is none, a key's bare value no key; cut off before a line's end; a
    # comment between items; a number first
    "{'command': 'mysql', 'file': 'dump.sql', 'args': ['-p%s']}",
    "{'command': 'mysql', 'description': 'see file: x', 'args': ['-p%s']}",
    "cmd: command='mysqldump' arguments=['-p%s']",
    '{"command": "mysql", "args": ["-p%s", "-h", "ho\nnext line',
    'args: ["mysql", "-p%s"\n',
    'argv: ["pwsh", "ConvertTo-SecureString", "%s", // c\n "-AsPlainText"]',
    "command='mysql' args=[1, '-p%s']",
    "['--verbose', True, None, '--token', '%s']",
    # a tuple, as a program's arguments
    "{'command': 'mysql', 'args': ('-uroot', '-p%s')}",
    "Command(program='sshpass', args=('-p', '%s', 'ssh', 'db'))",
    "args=('mysql', '-p%s')",
    # a bracket in a prefixed string or a comment is none (a second review's)
    "{'command': 'mysql', 'stdin': b'data (', 'args': ['-p%s']}",
    '{"command": "mysql", // see (docs\n "args": ["-u", "-p%s"]',
    "{'command': 'mysql',  # a comment (\n 'args': ['-p%s']}",
]


@pytest.mark.parametrize("text", LEAKED)
def test_a_listed_argv_hides_its_secret(text: str) -> None:
    shown = redact_text(text % X)
    assert X not in shown, shown
    assert shown == text % "[REDACTED]"


@pytest.mark.parametrize(
    "text",
    [
        "{'command': 'mysql'}, {'args': ['-p%s']}",  # two mappings: no program of its own
        "{'command': 'ls', 'args': ['-p%s']}",  # `-p` glued is mysql's and sshpass's
        "['ls', '-p%s']",
        "run('mysql') and parse(['-p%s'])",
        "{'command': 'run', 'cmd': 'mysql', 'args': ['-p%s']}",  # `redact`: the program is `run`
        "print('mysql', '-p%s')",  # a call's arguments are no argv
        "x = ('mysql', '-p%s')",
        "cargs=('mysql', '-p%s')",
    ],
)
def test_a_list_without_its_program_hides_nothing_of_it(text: str) -> None:
    assert redact_text(text % "abcdefgh1") == text % "abcdefgh1"


def test_only_the_item_is_written_anew() -> None:
    text = "cmd = [ 'mysql' ,\n  '-u' , 'root',  '-p%s' , ]  # local"
    assert redact_text(text % X) == text % "[REDACTED]"


def test_an_item_with_escapes_is_read_as_its_string_and_written_in_its_quotes() -> None:
    assert redact_text(f"['mysql', '-p\\'{X}']") == "['mysql', '-p[REDACTED]']"
    assert redact_text(f'["mysql", "-p\\u0041{X}"]') == '["mysql", "-p[REDACTED]"]'


_PROGRAMS = st.sampled_from(["mysql", "sshpass", "curl", "gh", "docker", "ls", "/usr/bin/mysql"])
_ARGUMENTS = st.lists(
    st.sampled_from(
        ["-uroot", f"-p{X}", "-p", X, "-u", f"me:{X}", "secret", "set", "N", "--body", "db"]
    ),
    max_size=6,
)


@settings(max_examples=150)
@given(_PROGRAMS, _ARGUMENTS, st.sampled_from(["json", "repr", "apart-repr", "apart-json"]))
def test_text_hides_what_the_data_hides(program: str, arguments: list[str], form: str) -> None:
    """Whatever the argv, the list written in text shows the items `redact` shows in the
    list itself: text and data agree."""
    argv = [program, *arguments]
    data: object
    if form == "json":
        text, data = "run " + json.dumps(argv), argv
    elif form == "repr":
        text, data = f"run {argv!r}", argv
    else:
        spawned = {"command": program, "env": {}, "args": arguments}
        dump = json.dumps if form == "apart-json" else repr
        text, data = f"spawn {dump(spawned)}", spawned
    if X not in str(redact(data)):
        assert X not in redact_text(text)


def test_a_number_of_any_length_is_an_item() -> None:
    """A 4,301-digit integer made `int()` raise (Python's limit): numbers are read as none."""
    long = "1" * 5000
    assert redact_text(f"['--password', {long}]") == "['--password', '[REDACTED]']"
    assert redact_text(f'{{"command": "mysql", "args": ["-p{X}", {long}]}}').count(X) == 0


def test_many_lists_take_linear_time() -> None:
    listed = "['mysql', 'db', " * 50_000 + "'args': ['-pX1'] " * 20_000
    assert finished(partial(redact_text, listed))
    assert finished(partial(redact_text, "{'command': 'mysql', " * 30_000 + "'args': ['-p1']"))
    nested = "password " + ("cmd=a " + "(" * 40 + " args=['-pX'] ") * 15_000  # (a review's)
    assert finished(partial(redact_text, nested))
