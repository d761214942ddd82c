"""Reading a stored picture back for the page that shows it."""

import uuid

from events.models import StoredImage


def get_image(image_id: uuid.UUID) -> StoredImage | None:
    """The picture's bytes and type only: its size is on the page that links it."""
    return StoredImage.objects.only("content_type", "data").filter(pk=image_id).first()
