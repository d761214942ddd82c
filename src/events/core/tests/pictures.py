"""Real pictures for tests, drawn with Pillow: uploads of a given size, format and EXIF."""

import io

from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

#: EXIF tags: the camera's orientation, its make, and where the picture was taken.
ORIENTATION, MAKE, GPS_INFO = 0x0112, 0x010F, 0x8825


def picture_bytes(
    width: int,
    height: int,
    *,
    image_format: str = "JPEG",
    mode: str = "RGB",
    orientation: int | None = None,
) -> bytes:
    """A picture, its left half red (clear in RGBA) and right half blue, so a rotation shows."""
    backgrounds: dict[str, float | tuple[float, ...] | str] = {"1": 1, "RGBA": (255, 0, 0, 0)}
    background = backgrounds.get(mode, "red")
    picture = Image.new(mode, (width, height), background)
    if mode in ("RGB", "RGBA"):
        picture.paste("blue", (width // 2, 0, width, height))
    exif = Image.Exif()
    exif[MAKE] = "Test camera"
    exif[GPS_INFO] = {1: "N", 2: (52.0, 31.0, 0.0)}
    if orientation is not None:
        exif[ORIENTATION] = orientation
    out = io.BytesIO()
    if image_format in ("JPEG", "WEBP", "PNG"):
        picture.save(out, format=image_format, exif=exif.tobytes())
    else:
        picture.save(out, format=image_format)
    return out.getvalue()


def picture_upload(
    name: str = "cover.jpg", width: int = 800, height: int = 600, *, image_format: str = "JPEG"
) -> SimpleUploadedFile:
    """`picture_bytes` as a form upload."""
    data = picture_bytes(width, height, image_format=image_format)
    return SimpleUploadedFile(name, data, content_type=f"image/{image_format.lower()}")
