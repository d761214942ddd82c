"""`make screens`: a screenshot of every page of docs/spec/ui.md, 1280 and 390 px wide.

Encore runs on the demo data of `make run` (`load_demo`, plus a cover picture on Full
House) in a throwaway directory, so the pictures never depend on a developer's own data.
Debian's Chromium (CHROMIUM_PATH, default /usr/bin/chromium) visits each page of
`web.tests.browser.design.ui_pages` as the demo account that sees it and writes
docs/screens/<page>-<width>.png: the whole page, at a device scale of 1, reduced to 256
colours so the files stay small. A page the app does not serve yet (404) is skipped.

    .venv/bin/python scripts/screens.py [--scheme dark] [--out DIR] [--only NAME ...]
"""

import argparse
import io
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from events.management.commands.load_demo import DemoUser
    from web.tests.browser.design.ui_pages import UiPage

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
PYTHON = ROOT / ".venv" / "bin" / "python"
WIDTHS = {1280: 800, 390: 844}


def main() -> int:
    args = _arguments()
    with tempfile.TemporaryDirectory(prefix="encore-screens-") as var_dir:
        port = _free_port()
        base_url = f"http://127.0.0.1:{port}"
        _environment(var_dir, base_url)
        _manage("migrate", "--noinput")
        _manage("load_demo", "--base-url", base_url)
        pages = _prepare_demo()
        server = subprocess.Popen(
            [str(PYTHON), "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
            cwd=SRC,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _wait_for(f"{base_url}/health/live")
            written = _shoot(base_url, pages, args)
        finally:
            server.terminate()
            server.wait(timeout=15)
    print(f"screens: {written} pictures in {args.out}")
    return 0


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scheme", choices=("light", "dark"), default="light")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screens")
    parser.add_argument("--only", nargs="*", default=[], help="page names (ui_pages.py)")
    return parser.parse_args()


def _environment(var_dir: str, base_url: str) -> None:
    os.environ.update(
        DJANGO_DEBUG="true",
        DJANGO_SETTINGS_MODULE="encore.settings",
        ENCORE_VAR_DIR=var_dir,
        ENCORE_PUBLIC_URL=base_url,
        # Nothing leaves the machine: no broker, no mail server; the demo's follow-up
        # work runs in the process that writes it.
        CELERY_TASK_ALWAYS_EAGER="true",
        EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend",
        THROTTLE_ENABLED="false",  # a dozen log-ins from one address in a minute
        LOG_LEVEL="WARNING",
    )
    os.environ.pop("DATABASE_URL", None)


def _manage(*command: str) -> None:
    subprocess.run(
        [str(PYTHON), "manage.py", *command], cwd=SRC, check=True, stdout=subprocess.DEVNULL
    )


def _prepare_demo() -> "list[UiPage]":
    """The pages to visit, after giving Full House a cover (a picture drawn here)."""
    sys.path.insert(0, str(SRC))
    import django

    django.setup()
    from events.core.services import images
    from events.management.commands.load_demo import FULL_EVENT, ORG_SLUG
    from events.models import Event
    from web.tests.browser.design.ui_pages import ui_pages

    event = Event.objects.get(organization__slug=ORG_SLUG, slug=FULL_EVENT.slug)
    cover = images.prepare_upload(io.BytesIO(_stage_picture()), max_size=images.COVER_SIZE)
    images.set_event_cover(event.pk, cover=cover)
    return list(ui_pages())


def _stage_picture() -> bytes:
    """A stage at night: a violet-to-amber sky, three spotlights, a row of heads."""
    from PIL import Image, ImageDraw, ImageFilter

    width, height = 1600, 700
    sky = Image.linear_gradient("L").resize((width, height)).convert("L")
    top, bottom = (
        Image.new("RGB", (width, height), "#2a1763"),
        Image.new("RGB", (width, height), "#f08a4b"),
    )
    picture = Image.composite(bottom, top, sky)
    light = Image.new("L", (width, height), 0)
    draw = ImageDraw.Draw(light)
    for x in (350, 800, 1250):
        draw.polygon([(x - 40, 0), (x + 40, 0), (x + 260, height), (x - 260, height)], fill=90)
    light = light.filter(ImageFilter.GaussianBlur(30))
    picture = Image.composite(Image.new("RGB", (width, height), "#fff3d6"), picture, light)
    crowd = ImageDraw.Draw(picture)
    for i, x in enumerate(range(-20, width + 60, 70)):
        y = height - 90 + (i % 3) * 12
        crowd.ellipse([x, y, x + 56, y + 56], fill="#15141c")
        crowd.rectangle([x - 10, y + 40, x + 66, height], fill="#15141c")
    out = io.BytesIO()
    picture.save(out, format="PNG")
    return out.getvalue()


def _shoot(base_url: str, pages: "list[UiPage]", args: argparse.Namespace) -> int:
    from playwright.sync_api import sync_playwright

    chromium = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
    args.out.mkdir(parents=True, exist_ok=True)
    written = 0
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True)
        viewers = {page.viewer for page in pages}
        for viewer in viewers:
            for width, height in WIDTHS.items():
                context = browser.new_context(
                    base_url=base_url,
                    viewport={"width": width, "height": height},
                    device_scale_factor=1,
                    color_scheme=args.scheme,
                    reduced_motion="reduce",
                )
                tab = context.new_page()
                if viewer is not None:
                    _log_in(tab, viewer)
                for page in pages:
                    if page.viewer != viewer or (args.only and page.name not in args.only):
                        continue
                    written += _shot(tab, page, width, args)
                context.close()
        browser.close()
    return written


def _log_in(tab: "Page", viewer: "DemoUser") -> None:
    tab.goto("/login?next=/")
    tab.get_by_label("Email").fill(viewer.email)
    tab.get_by_label("Password").fill(viewer.password)
    tab.get_by_role("button", name="Log in").click()
    tab.wait_for_url("**/")


def _shot(tab: "Page", page: "UiPage", width: int, args: argparse.Namespace) -> int:
    from PIL import Image

    response = tab.goto(page.path)
    if response is None or response.status == 404:
        print(f"screens: {page.name} ({page.path}) is not served yet: skipped")
        return 0
    tab.wait_for_load_state("networkidle")
    suffix = "" if args.scheme == "light" else f"-{args.scheme}"
    target = args.out / f"{page.name}-{width}{suffix}.png"
    shot = Image.open(io.BytesIO(tab.screenshot(full_page=True)))
    shot.convert("RGB").quantize(colors=256).save(target, optimize=True)
    return 1


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_for(url: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


if __name__ == "__main__":
    sys.exit(main())
