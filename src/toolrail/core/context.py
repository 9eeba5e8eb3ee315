"""The context a tool runs in: who is calling, in which conversation, and a progress line."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, cast

from typing_extensions import TypeVar

ProgressCallback = Callable[[float, float | None, str | None], None]
"""Receives `(progress, total, message)` from a running tool."""


DepsT = TypeVar("DepsT", default=None)
"""The type of `ExecutionContext.deps`: None unless an application passes its own."""


def _new_id() -> str:
    return uuid.uuid4().hex


@dataclass(frozen=True, kw_only=True)  # no slots: `for_call` copies its __dict__ in one go
class ExecutionContext(Generic[DepsT]):
    """Frozen facts about a call's surroundings; the executor adds the call id and progress.

    `call_stack` holds the ids of the calls this one runs inside, outermost first, ending
    with its own: a tool that calls other tools through the executor passes its `ctx` on.
    `deps` carries the application's own dependencies (a database, an HTTP client) to its
    tools, typed: a tool that takes `ctx: ExecutionContext[Db]` reads `ctx.deps` as a `Db`.
    `project_root` may be given as a string and `permissions` as any iterable of strings.

    >>> ctx = ExecutionContext(agent="planner", permissions=["fs:read"], project_root="src")
    >>> ctx.permissions, ctx.project_root.name
    (frozenset({'fs:read'}), 'src')
    """

    agent: str = "default"
    permissions: frozenset[str] = frozenset()
    conversation_id: str = field(default_factory=_new_id)
    phase: str | None = None
    project_root: Path = field(default_factory=Path)
    request_id: str | None = None
    trace_id: str | None = None
    call_id: str | None = None
    call_stack: tuple[str, ...] = ()
    batch_id: str | None = None
    on_progress: ProgressCallback | None = field(default=None, repr=False, compare=False)
    deps: DepsT = field(default=cast("DepsT", None), repr=False, compare=False)
    _attached: dict[str, object] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        root, granted = cast(object, self.project_root), cast(object, self.permissions)
        if not isinstance(root, Path):  # a str (or any os.PathLike) is taken as a path
            if not isinstance(root, str | os.PathLike) or isinstance(root, bytes):
                raise TypeError(f"project_root must be a path or a str, not {root!r}")
            object.__setattr__(self, "project_root", Path(root))
        if "\x00" in str(self.project_root):
            raise ValueError("project_root must not contain a NUL character")
        if not isinstance(granted, frozenset):
            many = isinstance(granted, Iterable) and not isinstance(granted, str)
            items = list(cast("Iterable[object]", granted)) if many else [granted]
            if not all(isinstance(item, str) for item in items):
                raise TypeError(f"permissions must be strings, not {granted!r}")
            object.__setattr__(self, "permissions", frozenset(cast("list[str]", items)))

    def for_call(
        self, call_id: str, on_progress: ProgressCallback | None = None
    ) -> ExecutionContext[DepsT]:
        """This context for one call (the executor's hot path: cheaper than `replace`)."""
        fields = self.__dict__.copy()
        fields["call_id"] = call_id
        fields["_attached"] = None  # each call attaches its own metadata
        if self.call_id != call_id:  # a call made from inside another call nests under it
            fields["call_stack"] = self.call_stack + (call_id,)  # noqa: RUF005 (half the cost)
        if on_progress is not None:
            fields["on_progress"] = on_progress
        copy = _new(ExecutionContext)
        _set(copy, "__dict__", fields)  # one dict, not a new one filled key by key
        return copy

    def attach(self, **metadata: object) -> None:
        """Attach metadata for UIs and logs to this call: it ends in `outcome.metadata`,
        on the finished event and in the call log (redacted). Safe from a sync tool's thread.

        >>> ctx = ExecutionContext().for_call("c1")
        >>> ctx.attach(rows=3, cache="hit")
        >>> dict(ctx.attached)
        {'rows': 3, 'cache': 'hit'}
        """
        if self._attached is None:
            object.__setattr__(self, "_attached", {})
        assert self._attached is not None
        self._attached.update(metadata)

    @property
    def attached(self) -> Mapping[str, object]:
        """What the running tool attached so far (see `attach`)."""
        return self._attached if self._attached is not None else {}

    def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Tell whoever is watching how far the tool has got; safe from any thread."""
        if self.on_progress is not None:
            self.on_progress(progress, total, message)


_new = object.__new__
_set = object.__setattr__
