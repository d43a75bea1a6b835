"""One door for a request of the JSON API: an endpoint declares its route, its body and its
answers once, on the view (:data:`api`), and the door reads the body, checks it and
describes it in the OpenAPI document (:func:`schemas`, :func:`.openapi.operation`), and
its answers' types (:mod:`.answers`) likewise.

A body is a :class:`Body`: its fields are the keys it takes, each typed as the document
shows it (with the core's constants: lengths, ranges, enums). The door refuses a body that
is not one JSON object, gives a key twice or has a key the body does not take, each with the
answers of :mod:`.errors`; the values go on as sent (``SkipValidation``) to the services and
the core, the one home of each rule, which refuse a bad one in the domain's words, the same
for the API, the pages and a phone's night. A field declared ``= needed()`` is required in
the document; when it is missing, the service says what to send.

    class Archive(Body):
        \"\"\"Put a session away, or bring it back.\"\"\"
        what: ClassVar[str] = "archiving a session"
        archived: Flag = Field(True, json_schema_extra={"default": True})

    @api.post("/sessions/<int:session_id>/archive", "Archive the session.",
              {"200": ("The session.", SessionJson)})
    def archive_session(user: User, session_id: int, body: Archive) -> Response: ...

A view whose first parameter is ``user: User`` needs a personal token
(:func:`.auth.token_required`); its parameter annotated with a :class:`Body` gets the body,
read when the view first reads it (after the token, inside the write boundary, after the
session it names is found: the answers come in the same order as when each view read its
own body).

pydantic (v2), chosen by measurement against msgspec: reading a body costs it 3 to 7 µs (msgspec
0.25 µs, the hand-written key check 0.3 µs) of the 800 µs of CPU a settle request takes,
which shows in no throughput figure (docs/benchmarks.md); and only pydantic keeps a field's
type for the document while leaving its value unchecked (``SkipValidation``), which is what
lets one declaration serve both without a second check beside the core's.
"""
from __future__ import annotations

import functools
import inspect
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import wraps
from typing import Any, ClassVar, get_type_hints

from flask import request
from flask_babel import gettext as _
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, TypeAdapter, ValidationError
from pydantic.json_schema import GenerateJsonSchema, JsonRef, JsonSchemaValue
from pydantic_core import core_schema

from ..core.errors import TonkError
from ..core.messages import Message, as_sent
from ..core.money import DuplicateKeyError, loads
from ..db.models import User
from . import bp
from .auth import token_required
from .errors import BadRequest

REF = "#/components/schemas/{model}"
NEEDED = "x-needed"
#: A field's default when it is not sent: the service's own default applies (for the
#: document: no default).
ABSENT: Any = None


def needed(**field: Any) -> Any:
    """A field the document marks required (the service says so when it is missing)."""
    return Field(None, json_schema_extra={NEEDED: True}, **field)


class Body(BaseModel):
    """A request body: the keys it takes, and for the document, what each holds."""

    model_config = ConfigDict(extra="forbid", populate_by_name=False)
    #: In "{what} has no field …", the answer to a key the body does not take.
    what: ClassVar[str] = "the body"
    #: An empty body reads as ``{}`` (else: 400, no body).
    optional: ClassVar[bool] = False
    #: The keys the document marks required, when not those of the fields declared
    #: ``= needed()`` (a body made of other bodies' fields).
    required: ClassVar[tuple[str, ...] | None] = None
    #: Examples of the body, for the document.
    examples: ClassVar[tuple[dict[str, Any], ...]] = ()
    _sent: dict[str, Any] = PrivateAttr(default_factory=dict)

    @classmethod
    def read(cls, data: dict[str, Any]) -> Any:
        """``data`` as this body, or :class:`TonkError` naming the first key (by name) it
        does not take."""
        try:
            body = cls.model_validate(data)
        except ValidationError as exc:
            unknown = sorted(str(e["loc"][0]) for e in exc.errors()
                             if e["type"] == "extra_forbidden")
            if not unknown:  # (values are not checked here: no other error can come)
                raise
            keys = sorted(cls.keys())
            said = Message("api.unknown_field", what=cls.what, field_name=as_sent(unknown[0]),
                           fields=", ".join(keys)) if keys else \
                Message("api.no_fields", what=cls.what, field_name=as_sent(unknown[0]))
            raise TonkError(said, unknown[0]) from None
        body._sent = data
        return body

    @classmethod
    def keys(cls) -> list[str]:
        return [f.alias or name for name, f in cls.model_fields.items()]

    def sent(self) -> dict[str, Any]:
        """The body as sent (keys checked), for a service that reads it whole."""
        return self._sent


class Empty(Body):
    """A change that takes no body: none, or ``{}`` (the door gives it to every POST, PUT
    and DELETE that declares no body of its own, so that none takes a key it ignores)."""

    what: ClassVar[str] = "this request"
    optional: ClassVar[bool] = True


class CoreBody(Body):
    """A body whose keys the core or the service checks itself (a hand:
    :func:`app.core.parse_hand`; pay handles), in the words it uses wherever they come
    from."""

    model_config = ConfigDict(extra="allow")


def json_body(required: bool = True) -> dict[str, Any]:
    """The request body as a JSON object, numbers with a fraction read as Decimal, never
    float. Raises :class:`BadRequest` for anything else; an empty body is ``{}`` where the
    body is not ``required``."""
    raw = request.get_data(cache=True)
    if not raw.strip() and not required:
        return {}
    if not raw.strip():
        raise BadRequest(_("the request has no body: send a JSON object"), "body")
    try:
        data = loads(raw)
    except DuplicateKeyError as exc:
        raise BadRequest(_("the body gives %(path)s twice: send each key once",
                           path=exc.path), exc.path) from None
    except json.JSONDecodeError as exc:
        raise BadRequest(_("the body is not valid JSON at line %(line)s, column %(column)s: "
                           "%(error)s", line=exc.lineno, column=exc.colno, error=exc.msg),
                         "body") from None
    except (ValueError, RecursionError) as exc:  # NaN, not UTF-8, nested too deeply
        raise BadRequest(_("the body is not valid JSON: %(error)s",
                           error=str(exc)[:120] or "too deep"), "body") from None
    if not isinstance(data, dict):
        raise BadRequest(_("the body must be a JSON object"), "body")
    return data


# -- endpoints -------------------------------------------------------------------------------

#: An answer: (description, what its body is: an answer's type (:mod:`.answers`, or a list of
#: one), a body's schema by name, or None for no body; and its headers, if any), or the OpenAPI
#: response object itself.
Answer = tuple[str, Any] | tuple[str, Any, Mapping[str, Any]] | Mapping[str, Any]


@dataclass(frozen=True)
class Endpoint:
    """What the document says of one operation."""

    path: str  # as OpenAPI writes it: /api/v1/sessions/{session_id}
    method: str
    summary: str
    answers: Mapping[str, Answer]
    body: type[Body] | None
    signed_in: bool
    params: tuple[Mapping[str, Any], ...]
    change: bool


ENDPOINTS: list[Endpoint] = []
_RULE_PART = re.compile(r"<(?:(\w+):)?(\w+)>")


def _body_of(view: Callable[..., Any], hints: Mapping[str, Any]
             ) -> tuple[str, type[Body]] | None:
    for name in inspect.signature(view).parameters:
        kind = hints.get(name)
        if isinstance(kind, type) and issubclass(kind, Body):
            return name, kind
    return None


class Door:
    """Routes of the API blueprint that declare their body and answers (see the module)."""

    def route(self, rule: str, method: str, summary: str, answers: Mapping[str, Answer],
              params: tuple[Mapping[str, Any], ...] = (), *, change: bool | None = None
              ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def register(view: Callable[..., Any]) -> Callable[..., Any]:
            hints = get_type_hints(view)
            declared = _body_of(view, hints)
            first = next(iter(inspect.signature(view).parameters), None)
            signed_in = first is not None and hints.get(first) is User
            body: tuple[str | None, type[Body]] | None = declared
            if body is None and method != "GET":  # a change takes no key it would ignore
                body = (None, Empty)
            door = view if body is None else _reading(view, *body)
            if signed_in:
                door = token_required(door)
            bp.add_url_rule(rule, view.__name__, door, methods=[method])
            ENDPOINTS.append(Endpoint(
                _RULE_PART.sub(r"{\2}", (bp.url_prefix or "") + rule), method.lower(),
                summary, answers, body[1] if body else None, signed_in, params,
                method != "GET" if change is None else change))
            return door
        return register

    def get(self, rule: str, summary: str, answers: Mapping[str, Answer],
            params: tuple[Mapping[str, Any], ...] = ()
            ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return self.route(rule, "GET", summary, answers, params)

    def post(self, rule: str, summary: str, answers: Mapping[str, Answer],
             params: tuple[Mapping[str, Any], ...] = (), *, change: bool | None = None
             ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return self.route(rule, "POST", summary, answers, params, change=change)

    def put(self, rule: str, summary: str, answers: Mapping[str, Answer],
            params: tuple[Mapping[str, Any], ...] = ()
            ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return self.route(rule, "PUT", summary, answers, params)

    def delete(self, rule: str, summary: str, answers: Mapping[str, Answer],
               params: tuple[Mapping[str, Any], ...] = ()
               ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return self.route(rule, "DELETE", summary, answers, params)


api = Door()


class _Later:
    """A view's body, read and checked as ``kind`` when the view first reads it: after the
    session (or league, or event) it names is found and open, so that a request for none
    answers 404 (a closed one 409) whatever its body, as a view that read its body itself
    did."""

    def __init__(self, kind: type[Body]) -> None:
        self._kind: type[Body] = kind
        self._body: Body | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._checked(), name)

    def _checked(self) -> Body:
        """The body, read and checked now if it was not yet (a name no body's field has)."""
        if self._body is None:
            self._body = self._kind.read(json_body(required=not self._kind.optional))
        return self._body


def _reading(view: Callable[..., Any], name: str | None, kind: type[Body]
             ) -> Callable[..., Any]:
    """``view`` given its body (:class:`_Later`; ``name`` None: a view that takes none,
    :class:`Empty`). A body the view has not read by the time it returns is read and checked
    then: a bad one is refused all the same, and what the view changed is rolled back by the
    write boundary around it."""
    @wraps(view)
    def with_body(*args: Any, **kwargs: Any) -> Any:
        body = _Later(kind)
        if name is not None:
            kwargs[name] = body
        answer = view(*args, **kwargs)
        body._checked()  # (not read by the view: checked all the same)
        return answer
    return with_body


# -- the document ----------------------------------------------------------------------------

#: What a class's name ends in that its schema's name does not: a body's ``Body`` where the name
#: alone is a class of the core's or the database's (``HandBody``: ``Hand``), an answer's
#: ``Json`` (``SessionJson``: ``Session``); no two classes of the app share a name
#: (tests/test_names.py).
_SUFFIXES = ("Body", "Json")


def _bare(name: str) -> str:
    for suffix in _SUFFIXES:
        name = name.removesuffix(suffix) or name
    return name


def schema_name(kind: type) -> str:
    """A body's (or an answer's) name in the document."""
    return _bare(kind.__name__)


class _Document(GenerateJsonSchema):
    """Bodies as the document shows them: no titles, defaults only where a field says one
    (a missing value is the service's to fill), required fields from :func:`needed`, no key
    but the declared ones; each by its :func:`schema_name`."""

    def normalize_name(self, name: str) -> str:
        return _bare(super().normalize_name(name))

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def handle_ref_overrides(self, json_schema: JsonSchemaValue) -> JsonSchemaValue:
        ref = json_schema.get("$ref")  # a schema of the document's own (Rules): as it is
        if ref is not None and JsonRef(ref) not in self.json_to_defs_refs:
            return json_schema
        return super().handle_ref_overrides(json_schema)

    def dict_schema(self, schema: core_schema.DictSchema) -> JsonSchemaValue:
        """A mapping by name: its keys' schema as ``propertyNames``."""
        out: dict[str, Any] = {"type": "object"}
        if "keys_schema" in schema:
            out["propertyNames"] = self.generate_inner(schema["keys_schema"])
        if "values_schema" in schema:
            out["additionalProperties"] = self.generate_inner(schema["values_schema"])
        return out

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        return self.generate_inner(schema["schema"])

    def typed_dict_schema(self, schema: core_schema.TypedDictSchema) -> JsonSchemaValue:
        out = super().typed_dict_schema(schema)
        out.pop("title", None)
        return out

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        out = super().model_schema(schema)
        cls = schema["cls"]
        out.pop("title", None)
        if issubclass(cls, Body):
            properties = out.get("properties", {})
            required = [key for key, value in properties.items() if value.pop(NEEDED, False)]
            required = required if cls.required is None else list(cls.required)
            out = {"type": "object", **({"required": required} if required else {}),
                   **{k: v for k, v in out.items() if k != "type"}}
            out["additionalProperties"] = False  # (a key it does not take: 422)
            if cls.examples:
                out["examples"] = list(cls.examples)
        return out


def _is_kind(given: Any) -> bool:
    """An answer's body given as a type (not a schema's name, a schema, or none)."""
    return not (given is None or isinstance(given, (str, Mapping)))


def schemas(extra: tuple[type[BaseModel], ...] = (), answers: tuple[Any, ...] = ()
            ) -> tuple[dict[str, Any], dict[Any, Any]]:
    """The schemas of every declared body and answer (and of ``extra`` bodies and
    ``answers``), by name, and each answer's type's own schema (a reference, or a list of
    one): made once, handed out afresh (the caller may change them)."""
    bodies = {e.body for e in ENDPOINTS if e.body is not None} | set(extra)
    answers = tuple(sorted({given[1] for e in ENDPOINTS for given in e.answers.values()
                            if isinstance(given, tuple) and _is_kind(given[1])} | set(answers),
                           key=repr))
    made = json.loads(_schemas_of(tuple(sorted(bodies, key=schema_name)), answers))
    return made["schemas"], dict(zip(answers, made["answers"], strict=True))


@functools.cache
def _schemas_of(bodies: tuple[type[BaseModel], ...], answers: tuple[Any, ...]) -> str:
    inputs = [(kind, "validation", TypeAdapter(kind)) for kind in bodies] + [
        (kind, "serialization", TypeAdapter(kind)) for kind in answers]
    tops, found = TypeAdapter.json_schemas(inputs, ref_template=REF, schema_generator=_Document)
    return json.dumps({"schemas": found.get("$defs", {}),
                       "answers": [tops[(kind, "serialization")] for kind in answers]})


def request_body(endpoint: Endpoint) -> dict[str, Any] | None:
    """An endpoint's body in the document: its schema by name."""
    if endpoint.body is None:
        return None
    return {"required": not endpoint.body.optional, "content": {"application/json": {
        "schema": {"$ref": REF.format(model=schema_name(endpoint.body))}}}}
