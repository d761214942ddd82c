#!/usr/bin/env bash
# Start Encore: migrate, collect static files, load the demo, then the production stack
# until Ctrl-C: gunicorn (WEB_CONCURRENCY workers), one Celery worker per queue
# (`critical`: waitlist passes, offers, claims' follow-ups; `notify`: the offer e-mails;
# `bulk`: everything else) and exactly one beat. If any of them stops, the others are stopped too: a half-running
# stack (an API without its worker) would look healthy while offers never go out.
#
# Development by default (DJANGO_DEBUG=true: a generated key in var/, plain-text logs).
# DJANGO_DEBUG=false runs the production configuration, which needs DJANGO_SECRET_KEY
# and DJANGO_ALLOWED_HOSTS (docs/architecture/deployment.md).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="$PWD/.venv/bin/python"
export DJANGO_DEBUG="${DJANGO_DEBUG:-true}"
export ENCORE_HOST="${ENCORE_HOST:-127.0.0.1}"
export ENCORE_PORT="${ENCORE_PORT:-8000}"
export ENCORE_VAR_DIR="${ENCORE_VAR_DIR:-$PWD/var}"   # the settings keep all state there
# The origin of every link Encore sends and of the URLs printed below (the settings read
# the same variable); FRONTEND_BASE_URL is its deprecated old name.
export ENCORE_PUBLIC_URL="${ENCORE_PUBLIC_URL:-${FRONTEND_BASE_URL:-http://$ENCORE_HOST:$ENCORE_PORT}}"
URL="${ENCORE_PUBLIC_URL%/}"
LOGS="$ENCORE_VAR_DIR/log"
mkdir -p "$LOGS"
# One metrics directory for every process of this stack, empty at each start, so
# /metrics adds up the web and the Celery processes (common/metrics.py).
export PROMETHEUS_MULTIPROC_DIR="${PROMETHEUS_MULTIPROC_DIR:-$ENCORE_VAR_DIR/prometheus}"
rm -rf "$PROMETHEUS_MULTIPROC_DIR" && mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
# ENCORE_STOP_GRACE: seconds the processes get to stop warmly on Ctrl-C (default 10).
STOP_GRACE="${ENCORE_STOP_GRACE:-10}"
# shellcheck source=lib/processes.sh
source "$PWD/scripts/lib/processes.sh"
cd src
# The first command also makes the development key (var/secret_key) if there is none yet.
"$PY" manage.py migrate --noinput >/dev/null
"$PY" manage.py collectstatic --noinput >/dev/null
"$PY" manage.py load_demo --base-url "$URL"

pids=()
cleanup() {
  trap - EXIT INT TERM
  stop_processes "$STOP_GRACE" "${pids[@]}"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

CELERY=("$PY" -m celery -A encore)
"${CELERY[@]}" worker -Q critical -n "critical@%h" --loglevel=INFO \
  --concurrency="${CELERY_CRITICAL_CONCURRENCY:-2}" --pool=threads >"$LOGS/worker-critical.log" 2>&1 &
pids+=($!)
"${CELERY[@]}" worker -Q notify -n "notify@%h" --loglevel=INFO \
  --concurrency="${CELERY_NOTIFY_CONCURRENCY:-2}" --pool=threads >"$LOGS/worker-notify.log" 2>&1 &
pids+=($!)
"${CELERY[@]}" worker -Q bulk -n "bulk@%h" --loglevel=INFO \
  --concurrency="${CELERY_BULK_CONCURRENCY:-2}" --pool=threads >"$LOGS/worker-bulk.log" 2>&1 &
pids+=($!)
# Exactly one beat: the schedule lives in the database (django-celery-beat).
"${CELERY[@]}" beat --loglevel=INFO >"$LOGS/beat.log" 2>&1 &
pids+=($!)
# In the background too, so a signal to this script is handled at once.
"$PY" -m gunicorn -c python:encore.gunicorn encore.wsgi &
pids+=($!)
# The URLs are printed once the server answers: its workers load the app before they
# take a connection (encore/warmup.py), so the first click is as fast as any other.
LOCAL_HOST="$ENCORE_HOST"
[[ $LOCAL_HOST == 0.0.0.0 ]] && LOCAL_HOST=127.0.0.1
"$PY" - "http://$LOCAL_HOST:$ENCORE_PORT/health/live" "${pids[-1]}" <<'PY' || { echo "run.sh: the server did not answer" >&2; exit 1; }
import os
import sys
import time
import urllib.request

url, server = sys.argv[1], int(sys.argv[2])
deadline = time.monotonic() + 300
while True:
    try:
        with urllib.request.urlopen(url, timeout=5):
            break
    except OSError:
        try:
            os.kill(server, 0)  # gunicorn still there?
        except ProcessLookupError:
            sys.exit(1)
        if time.monotonic() > deadline:
            sys.exit(1)
        time.sleep(0.3)
PY

echo
echo "Encore is running:"
echo "  Web app   $URL/   (log in at $URL/login with a demo account above)"
echo "  API       $URL/api"
echo "  API docs  $URL/api/docs"
echo "  Admin     $URL/admin"
echo "  Health    $URL/health/ready   Metrics $URL/metrics"
echo "  Server log here; worker and beat logs in $LOGS/. Press Ctrl-C to stop."
echo

status=0
wait -n || status=$?
echo "run.sh: a process stopped (exit $status); stopping the others." >&2
exit "$status"
