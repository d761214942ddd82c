"""Django core settings.

`DJANGO_DEBUG` picks the mode, and the default is production: a start that says nothing
must not run with development shortcuts. Production needs `DJANGO_SECRET_KEY` and
`DJANGO_ALLOWED_HOSTS` and refuses to import without them; development (`make run` sets
`DJANGO_DEBUG=true`) generates a key once and keeps it in `var/` (docs/adr/0007).
"""

from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from .env import env_bool, env_list, env_str
from .secret_key import development_secret_key, production_secret_key

SRC_DIR = Path(__file__).resolve().parents[2]
PROJECT_DIR = SRC_DIR.parent
VAR_DIR = Path(env_str("ENCORE_VAR_DIR", str(PROJECT_DIR / "var")))

DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = (
    development_secret_key(env_str("DJANGO_SECRET_KEY"), VAR_DIR)
    if DEBUG
    else production_secret_key(env_str("DJANGO_SECRET_KEY"))
)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,testserver" if DEBUG else "")
if not ALLOWED_HOSTS:
    raise ImproperlyConfigured(
        "DJANGO_ALLOWED_HOSTS is not set. A production start (DJANGO_DEBUG=false, the default) "
        "needs the host names this server answers for, comma-separated, e.g. "
        "DJANGO_ALLOWED_HOSTS=encore.example.org."
    )

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "corsheaders",
    "django_prometheus",
    # Listed so staticfiles serves the Swagger UI and ReDoc assets ninja ships: /api/docs
    # then loads nothing from a CDN.
    "ninja",
    "ninja_extra",
    "ninja_jwt",
    "ninja_jwt.token_blacklist",
    "django_celery_beat",
    "django_htmx",
    "common",
    "accounts",
    "notifications",
    "events",
    "web",
]

# A plain list, one entry a line: other modules' additions stay one-line changes.
MIDDLEWARE = [
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    "common.request_id.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "common.http.guards.ApiRequestGuardMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "web.middleware.PageLocaleMiddleware",
    "web.middleware.PageWriteLimitMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_prometheus.middleware.PrometheusAfterMiddleware",
]

ROOT_URLCONF = "encore.urls"
WSGI_APPLICATION = "encore.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("de", "German")]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# `collectstatic` fills it (run.sh does, at every start); whitenoise serves it with
# far-future caching for the hashed names. Development also finds files in the apps, so
# an edited asset shows without a collectstatic.
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(VAR_DIR / "static")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = DEBUG
if DEBUG:
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns about a missing root
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The origin of every absolute link Encore sends (e-mails, in-app notifications, .ics
# feeds): by default what `make run` serves, so links open the running stack whatever
# ENCORE_HOST/ENCORE_PORT say. FRONTEND_BASE_URL is the deprecated old name, still read.
ENCORE_PUBLIC_URL = (
    env_str("ENCORE_PUBLIC_URL")
    or env_str("FRONTEND_BASE_URL")
    or f"http://{env_str('ENCORE_HOST') or '127.0.0.1'}:{env_str('ENCORE_PORT') or '8000'}"
).rstrip("/")

# CACHE_URL (Redis) is the cache every process shares: throttles count across gunicorn
# workers only through it. Production without it gets a system-check warning (common.checks).
CACHES: dict[str, dict[str, object]] = {
    "default": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "encore",
    }
}
# A Redis that stops answering must fail a request fast, not hang a worker: with Redis
# gone a write answers within a second (ADR 0037); the throttle then lets it through, and
# does not ask again for a few seconds (common.circuit).
REDIS_CACHE_OPTIONS = {"socket_connect_timeout": 0.15, "socket_timeout": 0.15}
if env_str("CACHE_URL"):
    CACHES["default"] = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": env_str("CACHE_URL"),
        "OPTIONS": REDIS_CACHE_OPTIONS,
    }
