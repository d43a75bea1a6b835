"""Signing a benchmark's test client in as a person does: the sign-in form, with its CSRF
token when the app asks for one. (Sign-ins live on the server: a cookie that merely names a
user opens nothing.)"""
from __future__ import annotations

import re
from typing import Any

_CSRF = re.compile(r'name="csrf_token"[^>]*value="([^"]*)"')


def sign_in(client: Any, email: str, password: str) -> None:
    """Post the sign-in form with ``client`` (Flask's test client); SystemExit if refused."""
    page = client.get("/signin")
    form = {"email": email, "password": password}
    token = _CSRF.search(page.get_data(as_text=True))
    if token:
        form["csrf_token"] = token.group(1)
    answer = client.post("/signin", data=form)
    if answer.status_code not in (302, 303):
        raise SystemExit(f"signing in as {email} failed: {answer.status_code}")
