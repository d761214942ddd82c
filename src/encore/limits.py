"""The sizes of a request Encore accepts, for the server and for the API's own document.

gunicorn enforces them before any of Encore's code runs (`encore.gunicorn`); the OpenAPI
document states them with the application's own limits (`encore.api`). No Django import
here: gunicorn's arbiter reads this module before Django is set up.
"""

#: The request line (method, path with its query, version), in bytes → 414 `uri_too_long`.
REQUEST_LINE_MAX_BYTES = 8190
#: One header line, in bytes → 431 `headers_too_large`.
HEADER_MAX_BYTES = 8190
#: Header lines in one request → 431 `headers_too_large`.
HEADERS_MAX = 100
