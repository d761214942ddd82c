"""The HTTP contract and the pages' routes are the committed ones, byte for byte.

`docs/spec/openapi.json` is the OpenAPI document the code serves and `docs/spec/routes.txt`
the web app's routes. A change that moves code around must leave both as they are; a
change that means to alter the contract regenerates them (`make contract`) in the same
commit, so the diff shows a reviewer what clients will see.
"""

import json
from pathlib import Path

from django.urls import URLPattern, URLResolver, get_resolver

from encore.api import api

SPEC = Path(__file__).resolve().parents[3] / "docs" / "spec"
OPENAPI = SPEC / "openapi.json"
ROUTES = SPEC / "routes.txt"
UPDATE = "regenerate with `make contract` if the change is meant"


def openapi_text() -> str:
    return json.dumps(api.get_openapi_schema(), indent=2, ensure_ascii=False) + "\n"


def _patterns(resolver: URLResolver, prefix: str = "") -> list[str]:
    lines = []
    for entry in resolver.url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            lines += _patterns(entry, route)
        elif isinstance(entry, URLPattern):
            lines.append(f"{route} {entry.name or '-'}")
    return lines


def routes_text() -> str:
    """Every route outside the API (the API's are in the OpenAPI document), with its name."""
    lines = [line for line in _patterns(get_resolver()) if not line.startswith("api/")]
    return "\n".join(lines) + "\n"


def test_the_openapi_document_is_the_committed_one() -> None:
    assert openapi_text() == OPENAPI.read_text(), UPDATE


def test_the_pages_routes_are_the_committed_ones() -> None:
    assert routes_text() == ROUTES.read_text(), UPDATE


def test_the_route_list_sees_the_pages_and_leaves_the_api_out() -> None:
    routes = routes_text().splitlines()
    assert any(line.startswith("login") for line in routes)
    assert not any(line.startswith("api/") for line in routes)
