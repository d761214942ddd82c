"""Anonymous account routes: sign-up, JWT pair / refresh / logout, password reset."""

from django.http import HttpRequest
from ninja_extra import ControllerBase, api_controller, route
from ninja_extra.throttling import throttle

from accounts.models import User
from accounts.schema.auth import (
    PasswordResetConfirmSchema,
    PasswordResetRequestSchema,
    RefreshSchema,
    RegisterSchema,
    TokenPairInSchema,
    TokenPairSchema,
)
from accounts.schema.user import UserSchema
from accounts.service import password_reset, registration, tokens
from accounts.service.tokens import TokenPair
from common.api import ErrorSchema, WriteThrottle


@api_controller("/auth", auth=None, tags=["auth"])
class AuthController(ControllerBase):
    @route.post("/register", response={201: UserSchema, 400: ErrorSchema})
    @throttle(WriteThrottle)
    def register(self, payload: RegisterSchema) -> tuple[int, User]:
        return 201, registration.register_user(**payload.model_dump())

    @route.post("/token/pair", response={200: TokenPairSchema, 401: ErrorSchema})
    @throttle(WriteThrottle)
    def token_pair(self, request: HttpRequest, payload: TokenPairInSchema) -> TokenPair:
        return tokens.obtain_token_pair(request, email=payload.email, password=payload.password)

    @route.post("/token/refresh", response={200: TokenPairSchema, 401: ErrorSchema})
    @throttle(WriteThrottle)
    def token_refresh(self, payload: RefreshSchema) -> TokenPair:
        return tokens.rotate_refresh_token(payload.refresh)

    @route.post("/logout", response={204: None, 401: ErrorSchema})
    @throttle(WriteThrottle)
    def logout(self, payload: RefreshSchema) -> tuple[int, None]:
        tokens.revoke_refresh_token(payload.refresh)
        return 204, None

    @route.post("/password-reset", response={202: None})
    @throttle(WriteThrottle)
    def password_reset(self, payload: PasswordResetRequestSchema) -> tuple[int, None]:
        password_reset.request_password_reset(payload.email)
        return 202, None

    @route.post("/password-reset/confirm", response={204: None, 400: ErrorSchema})
    @throttle(WriteThrottle)
    def password_reset_confirm(self, payload: PasswordResetConfirmSchema) -> tuple[int, None]:
        password_reset.confirm_password_reset(
            uid=payload.uid, token=payload.token, password=payload.password
        )
        return 204, None


CONTROLLERS = [AuthController]
