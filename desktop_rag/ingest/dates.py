"""A document's own date, from inside the file: the PDF's CreationDate, else its ModDate.

"From 2024" asks when a document was written, which a copy, a download or a backup restore
does not change, while they all change the file's modification time. Where a file says no
date, the library's fields fall back to the file's (query/listing.year_of).
"""

from __future__ import annotations

import logging
import re
from datetime import UTC, datetime, timedelta
from typing import Any

log = logging.getLogger(__name__)

# D:YYYYMMDDHHmmSSOHH'mm' (PDF 32000-1 7.9.4); all but the year optional, "D:" often missing.
_PDF_DATE = re.compile(
    r"^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?"
    r"(?:([Zz+\-])(?:(\d{2})'?(?:(\d{2})'?)?)?)?"
)
_KEYS = ("CreationDate", "ModDate")


def parse_pdf_date(text: str) -> int:
    """A PDF date string as nanoseconds since the epoch (UTC; no offset is taken as UTC);
    0 when it is no date."""
    match = _PDF_DATE.match(text.strip())
    if match is None:
        return 0
    year, month, day, hour, minute, second, sign, off_h, off_m = match.groups()
    try:
        moment = datetime(
            int(year),
            int(month or 1),
            int(day or 1),
            int(hour or 0),
            int(minute or 0),
            int(second or 0),
            tzinfo=UTC,
        )
    except ValueError:  # a month 13, a year 0
        return 0
    if sign in ("+", "-"):
        offset = timedelta(hours=int(off_h or 0), minutes=int(off_m or 0))
        moment = moment - offset if sign == "+" else moment + offset
    return int(moment.timestamp()) * 1_000_000_000


def pdf_date(path: str, password: str | None = None) -> int:
    """The PDF's own date (ns since the epoch), 0 when it says none or cannot be opened
    (never raises: a missing date costs the date only, never the document)."""
    try:
        import pypdfium2 as pdfium

        doc = pdfium.PdfDocument(path, password=password or None)
    except Exception:
        return 0
    try:
        return date_of(doc, path)
    finally:
        doc.close()


def date_of(doc: Any, path: str = "") -> int:
    """The date of a PDF pdfium has open (the reader's own document); 0 when it says none."""
    try:
        found = doc.get_metadata_dict(skip_empty=True)
        for key in _KEYS:
            value = parse_pdf_date(str(found.get(key, "")))
            if value:
                return value
        return 0
    except Exception as exc:
        log.debug("cannot read the date of %s: %s", path, exc)
        return 0
