"""The base of the project's controllers: who is calling."""

from django.contrib.auth.models import AnonymousUser
from ninja_extra import ControllerBase

from accounts.models import User


class CallerController(ControllerBase):
    def _viewer(self) -> User | AnonymousUser:
        """What the route's auth returned: the User, or AnonymousUser on a route that
        allows anonymous callers (`common.api.optional_jwt_auth`)."""
        request = self.context.request if self.context else None
        return getattr(request, "auth", None)  # type: ignore[return-value]

    def _caller(self) -> User:
        """The authenticated user (JWTAuth has already refused anonymous calls with 401)."""
        user = self._viewer()
        assert isinstance(user, User)
        return user
