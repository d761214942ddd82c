"""The OpenAPI contract of the API: stable operation ids and the error statuses routes give.

Two things ninja-extra does not do for us, done here once for every route (ADR 0010):

* **Operation ids** are `<controller>_<function>` in snake case (`auth_register`,
  `event_admin_event_update_event`), derived from names in the code, never random, so a
  generated client keeps its method names from one start to the next. ninja-extra's own
  default appends a fresh `uuid4` fragment at every import.
* **Error statuses** that do not depend on what a route does but on how it is reached —
  401 for a token, 403/404 on the admin trees, 404 for path objects and pages, 400/422/
  413/415 for bad input, 429 for throttled writes, 503 when the database is busy or
  down — are added to every operation they apply to, derived from the operation itself
  (its auth, throttles, parameters, body and path). Routes declare only what is theirs:
  the success body and domain statuses such as 409 or an eligibility 400. Every error is
  the `{detail, code}` shape of docs/spec/api.md (`common.api.ErrorSchema`), with `errors` for 400
  and 422.
"""

import logging
import re
from enum import Enum
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from ninja.openapi.schema import OpenAPISchema
from ninja.operation import Operation
from ninja.security import HttpBearer
from ninja_extra import NinjaExtraAPI
from pydantic import WithJsonSchema

from common.http.guards import WRITE_METHODS

logger = logging.getLogger("encore.api")

ADMIN_PREFIXES = ("/event-admin/", "/organization-admin/")

ERROR_REF = "#/components/schemas/ErrorSchema"
INVALID_REF = "#/components/schemas/InvalidRequestSchema"

#: Component schemas this module adds; `ErrorSchema` mirrors `common.api.ErrorSchema`.
ERROR_COMPONENTS: dict[str, dict[str, Any]] = {
    "ErrorSchema": {
        "title": "ErrorSchema",
        "type": "object",
        "properties": {
            "detail": {"title": "Detail", "type": "string"},
            "code": {"title": "Code", "type": "string"},
        },
        "required": ["detail", "code"],
    },
    "InvalidRequestSchema": {
        "title": "InvalidRequestSchema",
        "description": "A refused request: `errors` maps each field to its messages "
        "(`non_field_errors` for the request as a whole) when fields are at fault.",
        "type": "object",
        "properties": {
            "detail": {"title": "Detail", "type": "string"},
            "code": {"title": "Code", "type": "string"},
            "errors": {
                "title": "Errors",
                "type": "object",
                "additionalProperties": {"type": "array", "items": {"type": "string"}},
            },
        },
        "required": ["detail", "code"],
    },
}

RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds to wait before trying again.",
        "required": True,
        "schema": {"type": "integer", "minimum": 1},
    }
}

#: status → (description, schema ref, response headers).
STANDARD_ERRORS: dict[int, tuple[str, str, dict[str, Any] | None]] = {
    400: (
        "Invalid input (`invalid`, with `errors` per field) or a refusal of the domain.",
        INVALID_REF,
        None,
    ),
    401: (
        "No token, or an invalid or expired one (`not_authenticated`, `token_not_valid`).",
        ERROR_REF,
        None,
    ),
    403: ("Visible, but the caller lacks the permission (`permission_denied`).", ERROR_REF, None),
    404: (
        "The object is missing or invisible to the caller, or the page is past the end "
        "(`not_found`).",
        ERROR_REF,
        None,
    ),
    413: ("The body is over the size limit (`too_large`).", ERROR_REF, None),
    415: ("The body is not JSON (`unsupported_media_type`).", ERROR_REF, None),
    422: (
        "The request does not match the schema (`invalid`, with `errors` per field).",
        INVALID_REF,
        None,
    ),
    429: ("Too many requests (`throttled`).", ERROR_REF, RETRY_AFTER),
    503: (
        "A lock wait timed out (`busy`) or the database is unavailable (`unavailable`).",
        ERROR_REF,
        RETRY_AFTER,
    ),
}


def inline_enum(choices: type[Enum], title: str) -> WithJsonSchema:
    """`Annotated` metadata documenting a choices class inline under `title`.

    Needed where several classes share a name (Django's nested `Status` choices): as
    components they would overwrite one another (see `CheckedOpenAPISchema`).
    """
    return WithJsonSchema(
        {"title": title, "type": "string", "enum": [member.value for member in choices]}
    )


def file_response(media_type: str, description: str) -> dict[str, Any]:
    """`openapi_extra=` for a route that answers a file (an `HttpResponse`), not JSON."""
    return {
        "responses": {
            200: {
                "description": description,
                "content": {media_type: {"schema": {"type": "string"}}},
            }
        }
    }


def stable_operation_id(operation: Operation) -> str:
    """`<controller>_<function>` in snake case, from the view's qualified name.

    `AuthController.register` → `auth_register`; a function outside a class keeps its
    module's last part as the prefix (`events_list`).
    """
    func = operation.view_func
    owner, _, name = func.__qualname__.rpartition(".")
    owner = owner.rpartition(".")[2] if owner else func.__module__.rpartition(".")[2]
    owner = re.sub(r"Controller$", "", owner)
    prefix = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", owner).lower().strip("_")
    return f"{prefix}_{name}" if prefix else name


def _uses_jwt(operation: Operation) -> bool:
    return any(isinstance(callback, HttpBearer) for callback in operation.auth_callbacks)


def _allows_anonymous(operation: Operation) -> bool:
    """True for routes with a fallback (`common.api.optional_jwt_auth`) beside the token."""
    return _uses_jwt(operation) and any(
        not isinstance(callback, HttpBearer) for callback in operation.auth_callbacks
    )


def _is_throttled(operation: Operation) -> bool:
    return bool(getattr(operation, "throttle_objects", None))


def error_statuses(
    method: str, path: str, operation: Operation, details: dict[str, Any]
) -> list[int]:
    """The error statuses `operation` may give whatever it does, in ascending order.

    `path` is the operation's path below the API root (`/event-admin/{event_id}`);
    `details` its OpenAPI operation object as ninja rendered it. The request guards
    (`common.http.guards`) judge any write's body, declared or not: over the limit 413,
    not JSON 415, unparseable or with a NUL 400.
    """
    parameters = details.get("parameters", [])
    has_body = "requestBody" in details
    is_write = method.upper() in WRITE_METHODS
    has_path_params = any(p["in"] == "path" for p in parameters)
    paginated = any(p["in"] == "query" and p["name"] == "page" for p in parameters)
    statuses = {503}
    if parameters or has_body:
        statuses |= {400, 422}
    if has_body or is_write:
        statuses |= {400, 413, 415}
    if _uses_jwt(operation):
        statuses.add(401)
    if path.startswith(ADMIN_PREFIXES):
        statuses |= {403, 404}
    if has_path_params or paginated:
        statuses.add(404)
    if _is_throttled(operation):
        statuses.add(429)
    return sorted(statuses)


def _response(status: int) -> dict[str, Any]:
    description, ref, headers = STANDARD_ERRORS[status]
    response: dict[str, Any] = {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": ref}}},
    }
    if headers:
        response["headers"] = headers
    return response


def _merge(declared: dict[str, Any], status: int) -> dict[str, Any]:
    """A route's own declaration of `status`, widened to accept the standard body too.

    A bare `ErrorSchema` gives way to the standard (richer or equal) schema; a route
    schema of its own (an eligibility refusal) is kept beside it in an `anyOf`.
    """
    standard = _response(status)
    schema = declared.get("content", {}).get("application/json", {}).get("schema")
    if schema is None or schema == {"$ref": ERROR_REF}:
        return {**standard, **{k: v for k, v in declared.items() if k == "headers"}}
    wanted = standard["content"]["application/json"]["schema"]
    alternatives = schema.get("anyOf", [schema])
    if wanted not in alternatives and {"$ref": ERROR_REF} not in alternatives:
        alternatives = [*alternatives, wanted]
    elif {"$ref": ERROR_REF} in alternatives and wanted != {"$ref": ERROR_REF}:
        alternatives = [wanted if a == {"$ref": ERROR_REF} else a for a in alternatives]
    merged = {**declared, "content": {"application/json": {"schema": {"anyOf": alternatives}}}}
    if "headers" in standard:
        merged["headers"] = {**standard["headers"], **declared.get("headers", {})}
    return merged


def document_errors(schema: dict[str, Any], operations: dict[str, Operation], root: str) -> None:
    """Add the standard error responses to every operation of `schema`, in place.

    `operations` maps operation ids to ninja operations; `root` is the API's path prefix
    (`/api/`), stripped to match paths against `ADMIN_PREFIXES`.
    """
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    components.update(ERROR_COMPONENTS)
    for path, methods in schema["paths"].items():
        relative = "/" + path.removeprefix(root.rstrip("/")).lstrip("/")
        for method, details in methods.items():
            operation = operations[details["operationId"]]
            responses = {int(code): body for code, body in details["responses"].items()}
            for status in error_statuses(method, relative, operation, details):
                declared = responses.get(status)
                responses[status] = (
                    _response(status) if declared is None else _merge(declared, status)
                )
            details["responses"] = {code: responses[code] for code in sorted(responses)}
            if _allows_anonymous(operation):
                # `{}` = no credentials: the token is optional on these routes.
                details["security"] = [*details.get("security", []), {}]


class CheckedOpenAPISchema(OpenAPISchema):
    """ninja's document builder, noting component names that two different schemas claim.

    ninja merges every model's `$defs` into one `components.schemas` by bare class name,
    so two classes of the same name (three Django `Status` choices, say) silently
    replace each other and routes end up documented with another route's enum or body.
    `conflicts` lists each such name with its rival definitions.
    """

    def __init__(self, api: NinjaExtraAPI, path_prefix: str) -> None:
        self.conflicts: dict[str, list[Any]] = {}
        super().__init__(api, path_prefix)

    def add_schema_definitions(self, definitions: dict[str, Any]) -> None:
        for name, definition in definitions.items():
            known = self.schemas.get(name)
            if known is not None and known != definition:
                rivals = self.conflicts.setdefault(name, [known])
                if definition not in rivals:
                    rivals.append(definition)
        super().add_schema_definitions(definitions)


class EncoreAPI(NinjaExtraAPI):
    """NinjaExtraAPI with stable operation ids and documented error statuses."""

    def _operations(self) -> dict[str, Operation]:
        found: dict[str, Operation] = {}
        for bound_router in self._get_bound_routers():
            for path_view in bound_router.path_operations.values():
                for operation in path_view.operations:
                    op_id = stable_operation_id(operation)
                    if found.get(op_id, operation) is not operation:
                        raise ImproperlyConfigured(
                            f"Two API operations would share the operation id {op_id!r}; "
                            "rename one of the view functions."
                        )
                    operation.operation_id = op_id
                    found[op_id] = operation
        return found

    def get_openapi_schema(
        self, *, path_prefix: str | None = None, path_params: dict[str, Any] | None = None
    ) -> CheckedOpenAPISchema:
        operations = self._operations()
        if path_prefix is None:
            path_prefix = self.get_root_path(path_params or {})
        schema = CheckedOpenAPISchema(self, path_prefix)
        if schema.conflicts:
            logger.error(
                "OpenAPI component names claimed by different schemas: %s",
                ", ".join(sorted(schema.conflicts)),
            )
        document_errors(schema, operations, root=path_prefix)
        return schema
