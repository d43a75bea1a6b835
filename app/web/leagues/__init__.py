"""The league pages (:mod:`.pages`), on the ``leagues`` blueprint, with their style sheet."""
from pathlib import Path

from .pages import bp

TEMPLATES = Path(__file__).parent / "templates"

__all__ = ["TEMPLATES", "bp"]
