"""A tool's input schema: raw arguments in, validated input or `InvalidArguments` out.

Two kinds share one interface: `PydanticParameters` for tools written in Python and
`JsonSchemaParameters` for tools that arrive as JSON Schema (MCP servers, config files).
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from itertools import islice
from typing import Any, Generic, TypeVar

import jsonschema_rs
import orjson
import pydantic
import pydantic_core
from pydantic_core import ErrorDetails
from returns.result import Failure, Result, Success

from toolrail.core._refused import Quoting, without_secrets
from toolrail.core.call import RawArguments
from toolrail.core.declared import masked, model_names, secret_names
from toolrail.core.errors import MAX_LISTED_ISSUES, ArgumentIssue, InvalidArguments
from toolrail.core.hidden import NOTHING, read_arguments
from toolrail.core.redact import REDACTED, is_secret_key, redact, redact_name, redact_text

In = TypeVar("In")
ModelT = TypeVar("ModelT", bound=pydantic.BaseModel)
JsonObject = dict[str, object]

_MAX_SHOWN_INPUT = 60
_MAX_FOUND = 1000
"""A JSON Schema validation stops counting issues past this many (each costs an object)."""


class ParameterSchema(abc.ABC, Generic[In]):
    """Validates raw arguments into `In`, and exports the JSON Schema a model is shown."""

    @abc.abstractmethod
    def check(self, raw: RawArguments, *, tool: str = "") -> In | InvalidArguments:
        """Raw arguments (JSON text, a mapping, or None) → validated input or every issue.

        The executor's hot path; `validate` is the same answer as a `Result`."""

    def validate(self, raw: RawArguments, *, tool: str = "") -> Result[In, InvalidArguments]:
        """Turn raw arguments (JSON text, a mapping, or None) into validated input."""
        checked = self.check(raw, tool=tool)
        if isinstance(checked, InvalidArguments):
            return Failure(checked)
        return Success(checked)

    @abc.abstractmethod
    def json_schema(self) -> JsonObject:
        """The input schema as a JSON Schema object (Draft 2020-12)."""

    @property
    def secret_names(self) -> frozenset[str]:
        """The parameters its schema declares secret, at any depth (`toolrail.core.declared`):
        their values are masked in every record of a call. (Read on every call: a schema
        of one's own should cache it.)"""
        try:
            return secret_names(self.json_schema())
        except Exception:  # a schema that cannot be made declares nothing
            return frozenset()

    @staticmethod
    def from_model(model: type[ModelT]) -> PydanticParameters[ModelT]:
        """Parameters validated by a pydantic model."""
        return PydanticParameters(model)

    @staticmethod
    def from_json_schema(schema: Mapping[str, object]) -> JsonSchemaParameters:
        """Parameters validated by a raw JSON Schema; raises `ValueError` if it is malformed."""
        return JsonSchemaParameters(schema)


def _path(loc: Iterable[int | str], *, quoted: bool = False) -> str:
    """`('items', 2, 'qty')` → `$.items[2].qty`, or `$['items'][2]['qty']` when `quoted`.
    Each key as the one policy shows a name (`redact_name`): a secret a model wrote as a
    key (`{"sk-...": 1}`) never comes back in the path."""
    out = "$"
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif quoted:
            escaped = redact_name(str(part)).replace("\\", "\\\\").replace("'", "\\'")
            out += f"['{escaped}']"
        else:
            out += f".{redact_name(str(part))}"
    return out


def _issue(loc: Iterable[int | str], message: str, path: str | None = None) -> ArgumentIssue:
    """The issue at `loc` (written `path`, when the validator wrote it already and no key
    in it needs redacting). `InvalidArguments` lists it as `- {path}: {message}`, a line
    every sink, log and server redacts again; where the one policy would not leave that
    line as it is (it reads `$.token: required field is missing` as a token's value, and
    hides the advice), the path is written `$['token']`, which it never reads so. The
    model still learns which field, and what to do about it."""
    loc = tuple(loc)
    if path is None or any(isinstance(p, str) and redact_name(p) != p for p in loc):
        path = _path(loc)
    issue = ArgumentIssue(path=path, message=message)
    line = f"- {issue}"
    if redact_text(line) == line:
        return issue
    return ArgumentIssue(path=_path(loc, quoted=True), message=message)


def _shown(redacted: object) -> str:
    """A rejected value as a model may see it again: redacted (`redact`, or `Quoting.at`
    where the arguments around it count), and short."""
    try:
        text = repr(redacted)
    except RecursionError:
        return f"a {type(redacted).__name__} nested too deep to show"
    except Exception:  # a value of a type whose `repr` raises
        return f"a {type(redacted).__name__} that cannot be shown"
    return text if len(text) <= _MAX_SHOWN_INPUT else text[: _MAX_SHOWN_INPUT - 1] + "…"


def _in_order(loc: Iterable[int | str]) -> list[tuple[bool, int | str]]:
    """A sort key for issue locations: fields by name, items by number ($.xs[2] before
    $.xs[10]), so the issues listed first are the first in the arguments."""
    return [(isinstance(part, str), part) for part in loc]


def _json_issue(error: Exception) -> ArgumentIssue:
    return ArgumentIssue(
        path="$", message=f"arguments are not valid JSON ({error}); send one JSON object"
    )


def _not_an_object(value: object) -> ArgumentIssue:
    shown = _shown(redact(value))
    return ArgumentIssue(
        path="$", message=f"arguments must be a JSON object, got {type(value).__name__} {shown}"
    )


def _decode(raw: RawArguments) -> Result[object, ArgumentIssue]:
    """Raw arguments → a Python value; empty text and None mean "no arguments"."""
    if raw is None:
        return Success({})
    if isinstance(raw, str | bytes):
        if not raw.strip():
            return Success({})
        try:
            return Success(orjson.loads(raw))
        except orjson.JSONDecodeError as error:
            return Failure(_json_issue(error))
    return Success(raw)


class PydanticParameters(ParameterSchema[ModelT]):
    """Validation by a pydantic model; unknown top-level fields are refused unless the model
    itself says how to treat them (`model_config["extra"]`)."""

    __slots__ = ("_own_json", "_strict_model", "model")

    def __init__(self, model: type[ModelT]) -> None:
        self.model = model
        self._strict_model: type[ModelT] = (
            model
            if "extra" in model.model_config
            else type(model.__name__, (model,), {"model_config": {"extra": "forbid"}})
        )
        self._own_json = (
            model.model_validate_json.__func__  # type: ignore[attr-defined]
            is not pydantic.BaseModel.model_validate_json.__func__  # type: ignore[attr-defined]
        )

    def check(self, raw: RawArguments, *, tool: str = "") -> ModelT | InvalidArguments:
        try:
            if (type(raw) is str or isinstance(raw, str | bytes)) and raw and not raw.isspace():
                # pydantic parses JSON itself, faster than decoding first (its validator
                # straight away, unless the model has a `model_validate_json` of its own)
                if self._own_json:
                    return self._strict_model.model_validate_json(raw)
                validated: ModelT = self._strict_model.__pydantic_validator__.validate_json(raw)
                return validated
            blank = raw is None or isinstance(raw, str | bytes)
            return self._strict_model.model_validate({} if blank else raw)
        except pydantic.ValidationError as error:
            details = error.errors(include_url=False)
            declared = self.secret_names
            quoting = Quoting(masked(read_arguments(raw), declared))
            listed = [
                _pydantic_issue(detail, quoting, declared) for detail in details[:MAX_LISTED_ISSUES]
            ]
            return InvalidArguments.of(tool, listed, found=len(details))
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # a validator of the tool's own raised something else
            return InvalidArguments.of(tool, (_validator_raised(error),))

    def json_schema(self) -> JsonObject:
        return dict(self._schema)

    @property
    def secret_names(self) -> frozenset[str]:
        return self._secret_names

    @cached_property
    def _secret_names(self) -> frozenset[str]:
        try:
            schema = self._schema
        except Exception:  # a model with no JSON Schema: only secret names are known
            return frozenset()
        return model_names(self.model, secret_names(schema))

    @cached_property
    def _schema(self) -> JsonObject:
        schema: JsonObject = self._strict_model.model_json_schema()
        schema.pop("title", None)
        return schema

    def __repr__(self) -> str:
        return f"PydanticParameters({self.model.__name__})"


def _validator_raised(error: BaseException) -> ArgumentIssue:
    """An issue for a validator that raised instead of refusing: its type, never the value."""
    return ArgumentIssue(
        path="$", message=f"the tool's validation raised {type(error).__name__}; check the input"
    )


def _pydantic_issue(
    detail: ErrorDetails, quoting: Quoting, declared: frozenset[str]
) -> ArgumentIssue:
    match detail["type"]:
        case "json_invalid":
            return _json_issue(ValueError(detail["msg"].removeprefix("Invalid JSON: ")))
        case "model_type" | "model_attributes_type" if not detail["loc"]:
            return _not_an_object(detail["input"])
        case "missing":
            message = "required field is missing"
        case "extra_forbidden":
            message = "unexpected field; remove it"
        case _ if _names_a_secret(detail["loc"], declared):  # never a secret's rejected value
            message = _pydantic_wording(detail, REDACTED, quoting, secret=True)  # all of it goes
        case _:
            shown = quoting.at(detail["loc"], detail["input"])
            message = f"{_pydantic_wording(detail, shown, quoting)} (got {_shown(shown)})"
    return _issue(detail["loc"], message)


def _pydantic_wording(
    detail: ErrorDetails, shown: object, quoting: Quoting, secret: bool = False
) -> str:
    """pydantic's message without the text of a secret it may quote. One of pydantic's own
    is its template filled from the error's context, and only the context can quote the
    input (a validator's `ValueError`, a parser's complaint): the secret is taken out of
    the context, and the template's own words stay as they are, whatever the secret was
    (a password "valid" left `Input should be a [REDACTED] integer`). A message of any
    other making (a custom error type) loses the secret wherever it is. `shown`: the
    refused value as the arguments' redacted copy shows it (`Quoting.at`). Words of the
    tool's own validator (the exception it raised, a custom error) may quote other fields
    (`info.data`): they also lose what the arguments hide anywhere (`Quoting.hidden`)."""
    message, refused, ctx = detail["msg"], detail["input"], detail.get("ctx")
    try:
        known = pydantic_core.PydanticKnownError(detail["type"], ctx)  # type: ignore[arg-type]
        if known.message() != message:
            raise ValueError(message)
        if not ctx:
            return message  # the template alone: nothing of the input is in it
        scrubbed = {
            key: without_secrets(
                str(value),
                refused,
                shown,
                secret=secret,
                elsewhere=quoting.hidden() if isinstance(value, BaseException) else NOTHING,
            )
            if isinstance(value, str | BaseException)
            else value
            for key, value in ctx.items()
        }
        return str(pydantic_core.PydanticKnownError(detail["type"], scrubbed).message())  # type: ignore[arg-type]
    except Exception:  # not one of pydantic's own messages
        return without_secrets(message, refused, shown, secret=secret, elsewhere=quoting.hidden())


def _names_a_secret(loc: Iterable[object], declared: frozenset[str]) -> bool:
    """A path through a field named secret, or declared so by the tool's schema."""
    return any(isinstance(part, str) and (part in declared or is_secret_key(part)) for part in loc)


@dataclass(frozen=True, slots=True)
class JsonSchemaParameters(ParameterSchema[JsonObject]):
    """Validation by a raw JSON Schema (Draft 2020-12 unless the schema names another).

    jsonschema is the authority and words the issues; jsonschema-rs, about fifty times
    faster, answers the common case first: arguments it accepts go straight through.
    """

    schema: Mapping[str, object]
    _validator: Any = field(init=False, repr=False, compare=False)
    _fast: Any = field(init=False, repr=False, compare=False)
    _secret_names: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        import jsonschema  # here, not at the top: `import toolrail` should not pay for it
        from jsonschema.exceptions import SchemaError

        validator_class = jsonschema.validators.validator_for(
            self.schema, default=jsonschema.Draft202012Validator
        )
        try:
            validator_class.check_schema(dict(self.schema))
        except SchemaError as error:
            raise ValueError(f"invalid JSON Schema for tool input: {error.message}") from error
        object.__setattr__(self, "_validator", validator_class(self.schema))
        try:
            fast = jsonschema_rs.validator_for(dict(self.schema))
        except Exception:  # a schema only the reference implementation handles
            fast = None
        object.__setattr__(self, "_fast", fast)
        object.__setattr__(self, "_secret_names", secret_names(self.schema))

    def check(self, raw: RawArguments, *, tool: str = "") -> JsonObject | InvalidArguments:
        decoded = _decode(raw)
        if isinstance(decoded, Failure):
            return InvalidArguments.of(tool, (decoded.failure(),))
        value = decoded.unwrap()
        if not isinstance(value, Mapping):
            return InvalidArguments.of(tool, (_not_an_object(value),))
        arguments = dict(value)
        try:
            if self._fast is not None and self._fast.is_valid(arguments):
                return arguments
            first = islice(self._validator.iter_errors(arguments), _MAX_FOUND + 1)
            errors = sorted(first, key=lambda e: _in_order(e.absolute_path))
        except Exception as error:  # a schema jsonschema cannot apply (bad regex, deep refs)
            issue = ArgumentIssue(path="$", message=f"could not check arguments: {error}")
            return InvalidArguments.of(tool, (issue,))
        if errors:
            declared = self._secret_names
            quoting = Quoting(masked(arguments, declared))
            listed = [
                _issue(e.absolute_path, _message(e, quoting, declared), e.json_path)
                for e in errors[:MAX_LISTED_ISSUES]
            ]
            more = len(errors) > _MAX_FOUND
            return InvalidArguments.of(
                tool, listed, found=min(len(errors), _MAX_FOUND), at_least=more
            )
        return arguments

    def json_schema(self) -> JsonObject:
        return dict(self.schema)

    @property
    def secret_names(self) -> frozenset[str]:
        return self._secret_names


def _message(error: Any, quoting: Quoting, declared: frozenset[str]) -> str:
    """jsonschema's wording of an issue, without a secret field's rejected value nor any
    secret inside what it quotes (the rest is redacted by `ArgumentIssue` itself, as every
    issue's message is)."""
    message, refused = str(error.message), error.instance
    if error.validator in _NAMES_ONLY:  # quotes the names, never a value under them
        if isinstance(refused, Mapping):  # long names shown short: "... was unexpected" stays
            for name in refused:
                if isinstance(name, str) and len(name) > _MAX_SHOWN_INPUT:
                    message = message.replace(repr(name), _shown(redact(name)))
        return message
    secret = _names_a_secret(error.absolute_path, declared)
    shown = quoting.at(error.absolute_path, refused)
    quoted = repr(refused)  # jsonschema's own spelling of what it refused
    if len(quoted) > _MAX_SHOWN_INPUT and quoted in message:
        # a secret field's long value hidden whole, any other shown short (redacted first):
        # the verdict after it ("is too long") stays within the issue's bound
        hidden = repr(REDACTED) if isinstance(refused, str) else REDACTED
        message = message.replace(quoted, hidden if secret else _shown(shown))
    return without_secrets(message, refused, shown, secret=secret)


# keywords whose messages name properties and quote none of their values (`Additional
# properties are not allowed ('password' was unexpected)`): a value that is also one of
# their words ("was") is not in them; the names are redacted as any issue's text is
_NAMES_ONLY = frozenset({"additionalProperties", "unevaluatedProperties", "required"})
