"""The caller's own account: GET/PATCH /me."""

from ninja_extra import ControllerBase, api_controller, route
from ninja_extra.throttling import throttle
from ninja_jwt.authentication import JWTAuth

from accounts.models import User
from accounts.schema.user import ProfilePatchSchema, UserSchema
from accounts.service import profile
from common.api import ErrorSchema, WriteThrottle


@api_controller("/me", auth=JWTAuth(), tags=["me"])
class MeController(ControllerBase):
    @route.get("", response={200: UserSchema})
    def me(self) -> User:
        return self._caller()

    @route.patch("", response={200: UserSchema, 400: ErrorSchema})
    @throttle(WriteThrottle)
    def update_me(self, payload: ProfilePatchSchema) -> User:
        return profile.update_profile(self._caller(), payload.model_dump(exclude_unset=True))

    def _caller(self) -> User:
        user = self.context.request.auth if self.context and self.context.request else None  # type: ignore[union-attr]
        assert isinstance(user, User)
        return user


CONTROLLERS = [MeController]
