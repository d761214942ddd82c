"""`/manage/series/{id}/details`: the series' own name, description and public slug."""

from django import forms
from django.core.validators import validate_slug
from django.utils.translation import gettext_lazy as _

from events.models import EventSeries

SLUG_MAX = EventSeries._meta.get_field("slug").max_length


class SeriesDetailsForm(forms.Form):
    """The fields of `PATCH …/event-series/{id}` a person edits as text."""

    name = forms.CharField(label=_("Name"), max_length=150)
    description = forms.CharField(label=_("Description"), required=False, widget=forms.Textarea)
    slug = forms.CharField(
        label=_("Slug"),
        max_length=SLUG_MAX,
        validators=[validate_slug],
        help_text=_("The series' public address; the old one keeps working."),
    )


def details_initial(series: EventSeries) -> dict[str, str]:
    return {"name": series.name, "description": series.description, "slug": series.slug}
