"""Log-in limits: failed password checks counted per account and per client IP.

Both log-in paths (the API's token pair and the Django admin) authenticate through
`authenticate` below, so one rule holds for both: at most LOGIN_FAILURES_PER_ACCOUNT
failures on one address and LOGIN_FAILURES_PER_IP from one client (common.client_ip) in
LOGIN_FAILURE_WINDOW_SECONDS; beyond that, `Throttled` (429 with Retry-After) until the
window closes. `THROTTLE_ENABLED=false` switches both off.

How an attempt is counted, and why:
- The attempt takes its place in both counters *before* the password is checked
  (`rate_limit.hit`), so concurrent attempts in several processes get distinct counts
  and exactly the limit of them reach the password check; a refused attempt gives its
  places back and never touches the password hasher (no CPU or timing cost to it).
- A successful log-in gives its places back too: the counters count failures, nothing
  else. It resets nothing: were a success to clear the client's counter, an attacker
  could interleave log-ins to an account of their own and guess without limit. Clearing
  the account's counter would be safe from that (it takes the password) but would give
  the attacker a fresh allowance whenever the owner logs in; one rule is simpler.
  A completed password reset does clear the account's counter: the owner proved they
  hold the mailbox, the old password is gone, and they can log in at once.
- Unknown addresses are counted like real ones, so the limit reveals nothing either.
- Keys hold a digest of the address, not the address itself.
"""

import hashlib
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import authenticate as django_authenticate
from django.http import HttpRequest

from accounts.models import User
from accounts.service.registration import normalize_email
from common import rate_limit
from common.client_ip import client_limit_key
from common.errors import Throttled


@dataclass(frozen=True)
class _Places:
    keys: tuple[str, ...]

    def give_back(self) -> None:
        for key in self.keys:
            rate_limit.undo(key)


def authenticate(request: HttpRequest, *, email: str, password: str) -> User | None:
    """The active user with these credentials, else None (a counted failure).

    Raises `Throttled` without checking the password when the account or the client is
    over its limit.
    """
    email = normalize_email(email)
    if not settings.THROTTLE_ENABLED:
        return _check_password(request, email, password)
    places = _take_places(account_key(email), ip_key(client_limit_key(request)))
    user = _check_password(request, email, password)
    if user is not None:
        places.give_back()
    return user


def account_key(email: str) -> str:
    digest = hashlib.sha256(normalize_email(email).encode()).hexdigest()[:32]
    return f"login:account:{digest}"


def ip_key(client: str) -> str:
    return f"login:ip:{client}"


def forget_account_failures(email: str) -> None:
    """Clear the account's counter: its owner proved control of the address (reset)."""
    rate_limit.reset(account_key(email))


def _take_places(account: str, client: str) -> _Places:
    """One place in each counter, or `Throttled` (with every place taken given back)."""
    window = int(settings.LOGIN_FAILURE_WINDOW_SECONDS)
    taken: list[str] = []
    for key, limit in (
        (client, int(settings.LOGIN_FAILURES_PER_IP)),
        (account, int(settings.LOGIN_FAILURES_PER_ACCOUNT)),
    ):
        counted = rate_limit.hit(key, window)
        taken.append(key)
        if counted.count > limit:
            _Places(tuple(taken)).give_back()
            raise Throttled(
                counted.retry_after,
                detail="Too many failed log-in attempts; please try again later.",
            )
    return _Places(tuple(taken))


def _check_password(request: HttpRequest, email: str, password: str) -> User | None:
    """Django's backends (ModelBackend: inactive accounts fail like wrong passwords, and an
    unknown address still costs one hash, so timing does not tell them apart)."""
    user = django_authenticate(request, email=email, password=password)
    return user if isinstance(user, User) else None
