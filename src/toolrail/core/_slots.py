"""`fast_init`: the `__init__` of a frozen slots dataclass, minus the cost of being frozen.

A frozen dataclass's generated `__init__` sets each field with `object.__setattr__(self,
name, value)`, which looks the slot up by name every time: about three times what setting the
slot costs. The types made on every tool call (`ToolOutcome`, the call events) take this
`__init__` instead: the same parameters, defaults and factories, each field set through its
slot descriptor. The class stays frozen — assignment still raises `FrozenInstanceError`.
"""

from __future__ import annotations

import dataclasses
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
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    if not (params.frozen and "__slots__" in cls.__dict__) or hasattr(cls, "__post_init__"):
        raise TypeError(f"fast_init needs a frozen slots dataclass without __post_init__: {cls}")
    namespace: dict[str, Any] = {"_missing": _Factory()}
    signature, body = [], []
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        if not field.init or not field.kw_only:
            raise TypeError(f"fast_init needs keyword-only init fields: {cls}.{field.name}")
        name = field.name
        namespace[f"_set_{name}"] = getattr(cls, name).__set__
        if field.default is not _NO_DEFAULT:
            namespace[f"_default_{name}"] = field.default
            signature.append(f"{name}=_default_{name}")
        elif field.default_factory is not _NO_DEFAULT:
            namespace[f"_factory_{name}"] = field.default_factory
            signature.append(f"{name}=_missing")
            body.append(f"    if {name} is _missing: {name} = _factory_{name}()")
        else:
            signature.append(name)
        body.append(f"    _set_{name}(self, {name})")
    source = f"def __init__(self, *, {', '.join(signature)}):\n" + "\n".join(body)
    exec(source, namespace)  # how dataclasses itself makes `__init__`
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls
