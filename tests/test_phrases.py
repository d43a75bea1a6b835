"""Japanese pages break their lines between phrases (app/web/phrases.py): a <wbr> between
the phrases BudouX finds in the text of each page rendered in Japanese, and nowhere else:
not in attributes, scripts, styles, text areas, titles or options, not in other languages;
the text reads the same, character for character."""
from __future__ import annotations

import html
import re

from hypothesis import given
from hypothesis import strategies as st

from app.web.shared.phrases import phrased
from tests.clients import sign_up


def text_of(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def test_phrases_are_marked_in_text_only():
    page = ('<h2 title="ディールでの即時勝利">ディールでの即時勝利</h2>'
            '<script>var s = "ディールでの即時勝利 <b>";</script>'
            '<textarea>サイドベットの説明</textarea><title>サイドベットの説明</title>'
            '<select><option>ディールでの即時勝利</option></select>'
            '<th>サイドベット</th><p>Ann &amp; 愛がポットを獲得しました</p>')
    out = phrased(page)
    assert '<h2 title="ディールでの即時勝利">ディールでの<wbr>即時<wbr>勝利</h2>' in out
    assert '<script>var s = "ディールでの即時勝利 <b>";</script>' in out
    assert "<textarea>サイドベットの説明</textarea><title>サイドベットの説明</title>" in out
    assert "<option>ディールでの即時勝利</option>" in out
    assert "<th>サイドベット</th>" in out  # one word: nothing to break
    assert "&amp;" in out and "<wbr>" in out.split("<p>")[1]
    assert text_of(out.replace("<wbr>", "")) == text_of(page)


def test_a_page_without_japanese_is_left_as_it_is():
    page = "<p>Side bets: Ann &amp; Bob</p><!-- a comment with 日本語 -->"
    assert phrased(page) == page


@given(st.lists(st.sampled_from(["<p>", "</p>", "<b class='x'>", "</b>", "&amp;", " ",
                                 "サイドベット", "ディールでの", "即時勝利", "ハンド1：",
                                 "Ann", "、", "。", "<br>"]), max_size=30))
def test_the_text_reads_the_same(parts):
    page = "".join(parts)
    assert text_of(phrased(page)) == text_of(page)


def test_japanese_pages_are_phrased_and_others_are_not(client):
    sign_up(client)
    ja = client.get("/sessions/new", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    en = client.get("/sessions/new", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "<wbr>" in ja and "<wbr>" not in en
    assert '<html lang="ja"' in ja
