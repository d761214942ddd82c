"""Uploaded pictures are kept re-encoded: upright, without metadata, no larger than asked."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from common.errors import InvalidInput
from events.core.services.images import MAX_UPLOAD_BYTES, delete_image, store_upload
from events.core.tests.pictures import picture_bytes, picture_upload
from events.models import StoredImage

pytestmark = pytest.mark.django_db


def _reopen(stored: StoredImage) -> Image.Image:
    picture = Image.open(io.BytesIO(bytes(stored.data)))
    picture.load()
    return picture


def _refusal(upload: SimpleUploadedFile) -> str:
    with pytest.raises(InvalidInput) as refused:
        store_upload(upload, max_size=(1200, 800), field="cover_image")
    assert StoredImage.objects.count() == 0
    return str(refused.value.extra["errors"]["cover_image"][0])


def test_a_camera_picture_is_kept_upright_scaled_to_fit_and_without_its_metadata() -> None:
    # Stored sideways with "turn right" in its EXIF, as a phone held upright saves it.
    data = picture_bytes(3000, 2000, orientation=6)
    stored = store_upload(SimpleUploadedFile("p.jpg", data), max_size=(1200, 1200))
    picture = _reopen(stored)
    assert (stored.content_type, picture.format) == ("image/webp", "WEBP")
    assert (stored.width, stored.height) == picture.size == (800, 1200)
    # Turned upright: the red half, left in the file, is now at the top.
    top, bottom = picture.getpixel((400, 100)), picture.getpixel((400, 1100))
    assert isinstance(top, tuple) and isinstance(bottom, tuple)
    assert top[0] > 200 > top[2] and bottom[2] > 200 > bottom[0]
    assert not picture.getexif()
    assert "icc_profile" not in picture.info and "exif" not in picture.info


def test_a_small_picture_keeps_its_size_and_a_transparent_one_its_transparency() -> None:
    stored = store_upload(
        SimpleUploadedFile("logo.png", picture_bytes(120, 60, image_format="PNG", mode="RGBA")),
        max_size=(400, 400),
    )
    assert (stored.width, stored.height) == (120, 60)
    picture = _reopen(stored)
    assert picture.mode == "RGBA"
    clear = picture.getpixel((10, 10))
    assert isinstance(clear, tuple) and clear[3] == 0


def test_a_gif_becomes_a_still_webp() -> None:
    stored = store_upload(
        picture_upload("a.gif", 300, 200, image_format="GIF"), max_size=(150, 150)
    )
    assert (stored.width, stored.height) == (150, 100)


def test_a_file_that_is_no_picture_is_refused_with_a_message_for_its_field() -> None:
    message = _refusal(SimpleUploadedFile("cover.jpg", b"%PDF-1.7 not a picture at all"))
    assert "not a picture" in message


def test_a_cut_off_picture_is_refused() -> None:
    data = picture_bytes(400, 300)
    assert "not a picture" in _refusal(SimpleUploadedFile("cut.jpg", data[: len(data) // 2]))


def test_a_file_over_the_size_limit_is_refused_before_it_is_read() -> None:
    upload = SimpleUploadedFile("big.jpg", b"\0" * (MAX_UPLOAD_BYTES + 1))
    assert "10 MB" in _refusal(upload)


def test_a_small_file_claiming_a_huge_canvas_is_refused_from_its_header() -> None:
    # 64 megapixels of one colour compress to a few kilobytes.
    data = picture_bytes(8000, 8000, image_format="PNG", mode="1")
    assert len(data) < 100_000
    assert "megapixels" in _refusal(SimpleUploadedFile("bomb.png", data))


def test_a_replaced_picture_is_deleted_and_none_is_nothing_to_delete() -> None:
    stored = store_upload(picture_upload(), max_size=(200, 200))
    delete_image(None)
    delete_image(stored.pk)
    assert not StoredImage.objects.exists()
