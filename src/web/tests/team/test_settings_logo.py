"""The logo on `/manage/<org_slug>/settings`: uploaded with the other fields, re-encoded
by the app, shown on the settings and organisation pages; a file that is not a picture
is refused next to the field and changes nothing."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from accounts.tests.factories import make_user
from events.core.tests.factories import make_org
from events.models import Organization, StoredImage
from web.tests.manage.helpers import body, signed_in_client

pytestmark = pytest.mark.django_db

URL = "/manage/jazz-club/settings"
FIELDS = {"name": "Jazz Club", "timezone": "UTC"}


def _png(size: tuple[int, int] = (900, 300)) -> SimpleUploadedFile:
    out = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(out, format="PNG")
    return SimpleUploadedFile("logo.png", out.getvalue(), content_type="image/png")


@pytest.fixture
def club() -> Organization:
    return make_org(make_user(), name="Jazz Club", slug="jazz-club")


def test_an_uploaded_logo_is_scaled_down_kept_and_shown(club: Organization) -> None:
    client = signed_in_client(club.owner)
    response = client.post(URL, {**FIELDS, "logo": _png()})
    assert response.status_code == 302
    club.refresh_from_db()
    assert club.logo_id is not None
    logo = StoredImage.objects.get(pk=club.logo_id)
    assert (logo.width, logo.height) == (480, 160)
    assert f'src="/images/{logo.pk}" alt="Logo of Jazz Club"' in body(client.get(URL))
    assert f'<img class="org-logo" src="/images/{logo.pk}"' in body(client.get("/manage/jazz-club"))
    served = client.get(f"/images/{logo.pk}")
    assert served.status_code == 200
    assert served["Content-Type"] == "image/webp"


def test_a_new_logo_replaces_the_old_picture_and_remove_drops_it(club: Organization) -> None:
    client = signed_in_client(club.owner)
    client.post(URL, {**FIELDS, "logo": _png()})
    club.refresh_from_db()
    first = club.logo_id
    client.post(URL, {**FIELDS, "logo": _png((64, 64))})
    club.refresh_from_db()
    assert club.logo_id != first
    assert list(StoredImage.objects.values_list("pk", flat=True)) == [club.logo_id]
    assert " Remove the logo</label>" in body(client.get(URL))
    client.post(URL, {**FIELDS, "remove_logo": "on"})
    club.refresh_from_db()
    assert club.logo_id is None
    assert not StoredImage.objects.exists()


def test_a_file_that_is_not_a_picture_is_refused_and_nothing_changes(club: Organization) -> None:
    fake = SimpleUploadedFile("logo.png", b"%PDF-1.4 not a picture", content_type="image/png")
    response = signed_in_client(club.owner).post(
        URL, {**FIELDS, "name": "Renamed Club", "logo": fake}
    )
    assert response.status_code == 400
    page = body(response)
    assert 'id="id_logo_error"' in page
    assert "This file is not a picture we can read" in page
    club.refresh_from_db()
    assert club.name == "Jazz Club"
    assert club.logo_id is None
    assert not StoredImage.objects.exists()


def test_a_refused_field_keeps_the_old_logo_and_stores_no_picture(club: Organization) -> None:
    make_org(name="Taken Club", slug="taken-club")
    response = signed_in_client(club.owner).post(
        URL, {**FIELDS, "name": "Taken Club", "logo": _png()}
    )
    assert response.status_code == 400
    assert not StoredImage.objects.exists()
