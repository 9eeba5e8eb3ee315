"""Commands that store a secret, and which of their arguments is the value: the table.

That a value is a secret is said by the command, not by a flag's or a key's name (`gh
secret set NAME --body X`, `fly secrets set STRIPE=X`), so no other pass hides it. `_STORES`
is the table: a program (by its name, `/usr/bin/gh` too) and the words of its subcommand
(global flags, any number, may come between them: `kubectl -n prod create secret generic`)
name a store, and the store says which of its arguments are the value:

- `flags`: a flag whose value is the secret, in any spelling (`--body X`, `--body=X`, `-b
  X`, `-bX`);
- `literals`: a flag whose value is `KEY=VALUE`, the key kept (`--from-literal=k=X`);
- `assigned`: an operand `KEY=VALUE` is one, the key kept (`STRIPE=X`, `api=X`);
- `positional`: an operand after the first, the name, is the value (`API X`); with
  `named_secret`, only when the name, or a key path's last part, names a secret (`setx
  DB_PASSWORD X`, `consul kv put config/db/password X`; `setx PATH C:\\bin` stays), or
  a flag of the store's marks it one (`marked`: `pulumi config set --secret K X`);
- `piped`: the value is given on the input, so what `echo`, `printf` or PowerShell's
  `Write-Output` writes into the pipeline (`echo -n X | gh secret set NAME`, through `| tr
  -d '\\n' |` too), a string alone opening a command (PowerShell's `'X' | gh secret set N`),
  a here-string (`<<< X`) and a here-document's lines (`<<EOF`) are;
- `files`: what opens a value that is a file's path, not the secret (vault's `@file`);
- `options`: the store's own flags taking a value that is no secret (doppler's `--config
  dev`); `slashes`: Windows' flags (`/M`; `/S host`; `/P X`, a password).

Names, keys, flags and paths stay; an empty value stays (`--body ""`). What lists a
store's secrets or deletes one (`gh secret list`, `vault kv get`) is no store. The values
of an argv as data are `_argv_values`'; a command in text is read by `secret_commands`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from toolrail.core.redact.names import is_secret_key


@dataclass(frozen=True, slots=True)
class _Store:
    """Which arguments of a command that stores a secret are the value (see the module)."""

    flags: frozenset[str] = frozenset()
    literals: frozenset[str] = frozenset()
    assigned: bool = False
    positional: bool = False
    piped: bool = False
    files: str = ""
    options: frozenset[str] = frozenset()
    named_secret: bool = False
    marked: str = ""
    slashes: bool = False


_FROM_INPUT = _Store(piped=True)
_ASSIGNED = _Store(assigned=True)
_LOGIN = _Store(flags=frozenset({"-p", "--password"}), piped=True)
_STORES: dict[str, dict[tuple[str, ...], _Store]] = {
    "gh": {("secret", "set"): _Store(flags=frozenset({"--body", "-b"}), piped=True)},
    "fly": {("secrets", "set"): _ASSIGNED, ("secrets", "import"): _FROM_INPUT},
    "doppler": {
        ("secrets", "set"): _Store(
            assigned=True,
            positional=True,
            piped=True,
            options=frozenset(
                {"--project", "-p", "--config", "-c", "--scope", "--configuration"}
                | {"--api-host", "--dashboard-host", "--type", "--visibility", "--timeout"}
            ),
        )
    },
    "supabase": {("secrets", "set"): _ASSIGNED},
    "vault": {
        words: _Store(assigned=True, piped=True, files="@")
        for words in (("kv", "put"), ("kv", "patch"), ("write",))
    },
    "kubectl": {
        ("create", "secret", "generic"): _Store(literals=frozenset({"--from-literal"})),
        ("create", "secret", "docker-registry"): _Store(flags=frozenset({"--docker-password"})),
    },
    "heroku": {("config:set",): _ASSIGNED},  # config vars are where Heroku keeps credentials
    "dokku": {("config:set",): _ASSIGNED},
    "az": {("keyvault", "secret", "set"): _Store(flags=frozenset({"--value"}), files="@")},
    "gcloud": {("secrets", "create"): _FROM_INPUT, ("secrets", "versions", "add"): _FROM_INPUT},
    "docker": {("secret", "create"): _FROM_INPUT, ("login",): _LOGIN},
    "podman": {("login",): _LOGIN},
    "nerdctl": {("login",): _LOGIN},
    "buildah": {("login",): _LOGIN},
    "skopeo": {("login",): _LOGIN},
    "oras": {("login",): _LOGIN},
    "crane": {("auth", "login"): _LOGIN},
    "helm": {("registry", "login"): _LOGIN},
    "glab": {
        (noun, verb): _Store(
            flags=frozenset({"--value", "-v"}),
            positional=True,
            piped=True,
            options=frozenset({"--scope", "-s", "--type", "-t", "--group", "-g", "--repo", "-R"})
            | frozenset({"--description", "-d", "--environment-scope"}),
        )
        for noun in ("variable", "var")
        for verb in ("set", "update")
    },
    "netlify": {
        ("env:set",): _Store(
            positional=True, options=frozenset({"--context", "--scope", "--filter"})
        )
    },
    "vercel": {("env", "add"): _FROM_INPUT},  # (its name, environment and branch: no value)
    "railway": {("variables",): _Store(literals=frozenset({"--set"}))},
    "pulumi": {
        ("config", "set"): _Store(
            positional=True,
            named_secret=True,
            marked="--secret",
            piped=True,  # (no value given: it is read from the input)
            options=frozenset({"--stack", "-s", "--config-file", "--cwd", "-C"}),
        )
    },
    "wrangler": {("secret", "put"): _FROM_INPUT},
    # a value stored under a name: a secret when the name (a key path's last part) names one
    "setx": {(): _Store(positional=True, named_secret=True, slashes=True)},
    "consul": {
        ("kv", "put"): _Store(
            positional=True,
            named_secret=True,
            files="@",
            options=frozenset({"-datacenter", "-token", "-http-addr", "-namespace"})
            | frozenset({"-partition", "-flags", "-modify-index", "-ca-file", "-acquire"}),
        )
    },
    "etcdctl": {
        words: _Store(
            positional=True,
            named_secret=True,
            options=frozenset({"--endpoints", "--user", "--cacert", "--cert", "--key"})
            | frozenset({"--lease", "--dial-timeout", "--command-timeout", "--ttl"}),
        )
        for words in (("put",), ("set",))
    },
}
_STORES["flyctl"] = _STORES["fly"]
_STORES["ntl"] = _STORES["netlify-cli"] = _STORES["netlify"]
_STORES["vc"] = _STORES["vercel"]
_STORES["oc"] = _STORES["kubectl"]
_SUBCOMMAND_WORDS = frozenset(word for stores in _STORES.values() for key in stores for word in key)
# (what an argv of a store holds: its subcommand's first word, or a program taking none)
_SUBCOMMAND_OPENINGS = frozenset(
    key[0] if key else program for program, stores in _STORES.items() for key in stores
)


def _may_store(text: str) -> bool:
    """Whether `text` may hold a command of `_STORES`: one of its words is in every one."""
    return (
        "secret" in text
        or "vault" in text
        or "config:set" in text
        or "login" in text
        or "setx" in text
        or "consul" in text
        or "etcdctl" in text
        or "glab" in text
        or "env:set" in text  # (netlify's, `ntl`'s)
        or "vercel" in text
        or "env add" in text  # (`vc`'s)
        or "railway" in text
        or "pulumi" in text
    )


# --- which arguments are the value ----------------------------------------------------------


def _program(item: str | None) -> str | None:
    """The store's program an argv item names (`gh`, `/usr/bin/gh`, `gh.exe`), if any."""
    if item is None or item in _STORES:
        return item
    if not item.endswith(_PROGRAM_ENDINGS):
        return None
    name = item.replace("\\", "/").rsplit("/", 1)[-1]
    name = name[:-4] if name.endswith(".exe") else name
    return name if name in _STORES else None


_PROGRAM_ENDINGS = tuple(
    f"{separator}{program}{exe}"
    for program in _STORES
    for separator in ("/", "\\", "")
    for exe in ("", ".exe")
    if separator or exe
)


def _store_at(
    items: list[str | None], at: int, more: Callable[[], bool] = lambda: False
) -> tuple[_Store | None, int]:
    """The store whose program is `items[at]`, and where its arguments start; or None, and
    where reading stopped (the word that names no store: no program before it need be read
    again, so each word is read twice at most). A flag before a subcommand's word is
    skipped, and its value, a word that is no subcommand's (`kubectl -n prod create secret
    ...`), however many. `more`: reads one more item into `items`, if there is one (a
    command read as it goes)."""
    stores = _STORES.get(_program(items[at]) or "")
    if stores is None:
        return None, at + 1
    if () in stores:  # (a program taking no subcommand: `setx`)
        return stores[()], at + 1
    said: tuple[str, ...] = ()
    i = at + 1
    while i < len(items) or more():
        word = items[i]
        if word is None:
            return None, i
        if word.startswith("-"):
            i += 1
            if "=" not in word and (i < len(items) or more()):
                following = items[i]
                if following is not None and not following.startswith("-"):
                    i += following not in _SUBCOMMAND_WORDS
            continue
        said += (word,)
        if said in stores:
            return stores[said], i + 1
        if not any(key[: len(said)] == said for key in stores):
            return None, i
        i += 1
    return None, i


_WHOLE, _AFTER_KEY = 0, 1  # how the next item is the value: whole, or after its `KEY=`


def _value_offsets(items: Sequence[str | None], start: int, store: _Store) -> dict[int, int]:
    """Where each argument of `store` from `items[start]` on that holds the value starts
    being it: its index, and the offset in it (after `--body=`, `KEY=`); an empty value, a
    file's path (`_Store.files`) and a non-string item's key are none."""
    found: dict[int, int] = {}
    next_value: int | None = None
    named = False  # an operand not `KEY=VALUE`, the name, came (`positional`)
    secret = not store.named_secret  # the name names a secret (`named_secret`)
    operands: list[int] = []  # the operands after the name (`positional`)
    skip = False  # the item is an option's value (`options`, a slash's: `/S host`)
    for at in range(start, len(items)):
        item = items[at]
        if skip:
            skip = False
        elif next_value is not None:
            found[at] = _after_key(item) if next_value == _AFTER_KEY else 0
            next_value = None
        elif item is None:  # (a number, ...: no flag, no key)
            if store.positional and named:
                operands.append(at)
            named = True
        elif store.slashes and len(item) == 2 and item[0] == "/" and item[1].isalpha():
            if item[1] in "Pp":  # `/P password`
                next_value = _WHOLE
            else:  # `/M` alone, `/S host`, `/U user`
                skip = item[1] not in "Mm"
        elif item.startswith("-") and len(item) > 1:
            flag, equals, value = item.partition("=")
            if flag == store.marked:
                secret = True
            elif flag in store.options:
                skip = not equals
            elif flag in store.flags:
                if equals:
                    found[at] = len(flag) + 1
                else:
                    next_value = _WHOLE
            elif flag in store.literals:
                if equals:
                    found[at] = len(flag) + 1 + _after_key(value)
                else:
                    next_value = _AFTER_KEY
            elif len(flag) > 2 and flag[1] != "-" and flag[:2] in store.flags:  # `-bX`
                found[at] = 2
        elif store.positional and named:  # after the name, whatever it is (`API a=b`)
            operands.append(at)
        elif store.assigned and "=" in item:
            found[at] = item.index("=") + 1
        else:
            named = True
            if store.named_secret:
                secret = secret or is_secret_key(
                    item.replace("\\", "/").rstrip("/").rpartition("/")[2]
                )
    if secret:  # (known once every argument is read: a marking flag may come last)
        found.update(dict.fromkeys(operands, 0))
    return {
        at: offset
        for at, offset in found.items()
        if (item := items[at]) is None or _is_value(item, offset, store)
    }


def _is_value(item: str, offset: int, store: _Store) -> bool:
    """Whether `item` from `offset` on is a value: not empty, not a file's path
    (`_Store.files`), not `-` (the input)."""
    if offset >= len(item) or (store.files and item.startswith(store.files, offset)):
        return False
    return not (offset == len(item) - 1 and item[offset] == "-")


def _after_key(item: str | None) -> int:
    """Where a `KEY=VALUE` item's value starts (0 if it has no key: it is all value)."""
    return item.index("=") + 1 if item is not None and "=" in item else 0


def _argv_values(items: Sequence[object]) -> dict[int, int]:
    """The items of an argv that are a stored secret (see `_value_offsets`): after the
    first program naming a store, all that follows is its arguments."""
    # (a store's subcommand opens with one of `_SUBCOMMAND_OPENINGS`, which most lists hold
    # not: a list of strings is asked at once, others item by item)
    if items and type(items[0]) is str:
        try:
            if _SUBCOMMAND_OPENINGS.isdisjoint(items):
                return {}
        except TypeError:  # (a list or a mapping among the strings)
            pass
    else:
        for item in items:  # (a loop, not `any()`: most lists are short)
            if type(item) is str and item in _SUBCOMMAND_OPENINGS:
                break
        else:
            return {}
    words = [item if isinstance(item, str) else None for item in items]
    at = 0
    while at < len(words):
        word = words[at]
        if word is not None and _program(word) is not None:
            store, at = _store_at(words, at)
            if store is not None:
                return _value_offsets(words, at, store)
        else:
            at += 1
    return {}
