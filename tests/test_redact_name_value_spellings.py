"""A secret set by a command's flags (`aws ssm put-parameter --name /prod/db/password
--value X`) in each spelling a command is written in: over continued lines (a shell's `\\`,
PowerShell's `` ` ``, cmd's `^`), as argv data with a value glued (`--value=X`), as a list
written out (a Python repr, JSON text, whole or cut off); `-n` names no entry (elsewhere it
is a namespace or a count: an earlier `kubectl -n prod` must not take the entry's name); and
a flag after a word that merely ends in a secret's name (`create-secret --name`), which is
no value of it."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.hang_guard import finished
from toolrail.core.redact import REDACTED, redact, redact_text, redacts_nothing

X = "hunter2secret"
R = REDACTED
NAME = "/prod/db/password"

# --- 1. over continued lines ------------------------------------------------------------------

CONTINUATIONS = [" \\\n  ", " \\\r\n  ", " \\\n", " `\n  ", " `\r\n    ", " ^\n  ", "\t\\\n\t"]


def _continued(continuation: str, *groups: str) -> str:
    return continuation.join(("aws ssm put-parameter", *groups))


CONTINUED = [
    _continued(c, *groups)
    for c in CONTINUATIONS
    for groups in (
        (f"--name {NAME}", f"--value {X}", "--type SecureString"),
        (f"--value {X}", f"--name {NAME}", "--type SecureString"),
        (f"--type SecureString --value {X}", "--overwrite", f"--name {NAME}"),
        (f"--name {NAME}", f"--value={X}"),
        (f"--name={NAME}", f"--value={X}", "--type SecureString"),
        (f"--value {X}{c.rstrip()}", f"--name {NAME}"),  # the continuation glued to it
    )
]
# the continuation between a flag and its value
CONTINUED += [
    f"aws ssm put-parameter --name{c}{NAME}{c}--value{c}{X} --type SecureString"
    for c in CONTINUATIONS
]


@pytest.mark.parametrize("text", CONTINUED)
def test_a_secret_set_by_flags_over_continued_lines_is_hidden(text: str) -> None:
    shown = redact_text(text)
    assert X not in shown
    assert shown == text.replace(X, R)


def test_the_reported_continued_command_is_hidden_as_shown() -> None:
    text = (
        "aws ssm put-parameter \\\n  --name /prod/db/password \\\n  --value hunter2secret \\\n"
        "  --type SecureString"
    )
    assert redact_text(text) == (
        "aws ssm put-parameter \\\n  --name /prod/db/password \\\n  --value [REDACTED] \\\n"
        "  --type SecureString"
    )


CONTINUED_STAYS = [
    *(_continued(c, "--name region", "--value eu-west-1") for c in CONTINUATIONS),
    "tool --name password\ntool --value 42",  # two commands
    "tool --name password `\n\ntool --value 42",  # an empty line ends the command
    "tool --name password`\ntool --value 42",  # markdown's code span, no continuation
    "see C:\\Users\\me\\\n--value 42 --name x",
    "a line ending in a backslash \\\nand another \\\n",
    "tool --name password \\\n  ; tool --value 42",
]


@pytest.mark.parametrize("text", CONTINUED_STAYS)
def test_what_no_continued_entry_names_as_a_secret_stays(text: str) -> None:
    assert redact_text(text) == text


# --- 2. argv data, a value glued to its flag ----------------------------------------------

SSM = ["aws", "ssm", "put-parameter"]
AZ = ["az", "keyvault", "secret", "set", "--vault-name", "v"]
DATA = [
    ([*SSM, "--name", NAME, f"--value={X}"], [*SSM, "--name", NAME, f"--value={R}"]),
    ([*SSM, f"--name={NAME}", f"--value={X}"], [*SSM, f"--name={NAME}", f"--value={R}"]),
    ([*SSM, f"--name={NAME}", "--value", X], [*SSM, f"--name={NAME}", "--value", R]),
    ([*SSM, f"--value={X}", "--type", "x", f"--name={NAME}"], None),
    ([*AZ, "-n", "DbPassword", "--value", X], [*AZ, "-n", "DbPassword", "--value", R]),
    ([*AZ, "-n", "DbPassword", f"--value={X}"], [*AZ, "-n", "DbPassword", f"--value={R}"]),
    ([*AZ, "--value", X, "-n", "DbPassword"], [*AZ, "--value", R, "-n", "DbPassword"]),
    ([*AZ, "-n=DbPassword", "--value", X], None),
    ([*SSM, "--name", NAME, "--value", X], [*SSM, "--name", NAME, "--value", R]),
]


@pytest.mark.parametrize(("argv", "shown"), DATA)
def test_a_secret_set_by_flags_in_argv_data_is_hidden(
    argv: list[str], shown: list[str] | None
) -> None:
    redacted = redact(argv)
    assert isinstance(redacted, list)
    assert not any(X in str(item) for item in redacted)
    if shown is not None:
        assert redacted == shown
    assert not redacts_nothing(argv)  # (it says what `redact` does)
    assert redact({"argv": argv}) == {"argv": redacted}
    assert redact_text(" ".join(argv)) == " ".join(str(item) for item in redacted)


DATA_STAYS = [
    [*SSM, "--name=region", "--value=eu-west-1"],
    [*SSM, "--name", "region", "--value", "eu-west-1"],
    ["head", "-n", "5", "--value=x"],
    ["tool", "-n", "password"],  # no value
    ["tool", "--name=password"],
    ["tool", "--value=x", "--named=password"],
]


@pytest.mark.parametrize("argv", DATA_STAYS)
def test_argv_data_naming_no_secret_stays(argv: list[str]) -> None:
    assert redact(argv) == argv


# --- 3. an argv written out: a Python repr, JSON text, whole or cut off ----------------------

ARGVS = [
    [*SSM, "--name", NAME, "--value", X],
    [*SSM, "--value", X, "--name", NAME, "--type", "SecureString"],
    [*SSM, "-n", "ns", "--name", NAME, "--value", X, "--tags", "a=b"],
    [*SSM, "--name", NAME, f"--value={X}", "--overwrite"],
    [*SSM, f"--name={NAME}", "--value", X],
]


def _written(argv: list[str]) -> list[str]:
    return [
        str(argv),
        json.dumps(argv),
        json.dumps(argv, indent=2),
        json.dumps(json.dumps(argv))[1:-1],  # JSON text held in a JSON string
        f"running {argv}",
        f"argv={json.dumps(argv)} exit=0",
    ]


WRITTEN = [text for argv in ARGVS for text in _written(argv)]


@pytest.mark.parametrize("text", WRITTEN)
def test_an_argv_written_out_hides_the_value(text: str) -> None:
    assert redact_text(text) == text.replace(X, R)


@pytest.mark.parametrize("text", WRITTEN)
def test_an_argv_written_out_and_cut_off_hides_what_is_left_of_the_value(text: str) -> None:
    """A preview cut in the middle of the value (what is left of it goes, its opening quote
    stays), or anywhere after it, once it holds the name (a value before its name, cut off
    before it, says nothing of what it is)."""
    start = text.index(X)
    name = NAME
    for cut in range(max(start + 1, text.index(name) + len(name)), len(text) + 1):
        preview = text[:cut]
        expected = text[:start] + R if cut <= start + len(X) else preview.replace(X, R)
        assert redact_text(preview) == expected, preview


def test_the_reported_written_argvs_are_hidden() -> None:
    argv = [*SSM, "--name", NAME, "--value", X]
    assert redact_text(str(argv)) == str([*SSM, "--name", NAME, "--value", R])
    assert redact_text(json.dumps(argv)) == json.dumps([*SSM, "--name", NAME, "--value", R])
    assert redact_text(json.dumps(argv)[:-8]) == json.dumps(argv)[: -len(X) - 2] + R


WRITTEN_STAYS = [
    *_written([*SSM, "--name", "region", "--value", "eu-west-1"]),
    _written([*SSM, "--name", "region", "--value", "eu-west-1"])[0][:-10],
    str(["tool", "--name", "password"]) + " " + str(["tool", "--value", "42"]),  # two lists
    str(["--name", "password"]) + "\n" + str(["--value", "42"]),
    str(["--name=/prod/db/password/"]) + " " + str(["--value", "42"]),
    json.dumps(["--name=password"]) + ", " + json.dumps({"--value": "42"}),
]


@pytest.mark.parametrize("text", WRITTEN_STAYS)
def test_a_written_argv_naming_no_secret_stays(text: str) -> None:
    assert redact_text(text) == text


# --- 4. az keyvault's `-n`: what the command stores (`secret_commands`) --------------------

SHORT = [
    (
        f"az keyvault secret set --vault-name v -n DbPassword --value {X}",
        f"az keyvault secret set --vault-name v -n DbPassword --value {R}",
    ),
    (
        f"az keyvault secret set --vault-name v --value {X} -n DbPassword",
        f"az keyvault secret set --vault-name v --value {R} -n DbPassword",
    ),
    (f"az keyvault secret set -n=DbPassword --value={X}", None),
    (f"az keyvault secret set \\\n  -n DbPassword \\\n  --value '{X}'", None),
    (f"az keyvault secret set `\n  --value {X} `\n  -n DbPassword", None),
]


@pytest.mark.parametrize(("text", "shown"), SHORT)
def test_what_az_keyvault_stores_is_hidden_whatever_names_it(text: str, shown: str | None) -> None:
    redacted = redact_text(text)
    assert X not in redacted
    assert "DbPassword" in redacted
    if shown is not None:
        assert redacted == shown


SHORT_STAYS = [
    "az webapp config set -g rg -n DbHost --value localhost",
    "head -n 5 --value x",
    "echo -n password",
    "kubectl -n password-store get pods",
    "use -n to name it and --value to set it",
    "tool-n password --value 42",  # no flag: glued to a word
    "tool --n password --value 42",  # `-n` only with one dash
]


@pytest.mark.parametrize("text", SHORT_STAYS)
def test_a_short_flag_naming_no_secret_stays(text: str) -> None:
    assert redact_text(text) == text


# an earlier `-n` (a namespace, a resource group's name) takes no entry's place: the value
# before `--name` stays the entry's (a review found these shown once `-n` named entries)
EARLIER_SHORT = [
    f"az group create -n rg1 -l westeurope && aws ssm put-parameter --value {X} --name {NAME}",
    f"kubectl -n prod exec deploy/toolbox -- aws ssm put-parameter --value {X} --name {NAME}",
    f"kubectl -n tools rollout status app && aws ssm put-parameter --value {X} --name {NAME}",
    str(["kubectl", "-n", "prod", "exec", "x", "--", *SSM, "--value", X, "--name", NAME]),
]


@pytest.mark.parametrize("text", EARLIER_SHORT)
def test_an_earlier_short_flag_leaves_the_entry_whole(text: str) -> None:
    assert redact_text(text) == text.replace(X, R)


# and `-n` before a word that sounds secret names no entry: a later `value=` is no secret
SHORT_NAMES_NOTHING = [
    'grep -n token app.log | sed "s/value=.*//"',
    "kubectl -n secrets create configmap cfg --from-literal=value=42",
    "helm upgrade app chart -n secrets --set-string value=3",
]


@pytest.mark.parametrize("text", SHORT_NAMES_NOTHING)
def test_a_short_flag_before_a_secret_sounding_word_names_no_entry(text: str) -> None:
    assert redact_text(text) == text
    assert redact(["kubectl", "-n", "external-secrets", "get", "es", "--value=3"]) == [
        "kubectl",
        "-n",
        "external-secrets",
        "get",
        "es",
        "--value=3",
    ]


# --- 5. a flag after a word ending in a secret's name is no value of it ------------------------

FLAG_AFTER_A_WORD = [
    (
        "aws secretsmanager create-secret --name prod --secret-string X",
        "aws secretsmanager create-secret --name prod --secret-string [REDACTED]",
    ),
    ("aws secretsmanager create-secret --name prod", None),
    ("kubectl create-secret -o yaml", None),
    ("gcloud secrets versions access-token —verbose", None),
    ("x-password -Secret4", None),
]


@pytest.mark.parametrize(("text", "shown"), FLAG_AFTER_A_WORD)
def test_a_flag_after_a_word_that_is_no_flag_is_no_value(text: str, shown: str | None) -> None:
    assert redact_text(text) == (text if shown is None else shown)


FLAGS_KEEP_HIDING = [
    ("tool --secret hunter2x", f"tool --secret {R}"),
    ("tool --password=hunter2x", f"tool --password={R}"),
    ("tool --password -Secret4!", f"tool --password {R}"),
    ("tool --password -Secret4! --host h", f"tool --password {R} --host h"),
    (str(["psql", "-p", "hunter2x"]), str(["psql", "-p", R])),
    ("mysql -phunter2x", f"mysql -p{R}"),
]


@pytest.mark.parametrize(("text", "shown"), FLAGS_KEEP_HIDING)
def test_a_secret_flags_value_stays_hidden(text: str, shown: str) -> None:
    assert redact_text(text) == shown


def test_a_short_secret_flag_in_data_stays_hidden() -> None:
    assert redact(["psql", "-p", "hunter2x"]) == ["psql", "-p", R]


# --- properties -----------------------------------------------------------------------------

SECRET = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=6, max_size=24).map(
    lambda v: f"zq{v}"
)
SECRET_NAMES = st.sampled_from(["/prod/db/password", "DbPassword", "API_TOKEN", "app.secret"])
PLAIN_NAMES = st.sampled_from(["/prod/db/host", "region", "LOG_LEVEL", "app.port"])
OTHERS = st.lists(
    st.sampled_from([("--type", "SecureString"), ("--region", "eu-west-1"), ("--overwrite",)]),
    max_size=3,
)
SPELLINGS = st.sampled_from(
    ["line", " \\\n  ", " `\n  ", " ^\r\n ", "data", "repr", "json", "repr cut", "json cut"]
)


@dataclasses.dataclass(frozen=True)
class _Spelt:
    """An entry set by flags in one spelling: the text or the argv, its name and value,
    what it holds of the value, and the other flags."""

    spelt: str | list[str]
    name: str
    value: str
    held: str
    others: list[tuple[str, ...]]

    def shown(self) -> str | list[object]:
        if isinstance(self.spelt, list):
            shown = redact(self.spelt)
            assert isinstance(shown, list)
            return shown
        return redact_text(self.spelt)


@st.composite
def _spelt(draw: st.DrawFn, names: st.SearchStrategy[str]) -> _Spelt:
    """`--name` and `--value` among other flags, either first, each value glued to its
    flag or not, in one of `SPELLINGS`; a preview may be cut into the value, once it holds
    the name (a value before it, cut off before its name, names nothing)."""
    name_flag, name, value = "--name", draw(names), draw(SECRET)
    glued, others, spelling = draw(st.booleans()), draw(OTHERS), draw(SPELLINGS)
    entry = [
        (f"{name_flag}={name}",) if glued else (name_flag, name),
        (f"--value={value}",) if glued else ("--value", value),
    ]
    if draw(st.booleans()):
        entry.reverse()
    groups = [*others[:1], entry[0], *others[1:2], entry[1], *others[2:]]
    argv = [*SSM, *(item for group in groups for item in group)]
    if spelling == "data":
        return _Spelt(argv, name, value, value, others)
    if spelling == "line":
        return _Spelt(" ".join(argv), name, value, value, others)
    if spelling not in ("repr", "json", "repr cut", "json cut"):  # a continuation
        text = spelling.join(" ".join(group) for group in [tuple(SSM), *groups])
        return _Spelt(text, name, value, value, others)
    text = str(argv) if spelling.startswith("repr") else json.dumps(argv)
    if not spelling.endswith("cut"):
        return _Spelt(text, name, value, value, others)
    value_at = text.index(value)
    cut = max(value_at + draw(st.integers(min_value=2, max_value=40)), text.index(name) + len(name))
    return _Spelt(text[:cut], name, value, value[: cut - value_at], others)


@given(_spelt(SECRET_NAMES))
def test_a_secret_in_any_spelling_never_shows_and_the_rest_stays(entry: _Spelt) -> None:
    shown = str(entry.shown())
    assert entry.held not in shown, entry.spelt
    assert entry.name in shown  # the name stays
    for group in entry.others:  # and the other flags (those before a cut)
        for item in group:
            if item in str(entry.spelt):
                assert item in shown


@given(_spelt(PLAIN_NAMES))
def test_an_entry_naming_no_secret_stays_in_any_spelling(entry: _Spelt) -> None:
    assert entry.shown() == entry.spelt


# --- what stays linear ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "--name password \\\n" * 60_000,
        "\\\n" * 500_000,
        " `\n" * 300_000 + "--name password --value x",
        " ^\r\n" * 200_000,
        "--name password \\\n  --value " + "x" * 1_000_000,
        "--value " + "x" * 1_000_000 + " \\\n --name password",
        "--name x --value " * 60_000,
        "--name password --value " * 40_000,
        "--name \\\n " * 100_000,
        "-n password --value \\\n" * 40_000,
        "-n " * 300_000,
        "-n " * 300_000 + " value=password",
        "--name=" * 150_000 + " value=password",  # (each name read to the text's end, once)
        "'--name=" * 150_000 + " value password",
        "'--name', 'password', " * 40_000,
        "'--value', 'x', " * 60_000 + "'--name', 'password'",
        "['--name', 'password', '--value', '" + "x" * 1_000_000,
        '["--name", "password", "--value", "' + "x" * 1_000_000,
        '\\"--name\\", \\"password\\", \\"--value\\", \\"' + "x" * 1_000_000,
        "['--value', " * 80_000,
        "create-secret --x " * 60_000,
        "create-secret " + "-" * 1_000_000,
    ],
)
def test_hostile_spellings_take_linear_time(text: str) -> None:
    assert finished(lambda: redact_text(text)), text[:40]


@pytest.mark.parametrize(
    "argv",
    [
        ["--name", "password", "--value"] * 100_000,
        ["--name=password", "--value=x"] * 100_000,
        ["-n", "password", "--value=" + "x" * 1_000_000],
        ["--value=x"] * 200_000 + ["-n", "password"],
    ],
)
def test_hostile_argv_data_takes_linear_time(argv: list[str]) -> None:
    assert finished(lambda: redact(argv))
