"""Bodies of the anonymous /auth routes."""

from ninja import Schema
from pydantic import Field


class RegisterSchema(Schema):
    email: str = Field(..., max_length=254)
    password: str = Field(..., max_length=128)
    first_name: str = Field("", max_length=150)
    last_name: str = Field("", max_length=150)
    timezone: str = Field("UTC", max_length=64)


class TokenPairInSchema(Schema):
    email: str = Field(..., max_length=254)
    password: str = Field(..., max_length=128)


class TokenPairSchema(Schema):
    access: str
    refresh: str


class RefreshSchema(Schema):
    refresh: str = Field(..., max_length=4096)


class PasswordResetRequestSchema(Schema):
    email: str = Field(..., max_length=254)


class PasswordResetConfirmSchema(Schema):
    uid: str = Field(..., max_length=64)
    token: str = Field(..., max_length=128)
    password: str = Field(..., max_length=128)
