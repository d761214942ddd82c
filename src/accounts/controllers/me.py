"""The caller's own account: GET/PATCH /me."""

from ninja_extra import api_controller, route
from ninja_extra.throttling import throttle
from ninja_jwt.authentication import JWTAuth

from accounts.controllers.base import CallerController
from accounts.models import User
from accounts.schema.user import ProfilePatchSchema, UserSchema
from accounts.service import profile
from common.api import ErrorSchema, WriteThrottle


@api_controller("/me", auth=JWTAuth(), tags=["me"])
class MeController(CallerController):
    @route.get("", response={200: UserSchema})
    def me(self) -> User:
        return self._caller()

    @route.patch("", response={200: UserSchema, 400: ErrorSchema})
    @throttle(WriteThrottle)
    def update_me(self, payload: ProfilePatchSchema) -> User:
        return profile.update_profile(self._caller(), payload.model_dump(exclude_unset=True))


CONTROLLERS = [MeController]
