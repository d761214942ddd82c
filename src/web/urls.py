"""The page routes of ui.md (the API stays under /api)."""

from django.urls import path

from web.views import account, home

urlpatterns = [
    path("", home.home, name="home"),
    path("login", account.login_page, name="login"),
    path("logout", account.logout_page, name="logout"),
    path("signup", account.signup_page, name="signup"),
]
