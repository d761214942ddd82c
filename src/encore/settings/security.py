"""HTTPS, security headers, cookies and CORS.

Production (DEBUG off) defaults to what `manage.py check --deploy` asks for: redirect to
HTTPS, HSTS, cookies only over HTTPS. Behind a TLS-terminating proxy set
`DJANGO_SECURE_PROXY_SSL_HEADER=true` so a request the proxy received over HTTPS counts
as secure (only then: a client could otherwise claim HTTPS with a forged header).
A plain-HTTP setup (a test stack on localhost) switches the redirect off with
`DJANGO_SECURE_SSL_REDIRECT=false`.
"""

from csp.constants import NONE, SELF

from .base import DEBUG
from .env import env_bool, env_int, env_list

SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", not DEBUG)
# The probes and the scraper talk plain HTTP to the process, not through the proxy.
SECURE_REDIRECT_EXEMPT = [r"^health(/|$)", r"^metrics$"]
if env_bool("DJANGO_SECURE_PROXY_SSL_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 0 if DEBUG else 31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
# The preload directive only allows a submission to the browsers' list; it submits nothing.
SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", not DEBUG)
# An operator who switches it off has chosen so; check --deploy need not nag about it.
SILENCED_SYSTEM_CHECKS = [] if SECURE_HSTS_PRELOAD or DEBUG else ["security.W021"]
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SESSION_COOKIE_HTTPONLY = True
# The admin's log-in form posts from the site's own origin; behind a proxy that rewrites
# the host, name the public origin(s) here (https://encore.example.org).
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")

# CORS: browsers on these origins may call the API (comma-separated, scheme included).
# Default none: the API is same-origin unless the operator names a front end.
CORS_ALLOWED_ORIGINS = env_list("DJANGO_CORS_ALLOWED_ORIGINS")
CORS_URLS_REGEX = r"^/api/.*$"
CORS_ALLOW_CREDENTIALS = False
CORS_EXPOSE_HEADERS = ["Retry-After", "X-Request-ID"]

# Content-Security-Policy of the pages (django-csp): everything a page loads is Encore's
# own (`make run` and production serve it; no CDN), with no inline script or style and no
# framing. The API answers JSON, and its docs page (Swagger UI) starts with an inline
# script; the Django admin is staff-only and not written for a policy: both go without.
CONTENT_SECURITY_POLICY = {
    "EXCLUDE_URL_PREFIXES": ["/api", "/admin"],
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "font-src": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
        "base-uri": [SELF],
        "object-src": [NONE],
    },
}
