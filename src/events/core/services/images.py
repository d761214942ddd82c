"""Pictures organisers upload (event covers, organisation logos), re-encoded before they are kept.

The uploaded file itself is never stored or served: it is decoded, turned upright, stripped
of its metadata (camera, place, time), scaled down to what the page shows and encoded
again, so what the app serves is a picture it made itself (ADR 0039). Each upload is a new
row, so a picture's id names its bytes for ever and can be cached without end.
"""

import io
import uuid
from dataclasses import dataclass
from typing import IO

from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone
from PIL import Image, ImageOps, UnidentifiedImageError

from common.errors import InvalidInput
from events.models import Event, StoredImage

#: A bigger file is refused before it is decoded.
MAX_UPLOAD_BYTES = 10 * 1024 * 1024
#: A bigger picture is refused from its header, before its pixels are decoded: a small
#: file can claim a huge canvas (a "decompression bomb"). Covers a 48-megapixel camera.
MAX_PIXELS = 50_000_000
#: The formats a browser uploads; every other decoder Pillow has stays unused.
ACCEPTED_FORMATS = ("JPEG", "PNG", "GIF", "WEBP")
CONTENT_TYPE = "image/webp"
#: An event's cover: wide enough for the page's column on a sharp screen.
COVER_SIZE = (1600, 1000)
WEBP_QUALITY = 82

NOT_AN_IMAGE = "This file is not a picture we can read: upload a JPEG, PNG, GIF or WebP image."
TOO_LARGE = "This file is larger than 10 MB: upload a smaller picture."
TOO_MANY_PIXELS = "This picture is larger than 50 megapixels: upload a smaller one."


@dataclass(frozen=True)
class PreparedImage:
    """A picture re-encoded and ready to store: what a form checks before anything is saved."""

    content_type: str
    width: int
    height: int
    data: bytes


def prepare_upload(
    upload: UploadedFile | IO[bytes],
    *,
    max_size: tuple[int, int],
    field: str = "image",
) -> PreparedImage:
    """Re-encode the picture to fit `max_size`; a file that is not one is refused.

    `field` names the form field the refusal belongs to. Nothing is written: a form can
    check its upload before the record it belongs to is saved.
    """
    data = _read_bounded(upload, field)
    picture = _decode(data, max_size, field)
    picture = ImageOps.exif_transpose(picture)
    picture.thumbnail(max_size, Image.Resampling.LANCZOS)
    return PreparedImage(CONTENT_TYPE, picture.width, picture.height, _encode(picture))


def save_prepared(prepared: PreparedImage) -> StoredImage:
    return StoredImage.objects.create(
        content_type=prepared.content_type,
        width=prepared.width,
        height=prepared.height,
        data=prepared.data,
    )


def store_upload(
    upload: UploadedFile | IO[bytes],
    *,
    max_size: tuple[int, int],
    field: str = "image",
) -> StoredImage:
    """`prepare_upload`, then kept as a new row."""
    return save_prepared(prepare_upload(upload, max_size=max_size, field=field))


def set_event_cover(event_id: uuid.UUID, *, cover: PreparedImage | None) -> None:
    """Give the event this cover (None: no cover); the picture it replaces is deleted.

    The event's row is locked so that two organisers saving at once leave one cover and
    no orphan picture.
    """
    with transaction.atomic():
        old = (
            Event.objects.select_for_update(of=("self",))
            .values_list("cover_image_id", flat=True)
            .get(pk=event_id)
        )
        new = save_prepared(cover) if cover is not None else None
        Event.objects.filter(pk=event_id).update(cover_image=new, updated_at=timezone.now())
        delete_image(old)


def delete_image(image_id: uuid.UUID | None) -> None:
    """Drop a picture nobody shows any more (a cover or a logo that was replaced)."""
    if image_id is not None:
        StoredImage.objects.filter(pk=image_id).delete()


def _read_bounded(upload: UploadedFile | IO[bytes], field: str) -> bytes:
    size = getattr(upload, "size", None)
    if size is not None and size > MAX_UPLOAD_BYTES:
        raise InvalidInput({field: [TOO_LARGE]}, TOO_LARGE)
    upload.seek(0)
    data = upload.read(MAX_UPLOAD_BYTES + 1)
    if len(data) > MAX_UPLOAD_BYTES:
        raise InvalidInput({field: [TOO_LARGE]}, TOO_LARGE)
    if not data:
        raise InvalidInput({field: [NOT_AN_IMAGE]}, NOT_AN_IMAGE)
    return data


def _decode(data: bytes, max_size: tuple[int, int], field: str) -> Image.Image:
    """Open from the header, refuse a huge canvas, then decode every pixel (a truncated
    or corrupt file fails here, not later while it is encoded)."""
    try:
        picture = Image.open(io.BytesIO(data), formats=ACCEPTED_FORMATS)
        if picture.width * picture.height > MAX_PIXELS:
            raise InvalidInput({field: [TOO_MANY_PIXELS]}, TOO_MANY_PIXELS)
        # A JPEG decodes straight at a fraction of its size when that still covers the
        # target whichever way it turns: less memory for a camera's picture.
        side = max(max_size)
        picture.draft("RGB", (side, side))
        picture.load()
    except (
        UnidentifiedImageError,
        Image.DecompressionBombError,
        OSError,
        SyntaxError,
        ValueError,
    ) as error:
        raise InvalidInput({field: [NOT_AN_IMAGE]}, NOT_AN_IMAGE) from error
    return picture


def _encode(picture: Image.Image) -> bytes:
    """WebP from the pixels alone: no EXIF, no colour profile, no comment survives."""
    mode = "RGBA" if picture.has_transparency_data else "RGB"
    clean = picture.convert(mode)
    clean.info.clear()
    out = io.BytesIO()
    clean.save(out, format="WEBP", quality=WEBP_QUALITY, method=4)
    return out.getvalue()
