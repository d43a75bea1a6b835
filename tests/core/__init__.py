"""Tests of the pure core: no app, no database."""
