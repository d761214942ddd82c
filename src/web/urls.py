"""The page routes of docs/spec/ui.md (the API stays under /api), one list per area of pages.

Order matters only under `/manage`: `/manage/events/…` and `/manage/series/…` come before
`/manage/{org_slug}`, so an organisation slug never shadows them.
"""

from django.urls import path

from web.views import account, home, images
from web.views.event import urls as event_urls
from web.views.manage import urls as manage_urls
from web.views.me import urls as me_urls
from web.views.series import urls as series_urls
from web.views.team import urls as team_urls
from web.views.tickets import urls as tickets_urls
from web.views.waitlist import urls as waitlist_urls

urlpatterns = [
    path("", home.home, name="home"),
    path("login", account.login_page, name="login"),
    path("logout", account.logout_page, name="logout"),
    path("signup", account.signup_page, name="signup"),
    path("signup/finish/<uidb64>/<token>", account.signup_finish_page, name="signup-finish"),
    path("images/<uuid:image_id>", images.image, name="image"),
    path("favicon.ico", images.favicon, name="favicon"),
    *me_urls.urlpatterns,
    *event_urls.urlpatterns,
    *series_urls.urlpatterns,
    *waitlist_urls.urlpatterns,
    *tickets_urls.urlpatterns,
    *team_urls.urlpatterns,
    *manage_urls.urlpatterns,
]
