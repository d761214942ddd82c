"""Errors of the accounts app, in the project's one error family (common.errors)."""

from common.errors import EncoreError


class InvalidCredentials(EncoreError):
    """Wrong e-mail or password; deliberately silent about which one was wrong."""

    status_code = 401
    default_code = "invalid_credentials"
    default_detail = "No active account was found with these credentials."


class InvalidRefreshToken(EncoreError):
    """A refresh token that is malformed, expired, already rotated or logged out.

    Same code as the shared handler uses for a bad access token, so clients need one branch.
    """

    status_code = 401
    default_code = "token_not_valid"
    default_detail = "Invalid or expired token."


class InvalidResetToken(EncoreError):
    """A password-reset link that is malformed, expired or already used."""

    default_code = "invalid_token"
    default_detail = "This password reset link is invalid or has expired."


class UserDeletionRefused(EncoreError):
    """A user may not be deleted yet; `detail` says why and what to do first.

    accounts only defines the family: the apps holding what blocks a deletion (events:
    paid tickets, owned organisations) raise subclasses with their own `code` from their
    `user_deletion_requested` receivers (accounts.signals).
    """

    status_code = 409
    default_code = "user_deletion_refused"
    default_detail = "This user cannot be deleted yet."
