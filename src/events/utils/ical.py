"""A small, hand-written iCalendar (RFC 5545) writer: just what Encore's feeds need.

Why by hand: one VEVENT per event is a few content lines; a dependency would cost more
than the three rules it would save us, and those rules are easy to get wrong silently,
so they are spelled out and tested here:

- TEXT values escape backslash, semicolon and comma, and turn line breaks into `\\n`
  (RFC 5545 §3.3.11);
- content lines longer than 75 octets are folded with CRLF + one space, never inside a
  UTF-8 sequence (§3.1);
- every line ends with CRLF, and every DATE-TIME is written in UTC (`...Z`, §3.3.5).

`calendar([...])` serves one event today and a whole series feed later.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

CRLF = "\r\n"
MAX_LINE_OCTETS = 75
PRODID = "-//Encore//Encore events//EN"


def escape_text(value: str) -> str:
    """Escape a TEXT value (§3.3.11): `\\` `;` `,` and line breaks."""
    normalised = value.replace("\r\n", "\n").replace("\r", "\n")
    return (
        normalised.replace("\\", "\\\\")
        .replace(";", "\\;")
        .replace(",", "\\,")
        .replace("\n", "\\n")
    )


def format_utc(value: datetime) -> str:
    """A DATE-TIME in UTC form, `YYYYMMDDTHHMMSSZ`; naive values are refused."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError("iCalendar times must be timezone-aware")
    return value.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def fold(line: str) -> str:
    """Fold one content line at 75 octets (§3.1), continuation lines starting with a space.

    Counts octets of the UTF-8 encoding, and only breaks between characters, so a
    multi-byte character is never split.
    """
    pieces: list[str] = []
    current: list[str] = []
    size = 0
    limit = MAX_LINE_OCTETS
    for char in line:
        width = len(char.encode("utf-8"))
        if size + width > limit:
            pieces.append("".join(current))
            current, size = [], 0
            limit = MAX_LINE_OCTETS - 1  # the leading space of a continuation line counts
        current.append(char)
        size += width
    pieces.append("".join(current))
    return (CRLF + " ").join(pieces)


def content_line(name: str, value: str) -> str:
    """`NAME:value`, folded; `value` must already be escaped or be a non-TEXT value."""
    return fold(f"{name}:{value}")


@dataclass(frozen=True)
class VEvent:
    """One VEVENT. `uid` must be stable across exports so calendars update, not duplicate."""

    uid: str
    start: datetime
    end: datetime
    summary: str
    stamp: datetime
    description: str = ""
    location: str = ""
    url: str = ""
    status: str = "CONFIRMED"  # TENTATIVE | CONFIRMED | CANCELLED
    last_modified: datetime | None = None

    def lines(self) -> list[str]:
        lines = [
            "BEGIN:VEVENT",
            content_line("UID", escape_text(self.uid)),
            content_line("DTSTAMP", format_utc(self.stamp)),
            content_line("DTSTART", format_utc(self.start)),
            content_line("DTEND", format_utc(self.end)),
            content_line("SUMMARY", escape_text(self.summary)),
        ]
        if self.description:
            lines.append(content_line("DESCRIPTION", escape_text(self.description)))
        if self.location:
            lines.append(content_line("LOCATION", escape_text(self.location)))
        if self.url:
            lines.append(content_line("URL", self.url))
        lines.append(content_line("STATUS", self.status))
        if self.last_modified is not None:
            lines.append(content_line("LAST-MODIFIED", format_utc(self.last_modified)))
        lines.append("END:VEVENT")
        return lines


def calendar(events: Iterable[VEvent], *, name: str | None = None) -> str:
    """A complete VCALENDAR object with CRLF line endings."""
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        content_line("PRODID", PRODID),
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
    ]
    if name:
        lines.append(content_line("X-WR-CALNAME", escape_text(name)))
    for event in events:
        lines.extend(event.lines())
    lines.append("END:VCALENDAR")
    return CRLF.join(lines) + CRLF
