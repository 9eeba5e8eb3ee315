"""`@tool`: build a `Tool` from a function, in either of two forms.

Functional form — the body returns a `Result` itself::

    @tool
    async def search(args: SearchArgs, ctx: ExecutionContext) -> Result[list[str], ToolError]:
        ...

Plain form — a typed function; its parameters become the input model, its docstring the
description, a return value becomes `Success` and a raised exception
`Failure(ExecutionFailed)`. Sync functions (of either form) run on a daemon worker thread,
off the event loop (`core/threads.py`)::

    @tool
    def add(a: int, b: int) -> int:
        "Add two integers."
        return a + b

Either way the result is a `FunctionTool`: a `Tool`, and still the function it was made
from — `add(1, 2) == 3`, typed as the function is.
"""

from __future__ import annotations

import asyncio
import inspect
import sys
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar, get_origin, get_type_hints, overload

import pydantic
from returns.result import Failure, Result

from toolrail.core.call import is_result, success
from toolrail.core.context import ExecutionContext
from toolrail.core.docstrings import parse_docstring
from toolrail.core.errors import ExecutionFailed, ToolError
from toolrail.core.params import ParameterSchema
from toolrail.core.threads import run_sync
from toolrail.core.tool import DEFAULT_ANNOTATIONS, FunctionTool, ToolAnnotations

ModelT = TypeVar("ModelT", bound=pydantic.BaseModel)
Out = TypeVar("Out")
D = TypeVar("D")
P = ParamSpec("P")


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolOptions:
    """What `@tool(...)` may set beyond what the function itself says."""

    name: str | None = None
    description: str | None = None
    annotations: ToolAnnotations = DEFAULT_ANNOTATIONS
    permissions: Iterable[str] = ()
    tags: Iterable[str] = ()
    timeout_s: float | None = None
    describe: Callable[[Any], str] | None = None
    prompt_fragment: str | None = None
    output_schema: Mapping[str, object] | None = None

    @overload
    def __call__(
        self,
        fn: Callable[[ModelT, ExecutionContext[D]], Coroutine[Any, Any, Result[Out, ToolError]]],
        /,
    ) -> FunctionTool[
        ModelT, Out, [ModelT, ExecutionContext[D]], Coroutine[Any, Any, Result[Out, ToolError]]
    ]: ...
    @overload
    def __call__(
        self, fn: Callable[[ModelT, ExecutionContext[D]], Result[Out, ToolError]], /
    ) -> FunctionTool[ModelT, Out, [ModelT, ExecutionContext[D]], Result[Out, ToolError]]: ...
    @overload
    def __call__(
        self, fn: Callable[P, Coroutine[Any, Any, Result[Out, ToolError]]], /
    ) -> FunctionTool[Any, Out, P, Coroutine[Any, Any, Result[Out, ToolError]]]: ...
    @overload
    def __call__(
        self, fn: Callable[P, Result[Out, ToolError]], /
    ) -> FunctionTool[Any, Out, P, Result[Out, ToolError]]: ...
    @overload
    def __call__(
        self, fn: Callable[P, Coroutine[Any, Any, Out]], /
    ) -> FunctionTool[Any, Out, P, Coroutine[Any, Any, Out]]: ...
    @overload
    def __call__(self, fn: Callable[P, Out], /) -> FunctionTool[Any, Out, P, Out]: ...
    def __call__(self, fn: Callable[..., Any], /) -> FunctionTool[Any, Any, ..., Any]:
        return _build(fn, self, sys._getframe(1).f_locals)


@overload
def tool(
    fn: Callable[[ModelT, ExecutionContext[D]], Coroutine[Any, Any, Result[Out, ToolError]]], /
) -> FunctionTool[
    ModelT, Out, [ModelT, ExecutionContext[D]], Coroutine[Any, Any, Result[Out, ToolError]]
]: ...
@overload
def tool(
    fn: Callable[[ModelT, ExecutionContext[D]], Result[Out, ToolError]], /
) -> FunctionTool[ModelT, Out, [ModelT, ExecutionContext[D]], Result[Out, ToolError]]: ...
@overload
def tool(
    fn: Callable[P, Coroutine[Any, Any, Result[Out, ToolError]]], /
) -> FunctionTool[Any, Out, P, Coroutine[Any, Any, Result[Out, ToolError]]]: ...
@overload
def tool(
    fn: Callable[P, Result[Out, ToolError]], /
) -> FunctionTool[Any, Out, P, Result[Out, ToolError]]: ...
@overload
def tool(
    fn: Callable[P, Coroutine[Any, Any, Out]], /
) -> FunctionTool[Any, Out, P, Coroutine[Any, Any, Out]]: ...
@overload
def tool(fn: Callable[P, Out], /) -> FunctionTool[Any, Out, P, Out]: ...
@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    annotations: ToolAnnotations = DEFAULT_ANNOTATIONS,
    permissions: Iterable[str] = (),
    tags: Iterable[str] = (),
    timeout_s: float | None = None,
    describe: Callable[[Any], str] | None = None,
    prompt_fragment: str | None = None,
    output_schema: Mapping[str, object] | None = None,
) -> ToolOptions: ...
def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    annotations: ToolAnnotations = DEFAULT_ANNOTATIONS,
    permissions: Iterable[str] = (),
    tags: Iterable[str] = (),
    timeout_s: float | None = None,
    describe: Callable[[Any], str] | None = None,
    prompt_fragment: str | None = None,
    output_schema: Mapping[str, object] | None = None,
) -> FunctionTool[Any, Any, ..., Any] | ToolOptions:
    """Make a `Tool` from a function: `@tool` or `@tool(name=..., timeout_s=..., ...)`."""
    options = ToolOptions(
        name=name,
        description=description,
        annotations=annotations,
        permissions=permissions,
        tags=tags,
        timeout_s=timeout_s,
        describe=describe,
        prompt_fragment=prompt_fragment,
        output_schema=output_schema,
    )
    return options if fn is None else _build(fn, options, sys._getframe(1).f_locals)


def _build(
    fn: Callable[..., Any], options: ToolOptions, caller_locals: Mapping[str, Any]
) -> FunctionTool[Any, Any, ..., Any]:
    """`caller_locals` resolve annotations naming classes local to the defining function."""
    name = options.name or str(getattr(fn, "__name__", ""))
    try:
        hints = get_type_hints(fn, localns=dict(caller_locals), include_extras=True)
    except (NameError, TypeError) as error:
        raise TypeError(f"tool {name!r}: cannot resolve its type annotations: {error}") from error
    signature = inspect.signature(fn)
    doc = parse_docstring(inspect.getdoc(fn))
    description = options.description or doc.summary
    if not description:
        raise ValueError(f"tool {name!r} needs a description: add a docstring or description=")
    if _is_functional(signature, hints):
        model = hints[next(iter(signature.parameters))]
        parameters: ParameterSchema[Any] = ParameterSchema.from_model(model)
        execute = fn if inspect.iscoroutinefunction(fn) else _off_the_loop(fn)
    else:
        parameters, execute = _plain(fn, name, signature, hints, doc.params)
    return FunctionTool(
        function=fn,
        name=name,
        description=description,
        parameters=parameters,
        execute=execute,
        prompt_fragment=options.prompt_fragment,
        annotations=options.annotations,
        permissions=frozenset(options.permissions),
        tags=frozenset(options.tags),
        timeout_s=options.timeout_s,
        describe=options.describe,
        output_schema=options.output_schema,
    )


def _off_the_loop(
    fn: Callable[[Any, ExecutionContext], Any],
) -> Callable[[Any, ExecutionContext], Awaitable[Any]]:
    """A sync functional-form body, run on a worker thread like a sync plain one."""

    async def execute(args: Any, ctx: ExecutionContext) -> Any:
        ok, value = await _in_worker(fn, args, ctx)
        return value if ok else Failure(ExecutionFailed.from_exception(value))

    return execute


async def _in_worker(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> tuple[bool, Any]:
    """`(True, returned)` or `(False, raised)` from `fn` run on a worker thread. Whatever
    it raises is the tool's, `KeyboardInterrupt` included: a person's Ctrl-C reaches the
    main thread, never a worker, so it must not be re-raised there as if it were one."""

    def guarded() -> tuple[bool, Any]:
        try:
            return True, fn(*args, **kwargs)
        except BaseException as error:
            return False, error

    return await run_sync(guarded)


def _is_functional(signature: inspect.Signature, hints: dict[str, Any]) -> bool:
    """`async def f(args: SomeModel, ctx: ExecutionContext) -> Result[...]`."""
    params = list(signature.parameters)
    if len(params) != 2:
        return False
    first, second = (hints.get(p) for p in params)
    return inspect.isclass(first) and issubclass(first, pydantic.BaseModel) and _is_context(second)


def _is_context(hint: object) -> bool:
    """`ExecutionContext`, or `ExecutionContext[Deps]` for typed dependencies."""
    return hint is ExecutionContext or get_origin(hint) is ExecutionContext


def _plain(
    fn: Callable[..., Any],
    name: str,
    signature: inspect.Signature,
    hints: dict[str, Any],
    param_docs: dict[str, str],
) -> tuple[ParameterSchema[Any], Callable[[Any, ExecutionContext], Awaitable[Any]]]:
    """Input model from the parameters, and a body that turns returns/raises into Results."""
    fields: dict[str, Any] = {}
    arg_names: dict[str, str] = {}  # model field → function parameter
    ctx_param: str | None = None
    for param in signature.parameters.values():
        if _is_context(hints.get(param.name)):
            ctx_param = param.name
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD, param.POSITIONAL_ONLY):
            raise TypeError(f"tool {name!r}: parameter {param.name!r} must be a named parameter")
        if param.name not in hints:
            raise TypeError(
                f"tool {name!r}: parameter {param.name!r} needs a type annotation "
                "so the model knows what to send"
            )
        default = ... if param.default is param.empty else param.default
        # a parameter called e.g. `json` or `_x` cannot be a pydantic field name: alias it
        field_name = param.name
        alias: str | None = None
        if param.name.startswith("_") or hasattr(pydantic.BaseModel, param.name):
            field_name, alias = f"arg_{param.name.lstrip('_')}", param.name
        info = pydantic.Field(default, description=param_docs.get(param.name), alias=alias)
        fields[field_name] = (hints[param.name], info)
        arg_names[field_name] = param.name
    model = pydantic.create_model(
        "".join(part.title() for part in name.split("_")) + "Arguments",
        __config__=pydantic.ConfigDict(extra="forbid", populate_by_name=True),
        **fields,
    )
    is_async = inspect.iscoroutinefunction(fn)
    same_names = all(key == value for key, value in arg_names.items())

    async def execute(args: pydantic.BaseModel, ctx: ExecutionContext) -> Result[Any, ToolError]:
        kwargs: dict[str, Any]
        if same_names and ctx_param is None:  # the model's fields are the parameters
            kwargs = args.__dict__  # only unpacked below, never changed
        elif same_names:
            kwargs = dict(args.__dict__)
        else:
            kwargs = {arg_names[key]: value for key, value in args.__dict__.items()}
        if ctx_param is not None:
            kwargs[ctx_param] = ctx
        if not is_async:
            ok, value = await _in_worker(fn, **kwargs)
            if not ok:
                return Failure(ExecutionFailed.from_exception(value))
            return value if is_result(value) else success(value)
        try:
            value = await fn(**kwargs)
        except (KeyboardInterrupt, asyncio.CancelledError):
            raise
        except BaseException as error:  # SystemExit, GeneratorExit, ...: the tool failed
            return Failure(ExecutionFailed.from_exception(error))
        # a plain function may still return a Result itself: pass it through
        return value if is_result(value) else success(value)

    return ParameterSchema.from_model(model), execute
