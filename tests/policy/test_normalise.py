"""Rules cannot be bypassed by spelling: properties over many spellings of one call."""

from __future__ import annotations

import shlex

from hypothesis import given
from hypothesis import strategies as st

from toolrail.policy.normalise import command
from toolrail.policy.rules import NOT_ALLOWED, UNSURE, Rules

DENY_RM = Rules.of(deny=["shell(rm *)"], ask=["shell(git push*)"])
PROGRAMS = st.sampled_from(["rm", "/bin/rm", "/usr/bin/rm", "./rm", "../bin/rm", "'rm'", '"rm"'])
WRAPPERS = st.lists(
    st.sampled_from(
        [
            "env",
            "env -i",
            "env -u HOME",
            "env A=1",
            "X=1",
            "nice",
            "nice -n 5",
            "nohup",
            "timeout 5",
            "timeout -s KILL 5",
            "stdbuf -o0",
            "command",
            "exec",
            "sudo",
            "sudo -u root",
            "/usr/bin/env",
            "xargs",
            "time",
            "busybox",
            "setsid",
        ]
    ),
    max_size=3,
)
BEFORE = st.sampled_from(["", "ls; ", "true && ", "false || ", "echo hi | ", "ls\n", "ls & "])
SPACES = st.sampled_from([" ", "  ", "\t", " \t "])


@given(BEFORE, WRAPPERS, PROGRAMS, SPACES, st.sampled_from(["-rf /", "-r x", "a", "'-rf' /"]))
def test_every_spelling_of_a_denied_command_is_denied(
    before: str, wrappers: list[str], program: str, space: str, args: str
) -> None:
    line = before + space.join([*wrappers, program, args])
    decision = DENY_RM.decide("shell", {"command": line})
    assert (decision.verdict, decision.rule) == ("deny", "shell(rm *)"), line


@given(
    st.lists(
        st.sampled_from(
            ["-C .", "-C /tmp", "-c a=b", "--git-dir=.git", "--no-pager", "-p", "--bare"]
        ),
        max_size=3,
    ),
    SPACES,
    st.sampled_from(["git", "/usr/bin/git", "env git"]),
)
def test_options_before_a_git_subcommand_do_not_hide_it(
    options: list[str], space: str, git: str
) -> None:
    line = space.join([git, *options, "push", "--force"])
    assert DENY_RM.decide("shell", {"command": line}).verdict == "ask", line


WORDS = st.sampled_from(
    [
        "git",
        "status",
        "push",
        "--force",
        "rm",
        "-rf",
        "/",
        ";",
        "&&",
        "|",
        ">",
        "out",
        "$(x)",
        "`x`",
        "(",
        ")",
        "'",
        "echo",
        "--short",
        "&",
    ]
)


@given(st.lists(WORDS, min_size=1, max_size=8), st.booleans())
def test_an_allow_list_allows_only_what_it_names(words: list[str], as_argv: bool) -> None:
    """With allow = ["shell(git status*)"], any other command is asked, never run."""
    rules = Rules.of(allow=["shell(git status*)"])
    value: object = words if as_argv else " ".join(words)
    decision = rules.decide("shell", {"command": value})
    if decision.verdict == "allow":
        found = command(value)
        assert found.sure
        assert all(part[:2] == ("git", "status") for part in found.parts), value
    else:
        assert decision.verdict == "ask"
        assert decision.rule in (NOT_ALLOWED, UNSURE)


PATH_SPELLINGS = st.builds(
    lambda prefix, detour, slash: prefix + detour + ".env" + slash,
    st.sampled_from(["", "./", "././", ".//"]),
    st.sampled_from(["", "src/../", "a/b/../../", "x/./../"]),
    st.sampled_from(["", "/"]),
)


@given(PATH_SPELLINGS)
def test_every_spelling_of_a_denied_path_is_denied(path: str) -> None:
    rules = Rules.of(deny=["read_path(.env)", "write_context_file(path:.env)"])
    assert rules.decide("read_path", {"path": path}).verdict == "deny", path
    assert rules.decide("write_context_file", {"path": path, "text": "x"}).verdict == "deny"


def test_the_issue_examples() -> None:
    """Each bypass the outside campaign found, as written there."""
    rules = Rules.of(deny=["shell(rm *)", "read_path(.env)"], ask=["shell(git push*)"])
    for line in ("/bin/rm -rf /", "env rm x", "nice rm x", "rm  -rf /"):
        assert rules.decide("shell", {"command": line}).verdict == "deny", line
    assert rules.decide("shell", {"command": "git -C . push"}).verdict == "ask"
    assert rules.decide("read_path", {"path": "./.env"}).verdict == "deny"
    allow = Rules.of(allow=["shell(git status*)"])
    for line in ("git push --force", "git status; rm -rf /", "git status && rm -rf /"):
        assert allow.decide("shell", {"command": line}).verdict == "ask", line
    assert allow.decide("shell", {"command": ["git", "status", "--short"]}).verdict == "allow"
    assert allow.decide("read_path", {"path": "a"}).verdict == "ask"  # not named: asked


def test_a_command_round_trips_through_its_quoted_form() -> None:
    argv = ["git", "log", "--format=%an <%ae>", "a b"]
    assert command(shlex.join(argv)).parts == command(argv).parts
    assert command("rm 'unbalanced").sure is False
    assert command("echo `id`").sure is False


INNER = st.sampled_from(
    [
        "sh -c {q}",
        "bash -c {q}",
        "bash -lc {q}",
        "/bin/sh -c {q}",
        "eval {q}",
        "env sh -c {q}",
        "sh -c {qq}",
    ]
)


@given(INNER, PROGRAMS)
def test_a_command_run_by_a_shell_eval_or_find_exec_is_matched_too(
    template: str, program: str
) -> None:
    """`sh -c 'rm -rf /'`, `eval rm -rf /` and `find -exec rm` are the denied rm."""
    inner = f"{program} -rf /"
    line = template.format(q=shlex.quote(inner), qq=shlex.quote(f"true; {inner}"))
    decision = DENY_RM.decide("shell", {"command": line})
    assert (decision.verdict, decision.rule) == ("deny", "shell(rm *)"), line


def test_find_exec_runs_its_command_through_the_rules() -> None:
    """`find . -exec rm {} ;` runs rm: the deny rule sees it."""
    for line in ("find . -name x -exec rm {} ;", "find . -execdir /bin/rm -f {} +"):
        assert DENY_RM.decide("shell", {"command": line}).verdict == "deny", line


def test_what_cannot_be_read_for_sure_is_asked_never_allowed() -> None:
    """A script, an alias defined on the command line or an expanded program name is not
    understood for sure: an allow list never allows it."""
    rules = Rules.of(allow=["shell(git status*)", "shell(sh *)", "shell(ls*)"])
    for line in ("sh script.sh", "git -c alias.status='!rm -rf /' status", "$X -rf /", "l? /"):
        decision = rules.decide("shell", {"command": line})
        assert decision.verdict == "ask", line


@given(
    st.sampled_from(["sh", "bash", "/bin/sh", "dash"]),
    st.lists(st.sampled_from(["--", "-x", "-e", "+e", "-o errexit", "+o nounset"]), max_size=3),
)
def test_options_between_sh_c_and_its_command_do_not_hide_it(
    shell_name: str, options: list[str]
) -> None:
    """`sh -c -- 'rm -rf x'`, `bash -c -o errexit 'rm -rf x'`: the command is the first word
    that is not an option, as the shell reads it."""
    spelled = " ".join(options)
    if "--" in options:  # nothing after `--` is an option
        spelled = " ".join(o for o in options if o != "--") + " --"
    line = f"{shell_name} -c {spelled} 'rm -rf x'"
    assert DENY_RM.decide("shell", {"command": line}).verdict == "deny", line
    argv = [shell_name, "-c", *spelled.split(), "rm -rf x"]
    assert DENY_RM.decide("shell", {"command": argv}).verdict == "deny", argv


@given(st.sampled_from([".en?", ".e*", ".[e]nv", "{.env,}", "$PWD/.env", "~/.env", "${X}"]))
def test_a_word_the_shell_would_expand_is_never_sure(word: str) -> None:
    """In a command line a shell reads, `cat .en?` may be `cat .env`: deny rules cannot tell,
    so it is asked; an allow list never allows it."""
    denied = Rules.of(deny=["shell(cat .env*)"])
    assert denied.decide("shell", {"command": f"cat {word}"}).verdict == "ask"
    allowed = Rules.of(allow=["shell(cat *)"])
    assert allowed.decide("shell", {"command": f"cat {word}"}).verdict == "ask"
    # an argv list is not expanded by anyone: it is read as it is
    assert allowed.decide("shell", {"command": ["cat", word]}).verdict == "allow"
