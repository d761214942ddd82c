"""End-to-end proofs on the production stack (issue 9): private PostgreSQL and Redis
servers, SMTP stubs, gunicorn with several workers, a Celery worker per queue and beat,
all started as docs/operations.md says and driven over HTTP."""
