#!/usr/bin/env bash
# Start Encore: migrate, collect static files, load the demo, then the production stack
# until Ctrl-C: gunicorn (WEB_CONCURRENCY workers), one Celery worker per queue
# (`critical`: waitlist passes, offers, claims' follow-ups; `notify`: the offer e-mails;
# `bulk`: everything else) and exactly one beat. Each one that exits is started again, after
# a growing pause (`supervise`, scripts/lib/processes.sh): a half-running stack (an API
# without its worker) would look healthy while offers never go out, and stopping all of it
# for one lost worker (kombu's Redis transport ends a worker when the broker restarts)
# would lose the rest. The whole stack stops only on Ctrl-C or SIGTERM.
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

# One supervisor per process; the supervisors stop their processes (within STOP_GRACE)
# and are given a little longer, so none is killed while its process still runs.
supervisors=()
cleanup() {
  trap - EXIT INT TERM
  stop_processes "$((STOP_GRACE + 5))" "${supervisors[@]}"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

CELERY=("$PY" -m celery -A encore)
supervise worker-critical "$STOP_GRACE" "$LOGS/worker-critical.log" \
  "${CELERY[@]}" worker -Q critical -n "critical@%h" --loglevel=INFO \
  --concurrency="${CELERY_CRITICAL_CONCURRENCY:-2}" --pool=threads &
supervisors+=($!)
supervise worker-notify "$STOP_GRACE" "$LOGS/worker-notify.log" \
  "${CELERY[@]}" worker -Q notify -n "notify@%h" --loglevel=INFO \
  --concurrency="${CELERY_NOTIFY_CONCURRENCY:-2}" --pool=threads &
supervisors+=($!)
supervise worker-bulk "$STOP_GRACE" "$LOGS/worker-bulk.log" \
  "${CELERY[@]}" worker -Q bulk -n "bulk@%h" --loglevel=INFO \
  --concurrency="${CELERY_BULK_CONCURRENCY:-2}" --pool=threads &
supervisors+=($!)
# Exactly one beat: the schedule lives in the database (django-celery-beat).
supervise beat "$STOP_GRACE" "$LOGS/beat.log" "${CELERY[@]}" beat --loglevel=INFO &
supervisors+=($!)
# The server's log is this script's output.
supervise web "$STOP_GRACE" - "$PY" -m gunicorn -c python:encore.gunicorn encore.wsgi &
supervisors+=($!)
# The URLs are printed once the server answers: its workers load the app before they
# take a connection (encore/warmup.py), so the first click is as fast as any other.
LOCAL_HOST="$ENCORE_HOST"
[[ $LOCAL_HOST == 0.0.0.0 ]] && LOCAL_HOST=127.0.0.1
# A server that exits meanwhile is started again (and says why on this output), so only
# the deadline ends the wait.
"$PY" - "http://$LOCAL_HOST:$ENCORE_PORT/health/live" <<'PY' || { echo "run.sh: the server did not answer" >&2; exit 1; }
import sys
import time
import urllib.request

url = sys.argv[1]
deadline = time.monotonic() + 300
while True:
    try:
        with urllib.request.urlopen(url, timeout=5):
            break
    except OSError:
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

# The supervisors run until this script stops them; one that ends all the same was killed
# from outside, and the stack is no longer whole.
status=0
wait -n || status=$?
echo "run.sh: a supervisor stopped (exit $status); stopping the others." >&2
exit "$status"
