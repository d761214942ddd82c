"""Real local servers for the channel tests: an SMTP server and a Telegram Bot API stub.

Both listen on 127.0.0.1 only, on a free port, and record what they receive so a test can
assert on the bytes that really went over the wire.
"""

import email
import json
import socket
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.policy import default as default_policy
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from common.tests.ports import free_port


class RecordingSmtpHandler:
    """Accepts every message, unless a reply was queued with `fail_next` (e.g. '451 ...')."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.envelopes: list[Envelope] = []
        self.replies: deque[str] = deque()
        self.lock = threading.Lock()

    def fail_next(self, *replies: str) -> None:
        self.replies.extend(replies)

    async def handle_DATA(  # noqa: N802 (the name aiosmtpd calls)
        self, server: SMTP, session: Session, envelope: Envelope
    ) -> str:
        with self.lock:
            if self.replies:
                return self.replies.popleft()
            content = envelope.content if isinstance(envelope.content, bytes) else b""
            message = email.message_from_bytes(content, policy=default_policy)
            assert isinstance(message, EmailMessage)
            self.messages.append(message)
            self.envelopes.append(envelope)
        return "250 Message accepted for delivery"


@dataclass
class SmtpServer:
    host: str
    port: int
    handler: RecordingSmtpHandler

    @property
    def messages(self) -> list[EmailMessage]:
        return self.handler.messages


@contextmanager
def run_smtp_server() -> Iterator[SmtpServer]:
    handler = RecordingSmtpHandler()
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield SmtpServer(host="127.0.0.1", port=port, handler=handler)
    finally:
        controller.stop()


@contextmanager
def smtp_backend(settings: Any) -> Iterator[SmtpServer]:
    """A real SMTP server on 127.0.0.1, with Django's SMTP backend pointed at it.

    `settings` is pytest-django's fixture, which restores the e-mail settings afterwards.
    """
    with run_smtp_server() as server:
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST, settings.EMAIL_PORT = server.host, server.port
        settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
        settings.EMAIL_USE_TLS = False
        settings.EMAIL_TIMEOUT = 5
        yield server


@dataclass
class BotApiStub:
    """A stand-in for api.telegram.org: records requests, answers from a queue (else 200)."""

    requests: list[dict[str, Any]] = field(default_factory=list)
    responses: deque[tuple[int, dict[str, Any]]] = field(default_factory=deque)
    delay_seconds: float = 0.0
    server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self.server is not None
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}"

    def reply(self, status: int, body: dict[str, Any]) -> None:
        self.responses.append((status, body))

    def next_response(self, payload: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if self.responses:
            return self.responses.popleft()
        message = {"message_id": len(self.requests), "chat": {"id": payload.get("chat_id")}}
        return 200, {"ok": True, "result": message}


@contextmanager
def run_bot_api_stub() -> Iterator[BotApiStub]:
    stub = BotApiStub()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            payload = json.loads(self.rfile.read(length) or b"{}")
            with lock:
                stub.requests.append({"path": self.path, "json": payload})
                status, body = stub.next_response(payload)
            if stub.delay_seconds:
                threading.Event().wait(stub.delay_seconds)
            raw = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, format: str, *args: Any) -> None:  # quiet test output
            return

    stub.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(
        target=stub.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield stub
    finally:
        stub.server.shutdown()
        stub.server.server_close()
        thread.join(timeout=5)


@dataclass
class SilentServer:
    """Accepts TCP connections and never says a word (no greeting, no reply): the SMTP
    server of the issue that held a worker, or a hung Redis. `connections` counts those
    accepted."""

    host: str
    port: int
    connections: int = 0


@contextmanager
def run_silent_server() -> Iterator[SilentServer]:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    listener.settimeout(0.1)
    server = SilentServer(host="127.0.0.1", port=listener.getsockname()[1])
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept_forever() -> None:
        while not stop.is_set():
            try:
                peer, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            held.append(peer)  # kept open, never answered
            server.connections += 1

    thread = threading.Thread(target=accept_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        stop.set()
        thread.join(timeout=5)
        for peer in held:
            peer.close()
        listener.close()
