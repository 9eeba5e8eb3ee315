"""Running one tool body: under its deadline, cancellable by call id, held to its contract.

The body runs in the caller's own task, stepped by hand with its own copy of the context
(as a task would run it): no second task, no shield, and a body that finishes without
waiting costs no timer. At the deadline (or on `Executor.cancel`) the caller's task is
cancelled, which throws into the body, and the call ends *at once*: a body that swallows its
cancellation and waits again goes on as a task of its own, abandoned — nobody waits for it.
Any other cancellation — the caller's, or a cancel scope inside the body (`asyncio.timeout`,
anyio's, as httpx and the MCP SDK use them) — is the body's to handle, as under a plain
`await`: the caller's propagates if the body lets it through, and at the latest at the
deadline. Whose a cancellation is, is read from the task's `cancelling()` count *relative
to the call's start* (as `asyncio.timeout` reads it): a caller task that once swallowed a
cancellation, or a `TaskGroup` that on Python 3.11 leaves the count raised, does not make a
later failure or deadline look like the caller's. A deadline of `inf` is none.
Deadlines share loop timers (see `_Deadlines`). What propagates out of `invoke` is only
the caller's own cancellation and `KeyboardInterrupt`; whatever else a body raises (any
`Exception`, `SystemExit`, `GeneratorExit`, other `BaseException`s) or returns instead of a
`Result` becomes a `ToolError`.

`Invoker` owns the only mutable state this needs — which task awaits which call, which
calls were asked to stop, and the bodies abandoned after their deadline.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import math
import types
from collections.abc import Awaitable, Callable, Coroutine, Generator
from typing import Any, cast

from returns.result import Failure, Result, Success
from typing_extensions import TypeIs

from toolrail._diagnostics import get_logger
from toolrail.core.call import ToolCall
from toolrail.core.context import ExecutionContext
from toolrail.core.errors import Cancelled, ExecutionFailed, TimedOut, ToolError
from toolrail.core.tool import AnyTool

log = get_logger("toolrail.invocation")

Body = Coroutine[Any, Any, object]
"""A tool's body as the invoker steps it: what it returns is held to the `Result` contract
by `as_result`, what it raises (but cancellation and `KeyboardInterrupt`) becomes a value —
asyncio would let a `SystemExit` out of the event loop."""


class Invoker:
    def __init__(self, default_timeout_s: float | None = None) -> None:
        if default_timeout_s is not None and not default_timeout_s > 0:
            raise ValueError(f"default_timeout_s must be positive or None, not {default_timeout_s}")
        self.default_timeout_s = default_timeout_s
        self._running: dict[str, asyncio.Task[Any]] = {}
        self._cancel_requested: set[str] = set()
        self._abandoned: set[asyncio.Future[Any]] = set()
        self._deadlines = _Deadlines()

    def cancel(self, call_id: str) -> bool:
        """Stop a running call; it ends in `Failure(Cancelled)`. False if it is not running."""
        task = self._running.get(call_id)
        if task is None or task.done():
            return False
        self._cancel_requested.add(call_id)
        task.cancel()
        return True

    async def invoke(
        self, tool: AnyTool, args: object, call: ToolCall, ctx: ExecutionContext[Any]
    ) -> Result[object, ToolError]:
        """The tool's result, by its deadline; see the module docstring."""
        began = self.begin(tool, args, call, ctx)
        return began if answered(began) else await began

    def begin(
        self, tool: AnyTool, args: object, call: ToolCall, ctx: ExecutionContext[Any]
    ) -> Result[object, ToolError] | Awaitable[Result[object, ToolError]]:
        """`invoke`, begun now: the tool's result if its body ended without waiting, else
        what to await for it (the executor's path: no coroutine of ours for a body that
        does not wait, and none kept alive per call for one that does)."""
        try:
            started: object = tool.execute(args, ctx)  # a hand-made Tool may answer sync
        except KeyboardInterrupt:
            raise
        except BaseException as error:
            return Failure(ExecutionFailed.from_exception(error))
        if type(started) is not types.CoroutineType and not inspect.isawaitable(started):
            return as_result(tool.name, started)  # a body that answered synchronously
        # The body's first step runs now, in its own copy of the context (as a task would
        # run it): a body that finishes without waiting needs no timer and no loop trip.
        # A coroutine is stepped as it is; any other awaitable, through a coroutine.
        body: Body = (
            cast("Body", started)
            if type(started) is types.CoroutineType
            else _contained(tool.name, cast("Awaitable[object]", started))
        )
        context = contextvars.copy_context()
        try:
            waiting_on = context.run(body.send, None)
        except StopIteration as finished:
            return as_result(tool.name, finished.value)
        except asyncio.CancelledError:  # raised by the body itself, not sent to it
            return Failure(cancelled("the tool itself"))
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # a tool's failure of any kind is a value
            return Failure(ExecutionFailed.from_exception(error))
        waiter = asyncio.current_task()
        if waiter is None:  # not in a task (cannot happen under asyncio): no deadline
            return _contained(tool.name, _resumed(body, waiting_on))
        return self._drive(body, waiting_on, context, waiter, tool, call)

    @types.coroutine
    def _drive(
        self,
        body: Body,
        waiting_on: Any,
        context: contextvars.Context,
        waiter: asyncio.Task[Any],
        tool: AnyTool,
        call: ToolCall,
    ) -> Generator[Any, Any, Result[object, ToolError]]:
        """Drive a waiting body from the caller's own task — no second task, no shield —
        until it ends or its deadline. The deadline (like `Executor.cancel`) cancels the
        caller's task, which throws into the body; a body that waits again after that has
        swallowed its cancellation: it goes on as a task of its own, abandoned, and the call
        ends at once. Any other cancellation (the caller's, or a cancel scope inside the
        body) is the body's to handle, as under a plain `await`."""
        timeout_s = tool.timeout_s or self.default_timeout_s
        deadline, timer = None, None
        if timeout_s and timeout_s != math.inf:
            deadline = _Deadline(waiter)
            timer = self._deadlines.add(timeout_s, deadline, waiter.get_loop())
        self._running[call.id] = waiter
        before = waiter.cancelling()  # more than this: the caller cancelled during the call
        try:
            foreign = False  # a cancellation that is not ours went into the body
            step: Callable[[Any], Any]
            value: Any
            while True:
                try:
                    sent = yield waiting_on
                except asyncio.CancelledError as stop:
                    requested = call.id in self._cancel_requested
                    expired = deadline is not None and deadline.expired
                    if expired or requested:  # ours: the call ends now, whatever the body does
                        self._stop(tool.name, body, stop, context)
                        if waiter.uncancel() > before:
                            raise  # the caller cancelled too
                        if requested:
                            return Failure(cancelled("a cancel request"))
                        return Failure(
                            TimedOut(
                                message=f"{tool.name} did not finish within {timeout_s:g}s",
                                timeout_s=timeout_s or 0.0,
                            )
                        )
                    # The caller's cancellation, or a cancel scope inside the body
                    # (`asyncio.timeout`, anyio, a TaskGroup) that will take it back: the
                    # body handles it, as under a plain await.
                    foreign = True
                    step, value = body.throw, stop
                except GeneratorExit:  # the caller's task is being closed
                    _close(body)
                    raise
                except BaseException as error:  # anything else a task throws in: the body's
                    step, value = body.throw, error
                else:
                    step, value = body.send, sent
                try:
                    waiting_on = context.run(step, value)
                except StopIteration as finished:
                    return as_result(tool.name, finished.value)
                except asyncio.CancelledError:
                    if foreign and waiter.cancelling() > before:
                        raise  # the caller's own cancellation, let through
                    return Failure(cancelled("the tool itself"))
                except KeyboardInterrupt:
                    raise
                except BaseException as error:  # a tool's failure of any kind is a value
                    return Failure(ExecutionFailed.from_exception(error))
        finally:
            if deadline is not None and timer is not None:
                self._deadlines.remove(timer, deadline)
            if self._running.get(call.id) is waiter:
                del self._running[call.id]
            self._cancel_requested.discard(call.id)

    def _stop(
        self,
        name: str,
        body: Body,
        stop: asyncio.CancelledError,
        context: contextvars.Context,
    ) -> None:
        """Hand the body its cancellation; if it waits again, let it run on unawaited, kept
        referenced until it ends (its result is not wanted)."""
        try:
            waiting_on = context.run(body.throw, stop)
        except KeyboardInterrupt:
            raise
        except BaseException:  # ended: by the cancellation, or with a value nobody wants
            return
        self._abandon(name, body, waiting_on, context)

    def _abandon(
        self,
        name: str,
        body: Body,
        waiting_on: Any,
        context: contextvars.Context,
    ) -> None:
        """Let a body that would not stop run on as a task of its own, referenced until it
        ends; nobody awaits it. Held to the contract still: whatever it raises in the end is
        a value nobody reads — a `SystemExit` from it must not end the program."""
        task = asyncio.get_running_loop().create_task(
            _contained(name, _resumed(body, waiting_on)), context=context
        )
        self._abandoned.add(task)
        task.add_done_callback(self._forget)

    async def settle(self, timeout_s: float = 5.0) -> None:
        """Give bodies abandoned after their deadline up to `timeout_s` to end (their clean-up
        ran on after the call had ended); those still running are left alone."""
        if self._abandoned:
            await asyncio.wait(set(self._abandoned), timeout=timeout_s)

    def _forget(self, body: asyncio.Future[Any]) -> None:
        self._abandoned.discard(body)
        if not body.cancelled():
            body.exception()  # retrieved: no "exception was never retrieved" noise


class _Deadline:
    """One call's deadline, as its slot's timer fires it: cancel the task awaiting the call,
    and say it was the deadline. (An object, not a closure: a closure's cells and function
    would be three objects kept per waiting call, for the garbage collector to walk.)"""

    __slots__ = ("expired", "waiter")

    def __init__(self, waiter: asyncio.Task[Any]) -> None:
        self.waiter = waiter
        self.expired = False

    def __call__(self) -> None:
        self.expired = True
        self.waiter.cancel()


_Slot = tuple[asyncio.AbstractEventLoop, int]
_Entry = tuple[asyncio.TimerHandle, set[Callable[[], None]], _Slot]
"""A slot's timer, the deadlines it will fire, and the slot's key."""


class _Deadlines:
    """Deadlines share timers: one loop timer per 10 ms slot, however many calls end in it
    (a deadline fires up to one slot late). A thousand concurrent calls cost a few timers,
    not a thousand. The slot whose last call ended most recently keeps its timer, so calls
    one after another in the same slot reuse it instead of making and cancelling one each;
    any other slot left empty is cancelled at once, so no more than one idle timer (and no
    closed event loop) is ever held."""

    GRAIN_S = 0.01

    def __init__(self) -> None:
        self._slots: dict[_Slot, _Entry] = {}
        self._idle: _Slot | None = None

    def add(
        self, delay_s: float, expire: Callable[[], None], loop: asyncio.AbstractEventLoop
    ) -> _Slot:
        """File `expire` under its slot on `loop`, the running one (its task's: asking asyncio
        for it checks the process id, a system call); what `remove` needs back is the slot's
        own key (so a waiting call keeps no tuple of its own alive)."""
        slot = (loop, math.ceil((loop.time() + delay_s) / self.GRAIN_S))
        entry = self._slots.get(slot)
        if entry is None:
            entry = (loop.call_at(slot[1] * self.GRAIN_S, self._fire, slot), set(), slot)
            self._slots[slot] = entry
        elif slot == self._idle:
            self._idle = None  # in use again
        entry[1].add(expire)
        return entry[2]

    def remove(self, slot: _Slot, expire: Callable[[], None]) -> None:
        entry = self._slots.get(slot)
        if entry is None:
            return
        entry[1].discard(expire)
        if entry[1] or slot == self._idle:
            return
        idle, self._idle = self._idle, slot  # this one stays, the one idle before goes
        if idle is not None:
            earlier = self._slots.pop(idle, None)
            if earlier is not None:
                earlier[0].cancel()

    def _fire(self, slot: _Slot) -> None:
        entry = self._slots.pop(slot, None)
        if slot == self._idle:
            self._idle = None
        for expire in entry[1] if entry is not None else ():
            expire()


async def _contained(name: str, body: Awaitable[object]) -> Result[object, ToolError]:
    """An awaitable that is not a coroutine, or a body resumed outside a task, held to the
    contract as the invoker holds a coroutine it steps."""
    try:
        returned = await body
    except (KeyboardInterrupt, asyncio.CancelledError):
        raise
    except BaseException as error:  # a tool's failure of any kind is a value
        return Failure(ExecutionFailed.from_exception(error))
    return as_result(name, returned)


@types.coroutine
def _resumed(body: Body, waiting_on: Any) -> Generator[Any, Any, object]:
    """Carry on a coroutine whose first step already ran: hand its task what it waits on,
    and pass back what the task sends; its own value or exception comes out as it is. It
    has had its cancellation once and ignored it: a second one (the loop shutting down, at
    `asyncio.run`'s end) closes it for good, so a body that swallows cancellations forever
    cannot keep a program from exiting."""
    while True:
        try:
            sent = yield waiting_on
        except asyncio.CancelledError:
            _close(body)
            raise
        except BaseException as error:
            try:
                waiting_on = body.throw(error)
            except StopIteration as finished:
                return finished.value
        else:
            try:
                waiting_on = body.send(sent)
            except StopIteration as finished:
                return finished.value


def _close(body: Body) -> None:
    """Close a body for good (its caller is gone). What its clean-up raises on the way out
    ("coroutine ignored GeneratorExit", a `SystemExit` in a `finally`, any error) is the
    tool's failure, of a call that has ended already: nobody is left to hand it to."""
    try:
        body.close()
    except KeyboardInterrupt:
        raise
    except BaseException as error:
        log.warning("a tool body failed while it was closed", error_type=type(error).__name__)


def answered(
    began: Result[object, ToolError] | Awaitable[Result[object, ToolError]],
) -> TypeIs[Result[object, ToolError]]:
    """Whether `Invoker.begin` answered at once (its results are plain, never subclasses)."""
    return type(began) is Success or type(began) is Failure


def _text_of(value: object) -> str:
    """`str(value)`, or what it is when its `__str__` raises (the tool's failure still)."""
    try:
        return str(value)
    except Exception:
        return f"<unprintable {type(value).__name__}>"


def cancelled(by: str) -> Cancelled:
    return Cancelled(message=f"the call was cancelled by {by} before it finished")


def as_result(name: str, returned: object) -> Result[object, ToolError]:
    """Hold a tool to its contract: a `Result` whose failure is a `ToolError`."""
    if type(returned) is Success:  # the common case, without the ABC checks below
        return returned
    match returned:
        case Success():  # a subclass: made plain, so that `type(result) is Success` holds
            return Success(returned.unwrap())
        case Failure(ToolError() as error):
            return Failure(error)
        case Failure(BaseException() as error):  # its type and where it was raised
            return Failure(ExecutionFailed.from_exception(error))
        case Failure(other):
            return Failure(ExecutionFailed(message=_text_of(other)))
        case _:
            return Failure(
                ExecutionFailed(
                    message=f"{name} returned {type(returned).__name__}, not a Result; "
                    "return Success(value) or Failure(ToolError)"
                )
            )
