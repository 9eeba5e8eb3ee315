"""An argv's policy: which items a secret flag, a pair, curl's user flag or a name/value
entry set by flags hides."""

from __future__ import annotations

import re

from toolrail.core import redact as _policy  # called back: the policy recurses
from toolrail.core.redact.curl import _curl_user_flag, _is_curl, _user_kept
from toolrail.core.redact.entries import _ENTRY_KEYS
from toolrail.core.redact.flags import _plain_text_given
from toolrail.core.redact.markers import REDACTED
from toolrail.core.redact.names import _DASHES, _secret_setting, hides_next, is_secret_key
from toolrail.core.redact.reading import _TERMINAL_CODE
from toolrail.core.redact.stores import _argv_values

# a command given apart from its arguments (`{"command": "gh", "args": [...]}`): the keys
# naming its program, and its lists of arguments (each read)
_PROGRAM_KEYS = ("command", "cmd", "program", "executable", "file")
_ARGS_ORDER = ("args", "argv", "arguments")
_ARGS_KEYS = frozenset(_ARGS_ORDER)


def _argv_decided(argv: list[object] | tuple[object, ...]) -> dict[int, str]:
    """The items of an argv its own rules show other than as each shows alone: flags' and
    programs' values (`_argv_shown`) and a store's (`_argv_values`), by their place."""
    decided = _argv_shown(argv)
    for at, offset in _argv_values(argv).items():
        decided.setdefault(at, _stored_shown(argv[at], offset))
    return decided


def _stored_shown(item: object, offset: int) -> str:
    """An argv item holding a stored secret from `offset` on, as shown: its key or flag kept,
    as text (`--from-literal=user=[REDACTED]`), the value hidden."""
    return (
        _policy.redact_text(item[:offset]) if isinstance(item, str) and offset else ""
    ) + REDACTED


def _argv_shown(
    items: list[object] | tuple[object, ...], *, in_text: bool = False
) -> dict[int, str]:
    """The items of an argv its policy shows other than as `redact` shows each alone, by
    their place, and what it shows instead: the value after a secret-named flag, curl's
    `user:password` as `user:[REDACTED]`, `mysql -p[REDACTED]`.

    `in_text`: an argv written in text as a list of lines (`_yaml_argv`), which may be a
    list in prose too: a flag hides its value only if it is one word (`- --password: the
    one to use` says what a flag does) and, but for `mysql` and `sshpass`, not `-p` (a
    port more often), and an item that is a flag is never a value (a list of flags), as
    in a flow list (`_flow_item`)."""
    shown: dict[int, str] = {}
    hide_next = False
    # the program, named by `str(argv[0])`; never a container's text, which can nest past
    # the recursion limit
    first = items[0] if items else ""
    program = "" if isinstance(first, list | tuple | dict) else str(first).rsplit("/", 1)[-1]
    glued_p = program in _GLUED_P_PROGRAMS
    curl = _is_curl(program)  # and from the item naming it on (`["sudo", "curl", ...]`)
    user_next = False  # curl's user flag came last: its value is `user:password`
    for at, item in enumerate(items):
        if glued_p and isinstance(item, str) and item.startswith("-p") and len(item) > 2:
            shown[at] = f"-p{REDACTED}"  # `mysql -phunter22`
            continue
        if user_next and isinstance(item, str) and ":" not in item and not _hiding_flag(item):
            hide_next = user_next = False  # `-u me`: the user alone, shown as text
            continue
        glued = _curl_user_flag(item) if curl and isinstance(item, str) else None
        if glued and isinstance(item, str) and ":" in glued:  # `-uuser:pw`, `-u me:p w`
            shown[at] = item[: len(item) - len(glued)] + _user_kept(glued)
            hide_next = user_next = False
            continue
        hiding = _hiding_flag(item)
        flag = hiding and _one_word(item)  # `-x: y` is a value
        if in_text:
            hiding = flag and (glued_p or str(item).lstrip(_DASHES) != "p")
        # after a hiding flag its value, unless this is a flag of its own with a value of
        # its own (`--no-auth-warning --pass x`; `_OWN_VALUE`: an item after it, not a flag)
        if hide_next and not (flag and _valued(items, at)) and not (in_text and _flag_like(item)):
            # `-u user:pw`: the user stays
            shown[at] = _user_kept(item) if curl and isinstance(item, str) else REDACTED
            hide_next = flag  # the value, or a flag whose value starts with a dash: both go
            user_next = False
            continue
        user_next = glued == ""
        hide_next = hiding or user_next
        curl = curl or _is_curl(item)
    for at, hidden in _entry_flag_values(items).items():
        shown.setdefault(at, hidden)
    return shown


def _entry_flag(item: object) -> bool:
    """Whether an argv item is an entry's key written as a long flag, its value glued to it
    or not (`--name`, `--value=X`: `_ENTRY_KEYS`; PowerShell's value's, `-Value`, `-Value:X`,
    `-String`), or `ConvertTo-SecureString`: an argv holding none sets no entry (no value)
    and gives no plain text to hide."""
    if not isinstance(item, str) or item[:1] != "-":
        return _is_secure_string(item)
    if item[:2] == "--":
        return item[2:].partition("=")[0] in _ENTRY_KEYS
    return _value_flag(item)  # (PowerShell's: a value's only, `-Value`, `-String`)


def _value_flag(item: object) -> bool:
    """Whether an argv item is an entry's value key written as a flag (`--value`,
    `--value=X`; PowerShell's `-Value`, `-Value:X`, `-String`, any case)."""
    if not isinstance(item, str):
        return False
    if item[:2] == "--":
        return _ENTRY_KEYS.get(item[2:].partition("=")[0]) is False
    return (
        item[:1] == "-"
        and item[1:2] in "vVsS"
        and _PS_ENTRY_KEYS.get(item[1:].partition(":")[0].lower()) is False
    )


def _is_secure_string(item: object) -> bool:
    """Whether an argv item is `ConvertTo-SecureString`, in any case."""
    return (
        isinstance(item, str)
        and len(item) == _SECURE_STRING_LENGTH
        and item.lower() == _SECURE_STRING_CMDLET
    )


def _entry_flag_item(item: str) -> tuple[bool, str | None] | None:
    """An argv item as an entry's key written as a flag (`--name`, `--value`: `_ENTRY_KEYS`;
    PowerShell's one dash, any case: `-Name`, `-Value`, `-String`, `-Value:X`): its role,
    and its value if glued to it (`--value=X` is read as `--value X` is; None: the value is
    the next item); None if it is none."""
    if item[:2] != "--":
        flag, colon, glued = item[1:].partition(":")
        ps_role = _PS_ENTRY_KEYS.get(flag.lower()) if item[:1] == "-" else None
        return None if ps_role is None else (ps_role, glued if colon else None)
    flag, equals, glued = item.partition("=")
    role = _ENTRY_KEYS.get(flag[2:])
    return None if role is None else (role, glued if equals else None)


# PowerShell's parameters naming a setting and holding its value (`-Path Env:NAME` names
# one only so: `_entry_flag_values`)
_PS_ENTRY_KEYS = {"name": True, "key": True, "path": True, "value": False, "string": False}
_SECURE_STRING_CMDLET = "convertto-securestring"
_SECURE_STRING_LENGTH = len(_SECURE_STRING_CMDLET)
_ENV = "env:"


def _entry_flag_values(items: list[object] | tuple[object, ...]) -> dict[int, str]:
    """Where the values of a name/value entry set by flags are, and how each is shown, if
    its name names a secret (`aws ssm put-parameter --name /prod/db/password --value X`,
    either order; `--value=X`, `--name=...`): read as `name=... value=...` is in
    text (`_pair_entries`). A value glued to its flag goes, the flag stays (`--value=`).
    PowerShell's too (`-Name N -Value X`), and the plain text `ConvertTo-SecureString` is
    given (`_secure_string_values`)."""
    secured = _secure_string_values(items)
    if not any(_value_flag(item) for item in items):  # (most argvs set none)
        return secured
    values: dict[int, str] = {}
    names: list[object] = []  # (read only if there is a value to hide)
    last = len(items) - 1
    for at, item in enumerate(items):
        if not isinstance(item, str) or item[:1] != "-":
            continue
        found = _entry_flag_item(item)
        if found is None:
            continue
        role, glued = found
        if glued is None and at == last:
            continue  # a flag with no value
        if role:
            name = items[at + 1] if glued is None else glued
            if item[:2] != "--" and item[1:].partition(":")[0].lower() == "path":
                if not (isinstance(name, str) and name[:4].lower() == _ENV):
                    continue  # (a path names a setting only in the environment's drive)
                name = name[4:]
            names.append(name)
        elif glued is None:
            values[at + 1] = REDACTED
        elif glued:
            values[at] = item[: len(item) - len(glued)] + REDACTED
    if values and any(isinstance(name, str) and _secret_setting(name) for name in names):
        return secured | values
    return secured


def _secure_string_values(items: list[object] | tuple[object, ...]) -> dict[int, str]:
    """Where the plain text given to `ConvertTo-SecureString -AsPlainText` is in an argv:
    its `-String`'s value, or its first item not a parameter's (a variable stays)."""
    at = next((at for at, item in enumerate(items) if _is_secure_string(item)), -1)
    if at < 0:
        return {}
    parameters: list[tuple[str, bool] | None] = []
    for item in items[at + 1 :]:
        if isinstance(item, str) and item[:1] == "-" and item[1:2].isalpha():
            name, colon, _ = item[1:].partition(":")
            parameters.append((name.lower(), bool(colon)))
        else:
            parameters.append(None)
    plain, given = _plain_text_given(parameters)
    if not plain or given is None:
        return {}
    given += at + 1
    value = items[given]
    if isinstance(value, str) and (not value or value.startswith(("$", "("))):
        return {}  # (a variable, or an expression: a cmdlet's name is no value)
    return {given: REDACTED}


def _flag_like(item: object) -> bool:
    """Whether an argv item is a flag, one word after its dashes (`--verbose`, `-v`)."""
    return isinstance(item, str) and _uncoded(item).startswith(_FLAG_OPENINGS) and _one_word(item)


def _hiding_flag(item: object) -> bool:
    """Whether an argv item is a flag whose value, the next item, is a secret."""
    if not isinstance(item, str):
        return False
    item = _uncoded(item)
    return item.startswith(_FLAG_OPENINGS) and "=" not in item and hides_next(item)


def _valued(items: list[object] | tuple[object, ...], at: int) -> bool:
    """Whether an item follows `items[at]` that is not a flag: its value (`_OWN_VALUE`)."""
    if at + 1 >= len(items):
        return False
    following = items[at + 1]
    return not (isinstance(following, str) and _uncoded(following).startswith(_FLAG_OPENINGS))


def _one_word(flag: object) -> bool:
    """Whether a flag is one word after its dashes: `-x y: z` is a value, not a flag."""
    if not isinstance(flag, str):
        return False
    return _FLAG_NAME.fullmatch(_uncoded(flag).lstrip(_DASHES)) is not None


def _uncoded(item: str) -> str:
    """An item as a flag is read: without the terminal codes in it (`\x1b[1m--token\x1b[0m`),
    which show nothing, so set nothing apart (as `_FLAG_ITEM` reads them in text)."""
    return _CODES_RUN.sub("", item) if "\x1b" in item else item


_CODES_RUN = re.compile("(?:" + _TERMINAL_CODE + ")++")


_FLAG_OPENINGS = tuple(_DASHES)
_FLAG_NAME = re.compile(r"[A-Za-z][\w.-]{0,63}")


def _secret_pair(items: list[object] | tuple[object, ...]) -> bool:
    """`["Authorization", "..."]`, `("password", "...")`: a header or a setting as a pair."""
    if len(items) != 2 or not isinstance(items[0], str) or items[1] in (None, ""):
        return False
    return not items[0].startswith("-") and is_secret_key(items[0])


_GLUED_P_PROGRAMS = frozenset(
    {"mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlcheck", "mariadb", "sshpass"}
)
