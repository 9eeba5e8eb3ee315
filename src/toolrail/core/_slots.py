"""`fast_init`: the `__init__` of a frozen slots dataclass, minus the cost of being frozen;
`constructor`: the same as a plain function, minus the cost of calling a class too.

A frozen dataclass's generated `__init__` sets each field with `object.__setattr__(self,
name, value)`, which looks the slot up by name every time: about three times what setting the
slot costs. The types made on every tool call (`ToolOutcome`, the call events) take this
`__init__` instead: the same parameters, defaults and factories, each field set through its
slot descriptor. The class stays frozen — assignment still raises `FrozenInstanceError`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_NO_DEFAULT: Any = dataclasses.MISSING


class _Factory:
    """Stands for a field's default factory in the signature, as dataclasses shows it."""

    def __repr__(self) -> str:
        return "<factory>"


def fast_init(cls: type[T]) -> type[T]:
    """Replace the dataclass `cls`'s `__init__` (frozen, slots, keyword-only fields, no
    `__post_init__`) by one that sets its slots directly."""
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"fast_init needs a dataclass without __post_init__: {cls}")
    init = _slot_setting(cls, "__init__", "self, ", "")
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    init.__annotations__ = dict(cls.__init__.__annotations__)  # its fields' types, read
    init.__wrapped__ = cls.__init__  # type: ignore[attr-defined]  # in the class's module
    cls.__init__ = init  # type: ignore[method-assign]
    return cls


def constructor(cls: type[T]) -> Callable[..., T]:
    """A function making instances of the dataclass `cls` (frozen, slots, keyword-only
    fields) as `cls(...)` does — the same keyword parameters, defaults and factories — but
    without calling the class, and without `__post_init__`: for a caller on a hot path, or
    one that has done that work already (the stream handler redacts each line's text once,
    where it is made)."""
    return _slot_setting(cls, "make", "", "    self = _new(_cls)\n", "    return self")


def _slot_setting(
    cls: type[T], name: str, first: str, prologue: str, epilogue: str = ""
) -> Callable[..., Any]:
    """A function `name(first*, <the fields>)` that sets each field's slot, with the
    dataclass's defaults and factories (made as dataclasses itself makes `__init__`)."""
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    if not (params.frozen and "__slots__" in cls.__dict__):
        raise TypeError(f"needs a frozen slots dataclass: {cls}")
    namespace: dict[str, Any] = {"_missing": _Factory(), "_new": object.__new__, "_cls": cls}
    signature, body = [], []
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        if not field.init or not field.kw_only:
            raise TypeError(f"needs keyword-only init fields: {cls}.{field.name}")
        field_name = field.name
        namespace[f"_set_{field_name}"] = getattr(cls, field_name).__set__
        if field.default is not _NO_DEFAULT:
            namespace[f"_default_{field_name}"] = field.default
            signature.append(f"{field_name}=_default_{field_name}")
        elif field.default_factory is not _NO_DEFAULT:
            namespace[f"_factory_{field_name}"] = field.default_factory
            signature.append(f"{field_name}=_missing")
            body.append(f"    if {field_name} is _missing: {field_name} = _factory_{field_name}()")
        else:
            signature.append(field_name)
        body.append(f"    _set_{field_name}(self, {field_name})")
    source = (
        f"def {name}({first}*, {', '.join(signature)}):\n{prologue}"
        + "\n".join(body)
        + (f"\n{epilogue}" if epilogue else "")
    )
    exec(source, namespace)
    made: Callable[..., Any] = namespace[name]
    return made
