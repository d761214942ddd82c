"""HTTP API: JWT lifetimes, throttling, pagination."""

from datetime import timedelta

from .base import SECRET_KEY
from .env import env_bool, env_str

NINJA_JWT = {
    "ACCESS_TOKEN_LIFETIME": timedelta(hours=1),
    "REFRESH_TOKEN_LIFETIME": timedelta(days=30),
    "ROTATE_REFRESH_TOKENS": True,
    "BLACKLIST_AFTER_ROTATION": True,
    "UPDATE_LAST_LOGIN": False,
    "SIGNING_KEY": SECRET_KEY,
    "USER_ID_FIELD": "id",
    "USER_ID_CLAIM": "user_id",
}

THROTTLE_ENABLED = env_bool("THROTTLE_ENABLED", True)
WRITE_THROTTLE_RATE = env_str("WRITE_THROTTLE_RATE", "60/min")

NINJA_PAGINATION_PER_PAGE = 20
NINJA_MAX_PER_PAGE_SIZE = 100
