"""The web sign-up's last step: a signed, single-use link by e-mail that signs the new
account in (ADR 0038).

`/signup` answers a new address and a taken one with the same page ("check your
e-mail"), so the page tells no one which addresses have an account, as the API's
registration does not (ADR 0011). The new account's owner gets this link; the owner of
a taken address gets the registration notice instead. The token is Django's reset token
under a salt of its own: it embeds the password hash and the last log-in, so it dies at
the first sign-in (single use) and after PASSWORD_RESET_TIMEOUT, and a password-reset
token never opens it.
"""

from django.contrib.auth.tokens import PasswordResetTokenGenerator

from accounts.models import User
from accounts.service.account_mail import account_for_link, link_uid, send_account_mail
from common import dispatch, links

SUBJECT = "Finish signing up to Encore"


class _SignupLinkTokens(PasswordResetTokenGenerator):
    key_salt = "encore.accounts.signup_link"


TOKENS = _SignupLinkTokens()


def request_signup_link(user: User, next_path: str) -> None:
    """After commit, a task mails the link (the broker down: kept in the outbox)."""
    dispatch.after_commit("accounts.send_signup_link", str(user.pk), next_path)


def send_signup_link(user_id: str, next_path: str) -> bool:
    """Mail the link to an active account that never signed in; True when it went out."""
    user = User.objects.filter(pk=user_id, is_active=True, last_login__isnull=True).first()
    if user is None:
        return False
    link = links.signup_finish_url(link_uid(user), TOKENS.make_token(user), next_path)
    return send_account_mail(user, template="signup_link", subject=SUBJECT, context={"link": link})


def user_for_link(uid: str, token: str) -> User | None:
    """The account the link was made for while the link still works, else None."""
    return account_for_link(uid, token, TOKENS)
