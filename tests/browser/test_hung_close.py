"""The harness's guard against a Chromium that hangs closing a context (helpers.closed): it is
killed, the close returns with a warning, and the next browser test gets a new Chromium."""
from __future__ import annotations

import pytest

from tests.browser.helpers import closed


@pytest.mark.timeout(60)  # without the guard it would hang here
def test_a_close_that_hangs_kills_chromium_and_the_next_test_gets_another(_chromium, browser):
    page = browser.new_context().new_page()

    class Stuck:
        """A context whose close never returns, as Chromium's did: a promise that never
        settles (Playwright's evaluate has no timeout of its own)."""

        pages: list[object] = []  # (none to leave first)

        def close(self) -> None:
            page.evaluate("() => new Promise(() => {})")

    with pytest.warns(UserWarning, match="did not close a context in 1 s"):
        closed(Stuck(), seconds=1)
    assert not browser.is_connected()
    again = _chromium.browser()
    assert again is not browser and again.is_connected()
    other = again.new_context()
    assert other.new_page().evaluate("() => 6 * 7") == 42
    closed(other)
