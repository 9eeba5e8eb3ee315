"""Spellings the outside audit found: a dropped word that changes what runs is never
allowed, a command a wrapper runs is always seen, a path is a path under any key."""

from __future__ import annotations

import shlex

from hypothesis import given
from hypothesis import strategies as st

from toolrail.policy.normalise import command
from toolrail.policy.rules import MAYBE, Rule, Rules

ALLOW = Rules.of(allow=["shell(git status*)"])
ALWAYS = Rule.parse("shell(git status*)")
DENY = Rules.of(deny=["shell(rm *)", "read_path(.env)"])

# each changes what `git status` runs, which repository or configuration it reads
CHANGES_WHAT_RUNS = st.sampled_from(
    [
        "git -c core.fsmonitor='touch /tmp/pwn' status",
        "git -c core.pager=evil status",
        "git -ccore.pager=evil status",
        "git --exec-path=/tmp/evil status",
        "git --exec-path /tmp/evil status",
        "git --config-env=core.fsmonitor=X status",
        "git --git-dir=/tmp/other/.git status",
        "git --work-tree=/ status",
        "git -C /tmp/other status",
        "git -p status",
        "git --paginate status",
        "git --namespace=x status",
        "GIT_CONFIG_PARAMETERS=\"'core.fsmonitor'='touch /tmp/pwn'\" git status",
        "GIT_DIR=/tmp/other git status",
        "PAGER='rm -rf /' git status",
        "LD_PRELOAD=/tmp/x.so git status",
        "env PATH=/tmp/evil git status",
        "env GIT_EXEC_PATH=/tmp/x git status",
        "env -C /tmp/other git status",
        "env -S 'git status'",
        "sudo git status",
        "doas git status",
        "su -c 'git status'",
        "xargs git status",
        "time -o /etc/passwd git status",
        "strace -o out git status",
        "./git status",
        "/tmp/evil/git status",
        "~/bin/git status",
        "git status#; rm -rf /",
        "git status --short#x; rm -rf /",
    ]
)


@given(CHANGES_WHAT_RUNS, st.sampled_from(["", "nice ", "timeout 5 ", "command "]))
def test_a_dropped_word_that_changes_what_runs_is_never_allowed(line: str, prefix: str) -> None:
    """The allow list asks; `Approve(always=...)` (Rule.allows) does not allow either."""
    decision = ALLOW.decide("shell", {"command": prefix + line})
    assert decision.verdict == "ask", prefix + line
    assert not ALWAYS.allows("shell", {"command": prefix + line})
    if "#" not in line:  # as an argv, `status#;` is a word git refuses, not a comment
        argv = shlex.split(prefix + line)
        assert ALLOW.decide("shell", {"command": argv}).verdict != "allow", argv


@given(
    st.sampled_from(
        [
            "git status",
            "git --no-pager status",
            "git -P status --short",
            "/usr/bin/git status",
            "nice -n 5 git status",
            "timeout 5 git status --porcelain",
            "env -i git status",
            "command git status",
            "git status '; rm -rf /'",
        ]
    ),
    st.booleans(),
)
def test_harmless_spellings_are_still_allowed(line: str, as_argv: bool) -> None:
    """Only what can change what runs is asked: the plain forms stay allowed."""
    value: object = shlex.split(line) if as_argv else line
    assert ALLOW.decide("shell", {"command": value}).verdict == "allow", line
    assert ALWAYS.allows("shell", {"command": value})


WRAPPED = st.sampled_from(
    [
        "env -S {q}",
        "env --split-string={q}",
        "env -S{q}",
        "/usr/bin/env -S {q}",
        "env - {c}",
        "su -c {q}",
        "su root -c {q}",
        "su - root -c {q}",
        "su --command={q} root",
        "runuser -u root -- {c}",
        "runuser root -c {q}",
        "sg wheel -c {q}",
        "flock /tmp/l {c}",
        "flock -w 5 /tmp/l {c}",
        "flock /tmp/l -c {q}",
        "watch {c}",
        "watch -n 1 {c}",
        "watch -n1 {q}",
        "strace {c}",
        "strace -f -o out {c}",
        "ltrace {c}",
        "script -c {q}",
        "script -q -c {q} /dev/null",
        "unbuffer {c}",
        "chroot / {c}",
        "taskset 1 {c}",
        "nsenter -t 1 -m {c}",
        "setpriv --reuid 0 {c}",
        "sudo -u root -- {c}",
        "sudo -s {c}",
        "doas {c}",
        "pkexec {c}",
        "faketime 2020-01-01 {c}",
        "numactl -N 0 {c}",
        "eatmydata {c}",
        "systemd-run --user {c}",
        "time -o out {c}",
        "nice -n5 {c}",
        "! {c}",
        "if {c}; then true; fi",
        "{{ {c}; }}",
        "while {c}; do true; done",
        "true; then {c}",
    ]
)
PROGRAMS = st.sampled_from(["rm", "/bin/rm", "./rm", "'rm'"])


@given(WRAPPED, WRAPPED, PROGRAMS, st.booleans())
def test_a_command_any_wrapper_runs_is_denied(
    outer: str, inner: str, program: str, nest: bool
) -> None:
    """Wrappers that take a command (its words, its option's value, its line): the denied
    command inside is denied, nested too."""
    line = f"{program} -rf /"
    if nest:
        line = inner.format(c=line, q=shlex.quote(line))
    line = outer.format(c=line, q=shlex.quote(line))
    decision = DENY.decide("shell", {"command": line})
    assert (decision.verdict, decision.rule) == ("deny", "shell(rm *)"), line


def test_an_argv_whose_option_value_is_the_command_is_denied() -> None:
    """["env", "-S", "rm -rf /"]: the -S value is the command."""
    for argv in (
        ["env", "-S", "rm -rf /"],
        ["env", "--split-string=rm -rf /"],
        ["su", "-c", "rm -rf /"],
        ["flock", "/tmp/l", "-c", "rm -rf /"],
        ["watch", "rm -rf /"],
    ):
        assert DENY.decide("shell", {"command": argv}).verdict == "deny", argv


@given(
    st.sampled_from(["frobnicate", "/opt/x/runner", "parallel", "nq", "with-env"]),
    st.sampled_from(["", "-x ", "--flag ", "a b "]),
    PROGRAMS,
)
def test_an_unknown_program_naming_a_denied_one_is_asked(
    program: str, options: str, denied: str
) -> None:
    """Any program may run its arguments: the denied command after it is asked, never
    allowed and never left without a verdict."""
    line = f"{program} {options}{denied} -rf /"
    for rules in (DENY, DENY + Rules.of(allow=["shell(*)"])):
        decision = rules.decide("shell", {"command": line})
        assert decision.verdict in ("deny", "ask"), line
        if decision.verdict == "ask":
            assert decision.rule == f"shell(rm *) {MAYBE}"
    assert command(line).maybe


KEYS = st.sampled_from(["path", "file_path", "p", "target_file", "filename", "x"])
PATHS = st.builds(
    lambda prefix, detour, slash: prefix + detour + ".env" + slash,
    st.sampled_from(["", "./", "././", ".//"]),
    st.sampled_from(["", "src/../", "a/b/../../", "x/./../"]),
    st.sampled_from(["", "/", "/."]),
)


@given(KEYS, PATHS, st.booleans())
def test_a_denied_path_is_denied_under_any_key(key: str, path: str, first: bool) -> None:
    """`read_path(.env)` sees `./.env`, `a/../.env`, `.env/` whatever the argument is
    called and wherever it is in the call."""
    arguments = {key: path, "encoding": "utf-8"} if first else {"encoding": "utf-8", key: path}
    decision = DENY.decide("read_path", arguments)
    assert (decision.verdict, decision.rule) == ("deny", "read_path(.env)"), arguments
