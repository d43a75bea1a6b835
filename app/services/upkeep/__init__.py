"""Keeping the stored data sound: the integrity check (:mod:`.integrity`, ``tonk check``
and every database test), backup and restore (:mod:`.backup`). The public front of the
package; the command line uses these names only."""
from __future__ import annotations

from .backup import BackupError, backup_to, copy_sqlite, dump, restore
from .integrity import problems

__all__ = ["BackupError", "backup_to", "copy_sqlite", "dump", "problems", "restore"]
