"""`/images/{image_id}`: a stored picture with its type, cached for good; none → 404."""

import uuid

import pytest
from django.test import Client

from events.core.services.images import store_upload
from events.core.tests.pictures import picture_upload

pytestmark = pytest.mark.django_db


def test_a_stored_picture_is_served_with_its_type_and_cached_for_a_year(
    client: Client, django_assert_num_queries: object
) -> None:
    stored = store_upload(picture_upload(), max_size=(400, 300))
    with django_assert_num_queries(1):  # type: ignore[operator]
        response = client.get(f"/images/{stored.pk}")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/webp"
    assert response["Cache-Control"] == "public, max-age=31536000, immutable"
    assert response.content == bytes(stored.data)
    assert client.head(f"/images/{stored.pk}").status_code == 200


def test_an_unknown_picture_is_not_found_and_a_post_is_refused(client: Client) -> None:
    assert client.get(f"/images/{uuid.uuid4()}").status_code == 404
    stored = store_upload(picture_upload(), max_size=(40, 30))
    assert client.post(f"/images/{stored.pk}").status_code == 405
