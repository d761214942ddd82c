# Sourced by scripts/run.sh: keeping the stack's processes running (`supervise`) and
# stopping them within a bounded time (`stop_processes`).
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

# supervise NAME GRACE LOG COMMAND...: run COMMAND until SIGTERM, starting it again
# whenever it exits. Meant to run in the background (`supervise ... &`), one per process.
#
# Why: a process of the stack can end on its own while the rest is fine (kombu's Redis
# transport ends a Celery worker when the broker restarts: AttributeError ... 'hostname').
# Stopping everything then, as run.sh once did, turned one lost worker into a lost stack;
# starting that one again is what a service manager does (docs/operations.md).
#
# The pause before a restart doubles at each exit (1 s, 2 s, 4 s ... 30 s), so a process
# that cannot start (a port in use, a bad setting) does not spin, and falls back to 1 s
# once a run has lasted 60 s: a crash after hours of work is retried after 1 s again.
# SUPERVISE_MAX_DELAY and SUPERVISE_STEADY (seconds) change those two bounds; the tests
# shorten them.
#
# LOG is a file (emptied once, then appended to, so a crash's trace survives the restart)
# or - for this shell's own output. Each restart is reported on stderr, and in LOG.
# On SIGTERM: stop_processes GRACE on what runs now, then exit 143.
supervise() {
  local name="$1" grace="$2" log="$3"
  shift 3
  local max_delay="${SUPERVISE_MAX_DELAY:-30}" steady="${SUPERVISE_STEADY:-60}"
  local delay=1 started code message
  # What runs now is this shell's only job: the command's current run, or the pause
  # before the next one. The job table, unlike a saved pid, is right even when the signal
  # comes between a start and the line after it.
  trap '_supervise_stop "$grace"' TERM
  [ "$log" = - ] || : >"$log"
  while :; do
    started=$SECONDS
    if [ "$log" = - ]; then
      "$@" &
    else
      "$@" >>"$log" 2>&1 &
    fi
    code=0
    wait "$!" || code=$?
    [ $((SECONDS - started)) -lt "$steady" ] || delay=1
    message="run.sh: $name exited (code $code); restarting in $delay s"
    echo "$message" >&2
    [ "$log" = - ] || echo "$message" >>"$log"
    sleep "$delay" &
    wait "$!" || true
    delay=$((delay * 2 < max_delay ? delay * 2 : max_delay))
  done
}

_supervise_stop() {
  trap '' TERM  # run.sh's own stop sends a second SIGTERM: this stop is already under way
  # shellcheck disable=SC2046  # one word per pid
  stop_processes "$1" $(jobs -p)
  exit 143
}
