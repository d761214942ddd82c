"""Load in a fresh web worker what its first request would otherwise load.

Django imports the URLconf, compiles templates and reads translation catalogues on
first use; here that is the API with every app's controllers and their schemas, seconds
of work on a busy machine (issue 34; figures in docs/bench.md). Over gunicorn's time-out
the worker was killed and its caller got a 500, and a worker recycled after
`max_requests` paid it again. gunicorn runs `warm()` in each worker before it takes a
connection (`encore.gunicorn.post_worker_init`).
"""

import time
from pathlib import Path

from django.conf import settings
from django.template import TemplateSyntaxError, engines
from django.template.utils import get_app_template_dirs
from django.urls import get_resolver
from django.utils import translation


def _templates() -> list[str]:
    names = []
    for folder in [*get_app_template_dirs("templates")]:
        root = Path(folder)
        names += [p.relative_to(root).as_posix() for p in root.rglob("*.html") if p.is_file()]
        names += [p.relative_to(root).as_posix() for p in root.rglob("*.txt") if p.is_file()]
    return sorted(set(names))


def warm() -> float:
    """Import every route, compile every template, read every catalogue; the time it took,
    in milliseconds."""
    started = time.perf_counter()
    resolver = get_resolver()
    resolver.url_patterns  # noqa: B018  (imports every URLconf: the API and its controllers)
    resolver.resolve("/api/events")  # fills the resolver's caches
    engine = engines["django"]
    for name in _templates():
        try:
            engine.get_template(name)
        except TemplateSyntaxError:
            continue  # a template of another engine's syntax is not this engine's to load
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            translation.gettext("Encore")
    return (time.perf_counter() - started) * 1000
