#!/usr/bin/env bash
# Start Encore: migrate, load the demo, then API + Celery worker + beat until Ctrl-C.
# If any of the three stops, the others are stopped too: a half-running stack (an API
# without its worker) would look healthy while waitlist offers silently never go out.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="$PWD/.venv/bin/python"
HOST="${ENCORE_HOST:-127.0.0.1}"
PORT="${ENCORE_PORT:-8000}"
LOGS="${ENCORE_VAR_DIR:-$PWD/var}/log"   # the settings keep all state under ENCORE_VAR_DIR
mkdir -p "$LOGS"
cd src
"$PY" manage.py migrate --noinput >/dev/null
"$PY" manage.py load_demo --base-url "http://$HOST:$PORT"

pids=()
cleanup() {
  trap - EXIT INT TERM
  kill "${pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$PY" -m celery -A encore worker --loglevel=INFO --concurrency=2 --pool=threads >"$LOGS/worker.log" 2>&1 &
pids+=($!)
# The beat schedule lives in the database (django-celery-beat), not in a local file.
"$PY" -m celery -A encore beat --loglevel=INFO >"$LOGS/beat.log" 2>&1 &
pids+=($!)
# In the background too, so a signal to this script is handled at once, not after the server exits.
"$PY" manage.py runserver "$HOST:$PORT" --noreload &
pids+=($!)

echo
echo "Encore is running:"
echo "  API       http://$HOST:$PORT/api"
echo "  API docs  http://$HOST:$PORT/api/docs"
echo "  Admin     http://$HOST:$PORT/admin"
echo "  Worker and beat logs in $LOGS/. Press Ctrl-C to stop."
echo

status=0
wait -n || status=$?
echo "run.sh: a process stopped (exit $status); stopping the others." >&2
exit "$status"
