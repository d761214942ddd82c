"""Encore settings: every value comes from the environment, with a safe default.

Split by integration (see docs/spec/style.md): `base` for Django itself, then one module per
integration. Nothing here reads a secret from the repository.
"""

from .api import *  # noqa: F403
from .base import *  # noqa: F403
from .celery import *  # noqa: F403
from .database import *  # noqa: F403
from .email import *  # noqa: F403
from .notifications import *  # noqa: F403
from .observability import *  # noqa: F403
from .payments import *  # noqa: F403
from .request_limits import *  # noqa: F403
from .security import *  # noqa: F403
from .throttling import *  # noqa: F403
