"""What every answer carries and how the app trusts its transport: the security headers
(CSP, nosniff, Referrer-Policy, frame-ancestors) on every response, pages, JSON, errors
and static files alike; and, when served over HTTPS (``TONK_HTTPS=1``) or behind a proxy
that terminates TLS (``TONK_PROXY=1``, ``tonk serve --proxy``), Secure cookies and HSTS
(both read by :mod:`app.config`).
"""
from __future__ import annotations

from flask import Flask, Response

#: A strict policy: nothing from outside, no inline script. Pages work offline by design.
CONTENT_SECURITY_POLICY = ("default-src 'self'; img-src 'self' data:; style-src 'self'; "
                           "script-src 'self'; object-src 'none'; base-uri 'none'; "
                           "form-action 'self'; frame-ancestors 'none'")
#: A year; browsers ignore HSTS on plain HTTP and on bare IP addresses, as they should.
HSTS = "max-age=31536000"


def security_headers(*, https: bool) -> list[tuple[str, str]]:
    """The security headers every answer carries: the app's (:func:`headers`) and those
    the server's front answers itself (:mod:`app.http.bodies`, :mod:`app.http.doors`)."""
    found = [("Content-Security-Policy", CONTENT_SECURITY_POLICY),
             ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "same-origin"),
             ("X-Frame-Options", "DENY")]
    if https:
        found.append(("Strict-Transport-Security", HSTS))
    return found


def headers(response: Response, *, https: bool) -> Response:
    """The security headers of every answer (a view's own choice wins)."""
    for name, value in security_headers(https=https):
        response.headers.setdefault(name, value)
    return response


def init_app(app: Flask) -> None:
    """Secure cookies and HSTS under HTTPS, the client's address and scheme from the proxy's
    ``X-Forwarded-*`` headers behind one, and the headers on every answer."""
    https = bool(app.config.get("TONK_HTTPS"))
    if https:
        app.config.update(SESSION_COOKIE_SECURE=True, REMEMBER_COOKIE_SECURE=True,
                          PREFERRED_URL_SCHEME="https")
    if app.config.get("TONK_PROXY"):
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=1, x_proto=1, x_host=1,  # type: ignore[method-assign]
                                x_prefix=1)

    @app.after_request
    def _headers(response: Response) -> Response:
        return headers(response, https=https)
