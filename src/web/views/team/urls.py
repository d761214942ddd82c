"""Routes of the team and organisation settings pages, included by `web.urls`.

`web.urls` lists them before `/manage/<org_slug>`, whose own routes they never shadow:
each has a fixed segment (`team`, `settings`) after the organisation's slug.
"""

from django.urls import URLPattern, path

from web.views.team import organization_settings, team

urlpatterns: list[URLPattern] = [
    path("manage/<slug:org_slug>/team", team.team_page, name="manage-team"),
    path("manage/<slug:org_slug>/team/add", team.add_staff, name="manage-team-add"),
    path(
        "manage/<slug:org_slug>/team/<uuid:user_id>",
        team.save_permissions,
        name="manage-team-save",
    ),
    path(
        "manage/<slug:org_slug>/team/<uuid:user_id>/remove",
        team.remove_staff,
        name="manage-team-remove",
    ),
    path(
        "manage/<slug:org_slug>/settings",
        organization_settings.settings_page,
        name="manage-org-settings",
    ),
]
