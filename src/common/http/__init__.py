"""HTTP edge of the API: what a request must be before any view sees it (ADR 0009).

`guards` is the middleware that refuses malformed requests and keeps every answer under
`/api` in the JSON error shape; `fields` holds the input types every request schema
shares (the bounded datetime); `responses` builds the error bodies and is Django's
`handler500`.
"""
