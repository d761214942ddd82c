# Sourced by scripts/run.sh: stopping the stack's processes within a bounded time.
#
# stop_processes GRACE PID...: SIGTERM to each (a warm stop: gunicorn finishes its
# requests, a Celery worker its tasks), then up to GRACE seconds for them to exit, then
# SIGKILL to whatever is left, and reap them all. Without the bound, one process slow to
# stop (gunicorn waits up to its graceful timeout, 30 s, for open requests; a Celery
# worker for its running tasks) held Ctrl-C, or a supervisor's stop, for as long as it
# liked. A Celery task killed this way runs again: tasks are acknowledged late
# (CELERY_TASK_ACKS_LATE).
stop_processes() {
  local grace="$1"
  shift
  local pids=("$@") deadline=$((SECONDS + grace)) pid alive
  [ "${#pids[@]}" -gt 0 ] || return 0
  kill -TERM "${pids[@]}" 2>/dev/null || true
  while :; do
    alive=()
    for pid in "${pids[@]}"; do
      kill -0 "$pid" 2>/dev/null && alive+=("$pid")
    done
    [ "${#alive[@]}" -eq 0 ] && break
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "run.sh: still running after ${grace}s, killed: ${alive[*]}" >&2
      kill -KILL "${alive[@]}" 2>/dev/null || true
      break
    fi
    sleep 0.2
  done
  wait "${pids[@]}" 2>/dev/null || true
}
