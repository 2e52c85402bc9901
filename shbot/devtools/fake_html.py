"""HTML parse mode, as Telegram's server (tdlib's parse_html) understands it; UTF-16 lengths.

Validating it here is what makes "a player named <b>&amp;" tests meaningful: the fake Bot API
refuses what Telegram refuses with "can't parse entities", and measures what users see in
UTF-16 code units, as Telegram's limits do. Pure functions of the text, apart from the rest of
the fake (:mod:`.fake_telegram`), which checks every text and caption with them.
"""

from __future__ import annotations

import functools
import re

HTML_TAGS = frozenset(
    {
        "a",
        "b",
        "strong",
        "i",
        "em",
        "u",
        "ins",
        "s",
        "strike",
        "del",
        "span",
        "tg-spoiler",
        "tg-emoji",
        "tg-time",  # a date_time entity (Bot API 9.5): <tg-time unix="…" format="T">…</tg-time>
        "code",
        "pre",
        "blockquote",
    }
)
_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_ENTITY_RE = re.compile(r"&(#[xX][0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);")
_SPECIAL_RE = re.compile(r"[<&]")


class HtmlError(ValueError):
    """Text that Telegram would refuse with "can't parse entities"."""


@functools.lru_cache(maxsize=4096)  # a pure function of the text; the benches send many alike
def html_to_plain(text: str) -> str:
    """Return what a user sees for an HTML-mode text, or raise HtmlError like Telegram would.

    Only the four named entities Telegram knows are decoded; unknown ones stay literal, as on
    Telegram. Any "<" that does not start a supported tag is an error.
    """

    def offset(pos: int) -> int:
        return len(text[:pos].encode("utf-8"))

    out: list[str] = []
    stack: list[str] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == "&":
            match = _ENTITY_RE.match(text, i)
            decoded = _decode_entity(match.group(1)) if match else None
            if match and decoded is not None:
                out.append(decoded)
                i = match.end()
            else:
                out.append("&")
                i += 1
            continue
        if char != "<":  # plain text, up to the next tag or entity
            special = _SPECIAL_RE.search(text, i)
            end = special.start() if special else n
            out.append(text[i:end])
            i = end
            continue
        begin = i
        i += 1
        if i >= n or text[i] != "/":
            j = i
            while j < n and not text[j].isspace() and text[j] != ">":
                j += 1
            if j >= n:
                raise HtmlError(f"Unclosed start tag at byte offset {offset(begin)}")
            name = text[i:j].lower()
            if name not in HTML_TAGS:
                raise HtmlError(f'Unsupported start tag "{name}" at byte offset {offset(begin)}')
            while j < n and text[j] != ">":
                if text[j] in "\"'":
                    close = text.find(text[j], j + 1)
                    if close < 0:
                        break
                    j = close
                j += 1
            if j >= n:
                raise HtmlError(f"Unclosed start tag at byte offset {offset(begin)}")
            stack.append(name)
            i = j + 1
            continue
        if not stack:
            raise HtmlError(f"Unexpected end tag at byte offset {offset(begin)}")
        j = i + 1
        while j < n and not text[j].isspace() and text[j] != ">":
            j += 1
        name = text[i + 1 : j].lower()
        if name and name != stack[-1]:
            raise HtmlError(
                f"Unmatched end tag at byte offset {offset(begin)}, "
                f'expected "</{stack[-1]}>", found "</{name}>"'
            )
        while j < n and text[j].isspace():
            j += 1
        if j >= n or text[j] != ">":
            raise HtmlError(f"Unclosed end tag at byte offset {offset(begin)}")
        stack.pop()
        i = j + 1
    if stack:
        raise HtmlError(f"Can't find end tag corresponding to start tag {stack[-1]}")
    return "".join(out)


def _decode_entity(body: str) -> str | None:
    if body[0] != "#":
        return _NAMED_ENTITIES.get(body)
    code = int(body[2:], 16) if body[1] in "xX" else int(body[1:])
    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return None
    return chr(code)


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units: the unit of Telegram's limits and entity offsets."""
    return len(text.encode("utf-16-le")) // 2
