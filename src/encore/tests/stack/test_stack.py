"""The production stack under load and faults (issue 9, docs/spec/quality.md "Reliability, second
round"): gunicorn with 2 worker processes, a Celery worker on each queue (`critical`,
`notify`, `bulk`), and beat, started with the commands of docs/operations.md on a private
PostgreSQL and a private Redis (broker and cache), mail to an SMTP address the test
controls. Everything is driven over HTTP; the database is read directly only to see
when an offer row was committed.

The tests share one stack and run in file order: the claim storm, offers with a hung
SMTP server, the broker outage, the database outage (last: it stops PostgreSQL).
"""

import statistics
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

import pytest
import requests

from .conftest import Running
from .support import stopped, wait_until

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.worker,
    pytest.mark.timeout(300),
    pytest.mark.xdist_group("stack"),  # with test_run_script: one whole stack at a time
]

#: docs/spec/quality.md f1: a seat frees → the next member's offer row is committed.
F1_MEDIAN_SECONDS = 2.0
F1_MAX_SECONDS = 5.0
#: A request must answer well within a client's patience, whatever is down.
REQUEST_TIMEOUT = 30
#: How long the stack may take to be ready again after an outage.
RECOVERY_SECONDS = 60
#: The outbox is flushed by beat every minute, at second 0; then a worker runs what it
#: published (the refused pass on `critical`, the reset mail on `bulk`).
OUTBOX_SECONDS = 90


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def offers(running: Running, event_id: str) -> list[tuple[str, str, bool]]:
    """(user id, status, cutoff) of every offer of the event, oldest first."""
    rows = running.postgres.query(
        "SELECT user_id::text, status, is_cutoff_batch FROM events_waitlistoffer"
        " WHERE event_id = %s ORDER BY created_at, id",
        event_id,
    )
    return [(str(u), str(s), bool(c)) for u, s, c in rows]


def at_least(running: Running, event_id: str, n: int) -> list[tuple[str, str, bool]] | None:
    """The event's offers once there are `n` of them, else None (a `wait_until` probe)."""
    found = offers(running, event_id)
    return found if len(found) >= n else None


def assert_json_error(response: requests.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.text[:500])
    assert response.headers["Content-Type"].startswith("application/json"), response.headers
    body = response.json()
    assert body.get("code") == code and body.get("detail"), body
    return body


# -- 1. the claim storm -------------------------------------------------------------------------
def test_a_hundred_cutoff_holders_race_for_ten_seats_over_http(running: Running) -> None:
    stack, race = running.stack, running.data["race"]
    assert len(stack.web_worker_pids()) >= 2, "the production server runs several processes"
    url = f"{stack.base_url}/api/events/{race['event']}/rsvp/yes"
    tokens = race["tokens"]
    line = threading.Barrier(len(tokens))
    results: list[int | str] = []
    lock = threading.Lock()

    def racer(token: str) -> None:
        outcome: int | str
        try:
            line.wait(timeout=30)
            # A fresh connection each: 100 connections arrive at once, as in the issue.
            outcome = requests.post(url, headers=bearer(token), timeout=REQUEST_TIMEOUT).status_code
        except requests.RequestException as error:  # a reset, a refused or timed-out connection
            outcome = type(error).__name__
        except threading.BrokenBarrierError:
            outcome = "BrokenBarrierError"
        with lock:
            results.append(outcome)

    threads = [threading.Thread(target=racer, args=(t,)) for t in tokens]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=REQUEST_TIMEOUT + 40)

    outcomes = Counter(results)
    assert len(results) == len(tokens), outcomes
    assert outcomes == {200: race["seats"], 409: len(tokens) - race["seats"]}, outcomes
    [(count, capacity)] = running.postgres.query(
        "SELECT attendee_count, max_attendees FROM events_event WHERE id = %s", race["event"]
    )
    assert count == capacity  # full, never oversold
    won = [o for o in offers(running, race["event"]) if o[1] == "claimed"]
    assert len(won) == race["seats"]


# -- 2. time-critical work with a hung SMTP server ------------------------------------------------
def test_offers_meet_f1_while_the_smtp_server_hangs(running: Running) -> None:
    stack, smtp, rotation = running.stack, running.smtp, running.data["rotation"]
    smtp.hang()
    # Bulk mail first (password resets): each send now hangs on the SMTP server.
    for address in running.data["resets"][:-1]:  # the last one is the broker test's
        response = requests.post(
            f"{stack.base_url}/api/auth/password-reset",
            json={"email": address},
            timeout=REQUEST_TIMEOUT,
        )
        assert response.status_code == 202, response.text
    wait_until(lambda: smtp.hung >= 1, timeout=30, what="bulk mail reaching the hung SMTP server")

    delays = []
    for turn, leaver in enumerate(rotation["leavers"], start=1):
        started = time.monotonic()
        response = requests.post(
            f"{stack.base_url}/api/events/{rotation['event']}/rsvp/no",
            headers=bearer(leaver),
            timeout=REQUEST_TIMEOUT,
        )
        assert response.status_code == 200, response.text
        made = wait_until(
            partial(at_least, running, rotation["event"], turn),
            timeout=30,
            what=f"offer {turn} after a seat freed",
            interval=0.05,
        )
        delays.append(time.monotonic() - started)
        assert [user for user, _, _ in made] == rotation["queue"][:turn]  # FIFO, one per seat

    summary = f"seat freed → offer committed: {[round(d, 2) for d in delays]} s; hung SMTP connections: {smtp.hung}"
    print(summary)
    assert statistics.median(delays) <= F1_MEDIAN_SECONDS, summary
    assert max(delays) <= F1_MAX_SECONDS, summary
    assert smtp.hung >= 2, summary  # the offer mails went to the hung server too


# -- 3. the broker stopped and restarted ----------------------------------------------------------
def test_a_broker_outage_answers_no_500_and_loses_nothing(running: Running) -> None:
    stack, broker, smtp = running.stack, running.data["broker"], running.smtp
    smtp.deliver()
    stack.wait_ready(timeout=RECOVERY_SECONDS)  # healthy before the outage
    reset_address = running.data["resets"][-1]  # never asked for before: one mail expected
    delivered_before = _mails_to(running, reset_address)
    url = f"{stack.base_url}/api/events/{broker['event']}/rsvp/no"
    with ThreadPoolExecutor(max_workers=1) as pool:
        # One seat is freed by a request in flight while the broker goes away, the other
        # by one sent while it is down; both commit and answer 200.
        in_flight = pool.submit(
            requests.post, url, headers=bearer(broker["leavers"][0]), timeout=REQUEST_TIMEOUT
        )
        with stopped(running.redis):
            first = in_flight.result(timeout=REQUEST_TIMEOUT + 5)
            assert first.status_code == 200, first.text
            started = time.monotonic()
            second = requests.post(
                url, headers=bearer(broker["leavers"][1]), timeout=REQUEST_TIMEOUT
            )
            elapsed = time.monotonic() - started
            assert second.status_code == 200, second.text
            assert elapsed < 10, f"the request waited {elapsed:.1f} s on a dead broker"
            reset = requests.post(
                f"{stack.base_url}/api/auth/password-reset",
                json={"email": reset_address},
                timeout=REQUEST_TIMEOUT,
            )
            assert reset.status_code == 202, reset.text
            listed = requests.get(f"{stack.base_url}/api/events", timeout=REQUEST_TIMEOUT)
            assert listed.status_code == 200, listed.text[:500]
            ready = requests.get(f"{stack.base_url}/health/ready", timeout=REQUEST_TIMEOUT)
            assert ready.status_code == 503, ready.text[:500]  # readiness checks the broker
            assert "broker" in ready.json()["failing"], ready.text[:500]

    # The broker is back. The pass the broker refused was kept in the outbox (PostgreSQL);
    # beat's every-minute flush publishes it and the critical worker offers the seat: no
    # nudge (hourly) is sent, nobody waits for it.
    started = time.monotonic()
    recovered = wait_until(
        partial(at_least, running, broker["event"], 2),
        timeout=OUTBOX_SECONDS,
        what="the refused waitlist pass run by the outbox flush: both seats offered",
        interval=0.5,
    )
    print(f"refused pass recovered {time.monotonic() - started:.1f} s after the broker came back")
    # FIFO, nobody skipped: the first two queued hold the offers. Not in order: when one
    # pass offers both seats they share one batch's created_at, and the ids break the tie.
    assert sorted(user for user, _, _ in recovered) == sorted(broker["queue"][:2])
    flushed = running.postgres.query(
        "SELECT args::text FROM common_outboxmessage"
        " WHERE task_name = 'events.process_waitlist_for_event' AND sent_at IS NOT NULL"
    )
    assert any(broker["event"] in args for (args,) in flushed), flushed  # by the flush
    # The reset asked for during the outage went the same way, to the bulk worker.
    wait_until(
        lambda: _mails_to(running, reset_address) > delivered_before,
        timeout=OUTBOX_SECONDS,
        what="the password reset asked for during the outage delivered",
        interval=0.5,
    )
    running.stack.wait_ready(timeout=RECOVERY_SECONDS)


def _mails_to(running: Running, address: str) -> int:
    return sum(1 for m in running.smtp.messages if address in str(m.get("To", "")))


# -- 4. the database stopped and restarted --------------------------------------------------------
def test_with_the_database_down_the_api_answers_json_503_and_recovers(running: Running) -> None:
    base, member = running.stack.base_url, running.data["member"]
    running.stack.wait_ready(timeout=RECOVERY_SECONDS)  # healthy before the outage
    with stopped(running.postgres):
        live = requests.get(f"{base}/health/live", timeout=REQUEST_TIMEOUT)
        assert live.status_code == 200  # the process is alive: no restart loop
        ready = requests.get(f"{base}/health/ready", timeout=REQUEST_TIMEOUT)
        assert ready.status_code == 503, ready.text[:500]
        for response in (
            requests.get(f"{base}/api/events", timeout=REQUEST_TIMEOUT),
            requests.get(f"{base}/api/me", headers=bearer(member), timeout=REQUEST_TIMEOUT),
            requests.post(
                f"{base}/api/events/{running.data['broker']['event']}/waitlist/join",
                headers=bearer(member),
                timeout=REQUEST_TIMEOUT,
            ),
        ):
            assert_json_error(response, 503, "unavailable")
            assert int(response.headers["Retry-After"]) > 0

    running.stack.wait_ready(timeout=RECOVERY_SECONDS)
    assert requests.get(f"{base}/api/events", timeout=REQUEST_TIMEOUT).status_code == 200
    me = requests.get(f"{base}/api/me", headers=bearer(member), timeout=REQUEST_TIMEOUT)
    assert me.status_code == 200, me.text[:500]
    assert running.stack.dead() == []
    # The web server and beat rode both outages out without a restart. A Celery worker
    # may have been restarted by the supervisor (the docs' `Restart=always`): kombu's Redis
    # transport can exit the worker when the broker vanishes while it holds unacknowledged
    # messages (retry countdowns); its messages are redelivered after the restart.
    restarts = running.stack.restarts
    print(f"restarts by the supervisor: {restarts}")
    assert restarts.get("web", 0) == 0 and restarts.get("beat", 0) == 0, restarts
