"""Export and import pages (:mod:`.pages`), on the ``exchange`` blueprint."""
from pathlib import Path

from .pages import IMPORT_MAX_BYTES, bp

TEMPLATES = Path(__file__).parent / "templates"

__all__ = ["IMPORT_MAX_BYTES", "TEMPLATES", "bp"]
