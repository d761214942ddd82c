"""Settings of a test run (pytest, mypy's Django plugin): development mode, a throwaway key.

pytest-django imports the settings before any conftest runs, so the environment a test
run needs is set here, before `encore.settings` reads it: nothing to export, nothing
installed. Development mode (`DJANGO_DEBUG=true`) keeps the test client on plain HTTP
and the dev host names; pytest-django still runs each test with `DEBUG = False`. The key
is random per run (never one written in the repository) and goes into `os.environ`, so
processes a test starts (a Celery worker, `manage.py`) sign and verify with the same one.
"""

import os
import secrets

os.environ["DJANGO_DEBUG"] = "true"
os.environ.setdefault("DJANGO_SECRET_KEY", f"test-run-{secrets.token_urlsafe(48)}")

from encore.settings import *  # noqa: F403

# pytest-django runs every test with DEBUG off, and whitenoise then indexes every static
# file each time a test client builds its middleware (once per client: most tests make
# one or more). Autorefresh looks a file up when it is asked for, as `make run` does.
WHITENOISE_AUTOREFRESH = True
