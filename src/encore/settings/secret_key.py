"""Where SECRET_KEY comes from: the environment in production, a generated file in development.

The key signs sessions, password-reset tokens and every JWT (`NINJA_JWT["SIGNING_KEY"]`),
so a key that anyone can read — one written in the repository — lets anyone sign in as
anyone. Hence no default: production refuses to start without `DJANGO_SECRET_KEY`, and
refuses the placeholder values this repository has ever shipped. Development gets a
random key on its first start, kept in `var/secret_key` (mode 0600) so sessions and
tokens survive a restart. See docs/adr/0007-secret-key-and-production-mode.md.
"""

import os
import secrets
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

# Values that were once written in this repository (the old settings default and the
# .env.example placeholder): public, so never a production key.
KNOWN_PUBLIC_KEYS = frozenset(
    {
        "encore-insecure-development-key-change-me-in-production",
        "change-me",
    }
)
DEVELOPMENT_KEY_FILE = "secret_key"


def production_secret_key(configured: str) -> str:
    """The key from the environment, or ImproperlyConfigured with what to do."""
    key = configured.strip()
    if not key:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is not set. A production start (DJANGO_DEBUG=false, the "
            "default) needs its own secret key, e.g. DJANGO_SECRET_KEY=$(python -c "
            "'import secrets; print(secrets.token_urlsafe(50))'). For development set "
            "DJANGO_DEBUG=true (make run does): a key is then generated in var/."
        )
    if key in KNOWN_PUBLIC_KEYS:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is a placeholder published in the Encore repository; "
            "set a random key of your own."
        )
    return key


def development_secret_key(configured: str, var_dir: Path) -> str:
    """The configured key if any, else the one in `var_dir/secret_key`, made on first use."""
    if configured.strip():
        return configured.strip()
    path = var_dir / DEVELOPMENT_KEY_FILE
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    var_dir.mkdir(parents=True, exist_ok=True)
    # Written whole to a private temporary file, then linked into place: two processes
    # starting at once (run.sh starts four) agree on one key, and none reads a half file.
    temporary = path.with_name(f".{DEVELOPMENT_KEY_FILE}.{os.getpid()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(secrets.token_urlsafe(50) + "\n")
    try:
        os.link(temporary, path)
    except FileExistsError:
        pass
    finally:
        temporary.unlink()
    return path.read_text().strip()
