"""Keeping the stored data sound: the integrity check, backup, restore."""
