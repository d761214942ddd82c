"""Reading a stored picture back for the page that shows it."""

import uuid

from events.models import StoredImage


def get_image(image_id: uuid.UUID) -> StoredImage | None:
    """The picture's bytes and type only: its size is on the page that links it."""
    return StoredImage.objects.only("content_type", "data").filter(pk=image_id).first()


def image_size(image_id: uuid.UUID | None) -> tuple[int, int] | None:
    """Width and height for the page's `<img>`, so the page does not jump as it loads."""
    if image_id is None:
        return None
    return StoredImage.objects.filter(pk=image_id).values_list("width", "height").first()
