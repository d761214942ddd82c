"""A local stand-in for Stripe's HTTP API, and webhooks signed the way Stripe signs them.

The real `stripe` client talks to it (`STRIPE_API_BASE` → the client's `api` base
address): a small threaded `http.server` in the test process that keeps sessions,
refunds and payment intents in memory, answers in Stripe's JSON shapes and error
format, and records every request (path, form fields, `Stripe-Account`,
`Idempotency-Key`) so tests can check what Encore sent. Nothing else fakes the client.
"""

import hashlib
import hmac
import itertools
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl

import pytest

WEBHOOK_SECRET = "whsec_test_encore_stub"
ACCOUNT = "acct_1EncoreTestOrg"
#: Where the stub's Checkout Sessions send the buyer (their `url`).
CHECKOUT_ORIGIN = "https://checkout.stripe.test"


@dataclass
class Call:
    method: str
    path: str
    form: dict[str, str]
    account: str | None
    idempotency_key: str | None


@dataclass
class StripeStub:
    url: str = ""
    calls: list[Call] = field(default_factory=list)
    sessions: dict[str, dict[str, Any]] = field(default_factory=dict)
    intents: dict[str, dict[str, Any]] = field(default_factory=dict)
    refunds: dict[str, dict[str, Any]] = field(default_factory=dict)
    accounts: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Path prefixes answered with a 500 (Stripe down for them).
    failing: set[str] = field(default_factory=set)
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def next_id(self, prefix: str) -> str:
        return f"{prefix}_test_{next(self._ids):06d}"

    def calls_to(self, method: str, path: str) -> list[Call]:
        return [c for c in self.calls if c.method == method and c.path == path]

    # -- what a buyer does on Stripe's page ----------------------------------------------
    def pay(self, session_id: str) -> dict[str, Any]:
        """The buyer pays: the session completes, with a payment intent and its charge."""
        session = self.sessions[session_id]
        intent = self.next_id("pi")
        self.intents[intent] = {
            "id": intent,
            "object": "payment_intent",
            "amount": session["amount_total"],
            "currency": session["currency"],
            "metadata": dict(session["metadata"]),
            "latest_charge": self.next_id("ch"),
        }
        session.update(status="complete", payment_status="paid", payment_intent=intent)
        return session

    def charge_of(self, session_id: str, amount_refunded: int) -> dict[str, Any]:
        """The charge object Stripe sends with `charge.refunded`."""
        session = self.sessions[session_id]
        intent = self.intents[session["payment_intent"]]
        total = intent["amount"]
        return {
            "id": intent["latest_charge"],
            "object": "charge",
            "amount": total,
            "amount_refunded": amount_refunded,
            "currency": intent["currency"],
            "payment_intent": intent["id"],
            "refunded": amount_refunded >= total,
        }

    # -- the API -------------------------------------------------------------------------
    def answer(self, method: str, path: str, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        if any(path.startswith(prefix) for prefix in self.failing):
            return 500, _error("api_error", "The stub is down for this path.")
        parts = path.strip("/").split("/")
        if method == "POST" and path == "/v1/checkout/sessions":
            return 200, self._create_session(form)
        if parts[:3] == ["v1", "checkout", "sessions"] and len(parts) >= 4:
            return self._session_action(method, parts[3], parts[4:] if len(parts) > 4 else [])
        if method == "POST" and path == "/v1/refunds":
            return self._create_refund(form)
        if method == "GET" and parts[:2] == ["v1", "payment_intents"] and parts[2] in self.intents:
            return 200, self.intents[parts[2]]
        if method == "GET" and parts[:2] == ["v1", "accounts"] and parts[2] in self.accounts:
            return 200, self.accounts[parts[2]]
        return 404, _error("invalid_request_error", f"No such resource: {path}")

    def _create_session(self, form: dict[str, str]) -> dict[str, Any]:
        session_id = self.next_id("cs")
        total, index = 0, 0
        while f"line_items[{index}][quantity]" in form:
            unit = int(form[f"line_items[{index}][price_data][unit_amount]"])
            total += unit * int(form[f"line_items[{index}][quantity]"])
            index += 1
        metadata = {k[9:-1]: v for k, v in form.items() if k.startswith("metadata[")}
        session = {
            "id": session_id,
            "object": "checkout.session",
            "url": f"{CHECKOUT_ORIGIN}/c/pay/{session_id}",
            "status": "open",
            "payment_status": "unpaid",
            "payment_intent": None,
            "amount_total": total,
            "currency": form.get("line_items[0][price_data][currency]", "eur"),
            "expires_at": int(form.get("expires_at", "0")),
            "client_reference_id": form.get("client_reference_id"),
            "metadata": metadata,
        }
        self.sessions[session_id] = session
        return session

    def _session_action(
        self, method: str, session_id: str, rest: list[str]
    ) -> tuple[int, dict[str, Any]]:
        session = self.sessions.get(session_id)
        if session is None:
            return 404, _error("invalid_request_error", f"No such checkout.session: {session_id}")
        if method == "GET" and not rest:
            return 200, session
        if method == "POST" and rest == ["expire"]:
            if session["status"] != "open":
                return 400, _error("invalid_request_error", "Only open sessions can be expired.")
            session["status"] = "expired"
            return 200, session
        return 404, _error("invalid_request_error", "Unknown session action.")

    def _create_refund(self, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        intent = self.intents.get(form.get("payment_intent", ""))
        if intent is None:
            return 400, _error("invalid_request_error", "No such payment_intent.")
        refund_id = self.next_id("re")
        refund = {
            "id": refund_id,
            "object": "refund",
            "amount": int(form.get("amount", intent["amount"])),
            "payment_intent": intent["id"],
            "status": "succeeded",
            "metadata": {k[9:-1]: v for k, v in form.items() if k.startswith("metadata[")},
        }
        self.refunds[refund_id] = refund
        return 200, refund


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"error": {"type": kind, "message": message}}


def _handler(stub: StripeStub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode() if length else ""
            path, _, query = self.path.partition("?")
            form = dict(parse_qsl(body or query, keep_blank_values=True))
            with stub._lock:
                stub.calls.append(
                    Call(
                        self.command,
                        path,
                        form,
                        self.headers.get("Stripe-Account"),
                        self.headers.get("Idempotency-Key"),
                    )
                )
                status, answer = stub.answer(self.command, path, form)
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Request-Id", "req_stub")
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_DELETE = _serve  # noqa: N815 (http.server's names)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def running_stub() -> Iterator[StripeStub]:
    stub = StripeStub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(stub))
    server.daemon_threads = True
    stub.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture
def stripe_stub(settings: Any) -> Iterator[StripeStub]:
    """Stripe's API on a local port, the platform's keys set, one connected account."""
    with running_stub() as stub:
        settings.STRIPE_SECRET_KEY = "sk_test_encore_stub"
        settings.STRIPE_API_BASE = stub.url
        settings.STRIPE_WEBHOOK_SECRET = WEBHOOK_SECRET
        settings.STRIPE_CHECKOUT_ORIGIN = CHECKOUT_ORIGIN
        stub.accounts[ACCOUNT] = {"id": ACCOUNT, "object": "account", "charges_enabled": True}
        yield stub


# -- webhooks, signed as Stripe signs them ---------------------------------------------------
_event_ids = itertools.count(1)


def stripe_event(kind: str, obj: dict[str, Any], *, account: str = ACCOUNT) -> dict[str, Any]:
    return {
        "id": f"evt_test_{next(_event_ids):06d}",
        "object": "event",
        "type": kind,
        "account": account,
        "api_version": "2026-10-28.endive",
        "created": int(time.time()),
        "data": {"object": obj},
    }


def signature(payload: bytes, secret: str = WEBHOOK_SECRET, at: int | None = None) -> str:
    """`Stripe-Signature`: t=<unix time>,v1=<HMAC-SHA256 of "t.payload" with the secret>."""
    stamp = int(time.time()) if at is None else at
    signed = f"{stamp}.".encode() + payload
    digest = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    return f"t={stamp},v1={digest}"


def deliver(client: Any, event: dict[str, Any], *, header: str | None = "sign") -> Any:
    """POST the event to the webhook as Stripe would (a Django test `Client`)."""
    payload = json.dumps(event).encode()
    headers = {}
    if header == "sign":
        headers["Stripe-Signature"] = signature(payload)
    elif header is not None:
        headers["Stripe-Signature"] = header
    return client.post(
        "/api/payments/stripe/webhook",
        data=payload,
        content_type="application/json",
        headers=headers,
    )
