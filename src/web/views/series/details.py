"""`/manage/series/{id}/details`: "Edit series" (name, description, slug).

`PATCH …/event-series/{id}`'s service (`recurrence_service.update_series`), behind the
same `edit_event_series`: a slug another series uses or used (409 `slug_taken`) is shown
next to "Slug" and nothing is saved; the old address of a renamed series redirects.
"""

import uuid

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext

from common.errors import Conflict, InvalidInput
from events.series import services as recurrence_service
from events.series.errors import SeriesSlugTaken
from events.series.selectors.series_pages import access_series_by_id
from web.forms.series_details import SeriesDetailsForm, details_initial
from web.views.access import signed_in
from web.views.series.errors import add_service_errors
from web.views.series.manage import EDIT, series_url


@signed_in
def edit_details(request: HttpRequest, series_id: uuid.UUID) -> HttpResponse:
    series = access_series_by_id(request.user, series_id, EDIT)
    status = 200
    if request.method != "POST":
        form = SeriesDetailsForm(initial=details_initial(series))
    else:
        form = SeriesDetailsForm(request.POST)
        status = 400
        if form.is_valid():
            try:
                recurrence_service.update_series(series, form.cleaned_data)
            except SeriesSlugTaken:
                form.add_error("slug", gettext("Another series uses or used this slug."))
                status = 409
            except (InvalidInput, ValidationError, Conflict) as exc:
                add_service_errors(form, exc)
            else:
                messages.success(request, gettext("The series was saved."))
                return redirect(series_url(series))
    context = {"series": series, "form": form}
    return render(request, "web/series/details.html", context, status=status)
