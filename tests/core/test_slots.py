"""`fast_init` keeps what a frozen dataclass promises: parameters, defaults, factories,
equality and immutability."""

from __future__ import annotations

import dataclasses
import inspect
import typing
from datetime import UTC, datetime

import pytest
from returns.result import Success

from toolrail import ExecutionContext, ToolCall
from toolrail.core._slots import constructor, fast_init
from toolrail.core.call import ToolOutcome, success
from toolrail.recording.events import ToolCompleted, ToolStarted


def _made_plainly(**fields: object) -> object:
    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class Plain:
        a: int
        b: str = "b"
        c: list[int] = dataclasses.field(default_factory=list)

    return Plain(**fields)  # type: ignore[arg-type]


@fast_init
@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Fast:
    a: int
    b: str = "b"
    c: list[int] = dataclasses.field(default_factory=list)


def test_defaults_and_factories_as_a_dataclass_gives_them() -> None:
    one, other = Fast(a=1), Fast(a=1)
    assert (one.a, one.b, one.c) == (1, "b", [])
    assert one.c is not other.c  # a fresh default per instance
    assert Fast(a=2, b="x", c=[3]) == Fast(a=2, b="x", c=[3])
    assert repr(Fast(a=1)) == repr(_made_plainly(a=1)).replace(
        "_made_plainly.<locals>.Plain", "Fast"
    )


def test_still_frozen_and_keyword_only() -> None:
    made = Fast(a=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.a = 2  # type: ignore[misc]
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'a'"):
        Fast()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Fast(1)  # type: ignore[call-arg]
    plain = type(_made_plainly(a=1))
    assert inspect.signature(Fast) == inspect.signature(plain)  # types and defaults shown
    assert (
        str(inspect.signature(Fast))
        == "(*, a: 'int', b: 'str' = 'b', c: 'list[int]' = <factory>) -> None"
    )
    assert typing.get_type_hints(Fast.__init__) == typing.get_type_hints(plain.__init__)


def test_the_types_made_on_every_call_use_it() -> None:
    ctx = ExecutionContext().for_call("c1")
    call = ToolCall(name="t", id="c1")
    assert call.arguments is None
    assert ToolCall(name="t").id.startswith("call_")  # its factory, each call its own id
    assert ToolCall(name="t").id != ToolCall(name="t").id
    assert str(inspect.signature(ToolCall)) == (
        "(*, name: 'str', arguments: 'RawArguments' = None, id: 'str' = <factory>) -> None"
    )
    assert typing.get_type_hints(ToolCall.__init__)["name"] is str  # read in its module
    with pytest.raises(dataclasses.FrozenInstanceError):
        call.name = "x"  # type: ignore[misc]
    outcome = ToolOutcome(
        call=call, result=Success(1), started_at=datetime.now(UTC), duration_ms=1.0
    )
    assert outcome.metadata == {}
    assert outcome.attempts == 1
    assert dataclasses.replace(outcome, attempts=2).attempts == 2
    started = ToolStarted(call_id="c1", tool="t", context=ctx, arguments=None)
    assert started.at.tzinfo is UTC
    assert started.agent == "default"
    with pytest.raises(dataclasses.FrozenInstanceError):
        ToolCompleted(call_id="c1", tool="t", context=ctx, outcome=outcome).tool = "x"  # type: ignore[misc]


def test_refuses_what_it_cannot_make_faithfully() -> None:
    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        a: int = 0

    with pytest.raises(TypeError, match="frozen slots dataclass"):
        fast_init(NoSlots)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Checked:
    text: str
    n: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", self.text.upper())


def test_a_constructor_sets_the_fields_and_skips_only_post_init() -> None:
    make = constructor(Checked)
    made = make(text="as given")
    assert (made.text, made.n) == ("as given", 1)
    assert Checked(text="as given").text == "AS GIVEN"  # the class itself still checks
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.n = 2  # type: ignore[misc]


@pytest.mark.parametrize("value", [None, 0, "x", [1], Success(2), {"a": (1,)}])
def test_success_is_returns_own_success(value: object) -> None:
    made = success(value)
    assert type(made) is Success
    assert made == Success(value)
    if not isinstance(value, list | dict):
        assert hash(made) == hash(Success(value))
    assert repr(made) == repr(Success(value))
    assert made.unwrap() is value
    match made:
        case Success(inner):
            assert inner is value
        case _:  # pragma: no cover
            pytest.fail("not matched as a Success")
    with pytest.raises(AttributeError):
        made._inner_value = 1  # immutable, as returns makes it
