"""The event's cover image (uploaded on the event form, shown on the event page), the
venue's map link, and descriptions written in Markdown, sanitised."""

import io
import re

import pytest
from django.test import Client
from PIL import Image

from accounts.tests.factories import make_user
from events.core.services.images import set_event_cover
from events.core.tests.factories import make_event, make_org
from events.core.tests.pictures import picture_upload
from events.models import Event, StoredImage, Venue
from web.templatetags.encore_web import markdown
from web.tests.event.support import page_body
from web.tests.manage.helpers import body, signed_in_client
from web.tests.manage.test_event_form import _fields as event_fields

pytestmark = pytest.mark.django_db


def _cover_of(event: Event) -> Image.Image:
    event.refresh_from_db()
    assert event.cover_image_id is not None
    stored = StoredImage.objects.get(pk=event.cover_image_id)
    return Image.open(io.BytesIO(bytes(stored.data)))


def test_a_new_event_takes_a_cover_scaled_down_and_the_page_shows_it_with_its_name() -> None:
    owner = make_user()
    make_org(owner, slug="choir")
    client = signed_in_client(owner)
    form = event_fields() | {"cover_image": picture_upload("c.png", 3200, 1600, image_format="PNG")}
    assert client.post("/manage/choir/events/new", form).status_code == 302
    event = Event.objects.get(name="Spring Concert")
    assert _cover_of(event).size == (1600, 800)
    event.status = Event.Status.OPEN
    event.save(update_fields=["status"])
    page = page_body(Client(), event)
    assert (
        f'<img class="event-cover" src="/images/{event.cover_image_id}" alt="Spring Concert"'
        ' width="1600" height="800">'
    ) in page


def test_a_file_that_is_no_picture_is_refused_next_to_its_field_and_saves_nothing() -> None:
    owner = make_user()
    make_org(owner, slug="choir")
    form = event_fields() | {"cover_image": io.BytesIO(b"plain text, not a picture")}
    response = signed_in_client(owner).post("/manage/choir/events/new", form)
    assert response.status_code == 400
    assert 'id="id_cover_image_error"' in body(response)
    assert "not a picture we can read" in body(response)
    assert not Event.objects.exists() and not StoredImage.objects.exists()


def test_editing_replaces_the_cover_and_remove_cover_image_takes_it_away() -> None:
    owner = make_user()
    event = make_event(make_org(owner, slug="choir"), name="Spring Concert")
    client = signed_in_client(owner)
    edit = f"/manage/events/{event.pk}/edit"
    assert "Remove cover image" not in body(client.get(edit))
    client.post(edit, event_fields() | {"cover_image": picture_upload(width=400, height=300)})
    first = Event.objects.get(pk=event.pk).cover_image_id
    assert "Remove cover image" in body(client.get(edit))
    client.post(edit, event_fields() | {"cover_image": picture_upload(width=300, height=400)})
    event.refresh_from_db()
    assert event.cover_image_id != first
    assert list(StoredImage.objects.values_list("pk", flat=True)) == [event.cover_image_id]
    client.post(edit, event_fields())  # no upload, no tick: the cover stays
    assert Event.objects.get(pk=event.pk).cover_image_id == event.cover_image_id
    client.post(edit, event_fields() | {"remove_cover_image": "on"})
    assert Event.objects.get(pk=event.pk).cover_image_id is None
    assert not StoredImage.objects.exists()


def test_the_page_without_a_cover_or_venue_shows_no_picture_and_no_map(client: Client) -> None:
    event = make_event()
    set_event_cover(event.pk, cover=None)
    page = page_body(client, event)
    assert "event-cover" not in page and "Open map" not in page


def test_the_venue_has_a_map_link_to_its_address_and_nothing_loads_from_elsewhere(
    client: Client,
) -> None:
    organization = make_org()
    venue = Venue.objects.create(
        organization=organization, name="Kesselhaus", address="Knaackstr. 97, Berlin"
    )
    page = page_body(client, make_event(organization, venue=venue))
    assert (
        '<a class="map-link" href="https://www.openstreetmap.org/search?query='
        'Knaackstr.%2097%2C%20Berlin" rel="noopener noreferrer">Open map</a>'
    ) in page
    assert 'src="https://' not in page


def test_a_description_in_markdown_is_rendered_and_scripts_and_javascript_links_are_not(
    client: Client,
) -> None:
    description = (
        "## Programme\n\n**Choir** and [strings](https://example.org/strings)\n\n"
        "<script>alert(1)</script>\n\n[click](javascript:alert(1))\n\n"
        '<a href="javascript:alert(2)">raw</a> ![pic](https://tracker.example/p.png)'
    )
    page = page_body(client, make_event(description=description))
    assert "<h4>Programme</h4>" in page
    assert "<strong>Choir</strong>" in page
    assert '<a href="https://example.org/strings" rel="nofollow noopener">strings</a>' in page
    assert "<script>alert" not in page
    assert not re.search(r"<a[^>]*javascript:", page)  # the raw tag shows as text
    assert '<a href="https://tracker.example/p.png" rel="nofollow noopener">pic</a>' in page


def test_the_markdown_filter_keeps_nothing_but_markdowns_own_tags() -> None:
    html = markdown('<img src=x onerror="alert(1)"> <iframe src="https://e.example"></iframe>')
    assert "<img" not in html and "<iframe" not in html
    assert markdown("") == "" and markdown(None) == ""
