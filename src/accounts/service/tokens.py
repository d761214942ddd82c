"""JWT sessions: log in with e-mail and password, rotate the refresh token, log out.

Refresh tokens are single-use: rotating one blacklists it, and so does logging out.
Access tokens are stateless and simply run out (1 h, settings.NINJA_JWT).
"""

from dataclasses import dataclass

from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone
from ninja_jwt.exceptions import TokenError
from ninja_jwt.settings import api_settings
from ninja_jwt.token_blacklist.models import BlacklistedToken, OutstandingToken
from ninja_jwt.tokens import RefreshToken
from ninja_jwt.utils import datetime_from_epoch

from accounts.errors import InvalidCredentials, InvalidRefreshToken
from accounts.models import User
from accounts.service import login_limits


@dataclass(frozen=True)
class TokenPair:
    access: str
    refresh: str


def issue_token_pair(user: User) -> TokenPair:
    """A fresh pair; the refresh token is recorded as outstanding so it can be revoked."""
    # ninja_jwt annotates for_user with an unbound TypeVar that mypy cannot solve.
    refresh = RefreshToken.for_user(user)  # type: ignore[misc]
    return TokenPair(access=str(refresh.access_token), refresh=str(refresh))


def obtain_token_pair(request: HttpRequest, *, email: str, password: str) -> TokenPair:
    """Log in. Inactive accounts are refused like wrong passwords (Django's ModelBackend);
    too many failures on the account or from the client → 429 (login_limits)."""
    user = login_limits.authenticate(request, email=email, password=password)
    if user is None:
        raise InvalidCredentials()
    return issue_token_pair(user)


@transaction.atomic
def rotate_refresh_token(raw_refresh: str) -> TokenPair:
    """Trade a refresh token for a new pair; the old refresh token is blacklisted.

    Two concurrent rotations of the same token race for the blacklist row (unique per
    token): the loser gets 401, so a stolen-and-replayed token never yields two sessions.
    """
    refresh = _verified(raw_refresh)
    user = _token_user(refresh)
    if not _blacklist(refresh):
        raise InvalidRefreshToken()
    return issue_token_pair(user)


@transaction.atomic
def revoke_refresh_token(raw_refresh: str) -> None:
    """Log out: blacklist the refresh token. An already revoked token is a 401 like any bad one."""
    refresh = _verified(raw_refresh)
    _blacklist(refresh)


def revoke_all_refresh_tokens(user: User) -> int:
    """Blacklist every unexpired refresh token of the user (after a password reset)."""
    live = OutstandingToken.objects.filter(
        user=user, expires_at__gt=timezone.now(), blacklistedtoken__isnull=True
    )
    rows = [BlacklistedToken(token=token) for token in live]
    BlacklistedToken.objects.bulk_create(rows, ignore_conflicts=True)
    return len(rows)


def _verified(raw_refresh: str) -> RefreshToken:
    """Signature, expiry, token type and blacklist, all checked by ninja_jwt."""
    try:
        return RefreshToken(raw_refresh)
    except TokenError as error:
        raise InvalidRefreshToken() from error


def _token_user(refresh: RefreshToken) -> User:
    user_id = refresh.payload.get(api_settings.USER_ID_CLAIM)
    user = User.objects.filter(pk=user_id, is_active=True).first() if user_id else None
    if user is None:
        raise InvalidRefreshToken()
    return user


def _blacklist(refresh: RefreshToken) -> bool:
    """Blacklist the token; False when someone else blacklisted it first."""
    jti = refresh.payload[api_settings.JTI_CLAIM]
    outstanding, _ = OutstandingToken.objects.get_or_create(
        jti=jti,
        defaults={"token": str(refresh), "expires_at": datetime_from_epoch(refresh.payload["exp"])},
    )
    _, created = BlacklistedToken.objects.get_or_create(token=outstanding)
    return created
