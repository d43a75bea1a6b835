"""Reading a document session by session, so that a large league is never held in memory
whole: the header's fields, then each session as it is read.

Every value is parsed by the standard library's JSON decoder (``raw_decode``); only the
document's outer frame (``{"field": value, …, "sessions": [value, …]}``) is walked here.
ijson was measured in its place: its C item builder cannot give the header's fields and the
sessions from one pass, and walking its events in Python read a 50,000-hand export in 10.6 s
against 2.1 s here, without refusing repeated keys or deep nesting (a file of 100,000 ``[``
used up the memory through its event prefixes)."""
from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import IO, Any

from ...core.messages import Message, as_sent
from ...core.money import DuplicateKeyError, refuse_repeats


class ReadError(Exception):
    """The file cannot be read as a document; the message says why, for a person (in the
    reader's language when it is read: ``said`` is the catalogue's message)."""

    def __init__(self, said: Message) -> None:
        super().__init__(said)
        self.said = said

    def __str__(self) -> str:
        return str(self.said)


#: The fields of a document: any other is refused as soon as its name is read (its value,
#: however long, is not).
FIELDS = frozenset({"format", "version", "league", "sessions"})

_CHUNK = 1 << 20
_NOT_SPACE = re.compile(r"[^ \t\n\r]")


class Reader:
    """Reads a document from a text stream: the top-level fields one by one, and the
    sessions one at a time, never the whole file at once. Any valid JSON object is read
    right, whatever its layout."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.offset = 0  # characters dropped from the front of the buffer
        self.line = 1  # the line the buffer starts on
        self.decoder = self.decoder_of_sessions()

    @staticmethod
    def decoder_of_sessions() -> json.JSONDecoder:
        """The decoder of a document's values: a key given twice raises
        DuplicateKeyError."""
        return json.JSONDecoder(object_pairs_hook=refuse_repeats)

    def _more(self) -> bool:
        if self.eof:
            return False
        try:
            chunk = self.stream.read(max(_CHUNK, len(self.buf) - self.pos))
        except UnicodeDecodeError:
            raise ReadError(Message("read.not_utf8")) from None
        if not chunk:
            self.eof = True
            return False
        dropped = self.buf[:self.pos]
        self.offset += len(dropped)
        self.line += dropped.count("\n")
        self.buf = self.buf[self.pos:] + chunk
        self.pos = 0
        return True

    def _peek(self) -> str:
        """The next character that is not white space ('' at the end of the file)."""
        while True:
            found = _NOT_SPACE.search(self.buf, self.pos)
            if found is not None:
                self.pos = found.start()
                return self.buf[self.pos]
            self.pos = len(self.buf)
            if not self._more():
                return ""

    def _where(self) -> Message:
        line = self.line + self.buf.count("\n", 0, self.pos)
        return Message("read.where", line=line, character=self.offset + self.pos + 1)

    def _cut(self) -> ReadError:
        return ReadError(Message("read.cut", where=self._where()))

    def _value(self) -> Any:
        if self._peek() == "":
            raise self._cut()
        while True:
            try:
                value, end = self.decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                if self._more():
                    continue
                if exc.pos >= len(self.buf.rstrip()) or exc.msg.startswith("Unterminated"):
                    self.pos = len(self.buf)
                    raise self._cut() from None
                self.pos = exc.pos
                raise ReadError(Message("read.not_json", where=self._where(),
                                        error=exc.msg)) from None
            except DuplicateKeyError as exc:
                raise ReadError(Message("read.given_twice", where=self._where(),
                                        path=exc.path)) from None
            except RecursionError:
                raise ReadError(Message("read.too_deep")) from None
            except ValueError:  # a whole number of thousands of digits (Python's own limit)
                raise ReadError(Message("read.long_number", where=self._where())) from None
            if end == len(self.buf) and self._more():
                continue  # a number at the end of the buffer may go on
            self.pos = end
            return value

    def _next(self, allowed: str, what: str) -> str:
        """The next character, one of ``allowed``; else the file is refused, as expecting
        ``what`` (``read.expect.<what>``)."""
        c = self._peek()
        if c == "":
            raise self._cut()
        if c not in allowed:
            raise ReadError(Message("read.expected", where=self._where(),
                                    what=Message(f"read.expect.{what}")))
        self.pos += 1
        return c

    def lines_done(self) -> int | None:
        """How many lines were read, when what is left of the current one is white space
        (else None): where the next line starts."""
        end = self.buf.find("\n", self.pos)
        if end < 0 or self.buf[self.pos:end].strip(" \t\r"):
            return None
        return self.line + self.buf.count("\n", 0, end)

    def events(self) -> Iterator[tuple[str, str, Any]]:
        """("field", name, value) for each top-level field but the sessions, ("sessions",
        "", None) where the list of sessions starts, then ("session", "", value) each."""
        first = self._peek()
        if first == "":
            raise ReadError(Message("read.empty"))
        if first != "{":
            raise ReadError(Message("read.not_object"))
        self.pos += 1
        if self._peek() == "}":
            self.pos += 1
        else:
            seen: set[str] = set()
            while True:
                if self._peek() != '"':
                    self._next('"', "field_name")
                at = self._where()
                key = self._value()
                if key in seen:
                    raise ReadError(Message("read.key_twice", where=self._where(),
                                            key=as_sent(key)))
                if key not in FIELDS:
                    raise ReadError(Message("read.unknown_field", where=at,
                                            key=_shown(key)))
                seen.add(key)
                self._next(":", "colon")
                if key == "sessions" and self._peek() == "[":
                    self.pos += 1
                    yield "sessions", "", None
                    if self._peek() == "]":
                        self.pos += 1
                    else:
                        while True:
                            yield "session", "", self._value()
                            if self._next(",]", "after_session") == "]":
                                break
                else:
                    yield "field", key, self._value()
                if self._next(",}", "after_field") == "}":
                    break
        if self._peek() != "":
            raise ReadError(Message("read.more", where=self._where()))


def _shown(key: Any) -> str:
    """A field's name as a message shows it: quoted, at most 40 characters."""
    text = json.dumps(key, ensure_ascii=False)
    return text if len(text) <= 40 else text[:39] + "…\""
