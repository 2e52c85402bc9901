"""Translation layer: one :class:`Translator` per locale, gettext catalogs compiled on demand.

How to write a user-visible message::

    from shbot.i18n import esc, translator

    t = translator(group.language)          # "en", "ja", "fr"; anything else → English
    t._("{president} nominated {chancellor}.", president=esc(a), chancellor=esc(b))
    t.ngettext("{n} vote is missing.", "{n} votes are missing.", missing)

* Placeholders are ``{name}`` (``str.format`` with keyword arguments only). Every string
  returned by the translator has been formatted, so a literal brace is written ``{{`` / ``}}``.
* ``ngettext`` passes ``n`` as a placeholder automatically.
* Messages are sent with ``parse_mode=HTML`` and may contain ``<b>``, ``<i>``, ``<code>``.
  **Placeholder values are NOT escaped here**: the caller escapes anything that comes from
  users (player names, chat titles) with :func:`esc`. Values that are themselves translated
  messages (HTML already) are passed unescaped.
* Strings defined at import time are marked with :func:`N_` and translated when used:
  ``TITLE = N_("Overview")`` … ``t._(TITLE)``.
* There is no process-wide "current language": every call goes through a translator bound
  to one locale, so two groups playing in different languages never mix.

Where the catalogs are found, first match wins:

1. ``$SHBOT_LOCALES`` (an operator's override);
2. ``shbot/locales/<lang>/LC_MESSAGES/shbot.mo`` inside the installed package (the wheel's
   build step compiles them from the ``.po`` files; found with :mod:`importlib.resources`);
3. ``locales/`` beside the ``shbot`` package, i.e. a checkout (an editable install too).

A directory holding ``.po`` files has them compiled to ``.mo`` the first time a locale is
used, whenever missing or out of date (never committed, never stale); if it is read-only
the catalog is compiled in memory instead. A directory holding only ``.mo`` files (the
wheel's) is read as it is. :func:`check_catalogs` loads every language at once and raises
:class:`CatalogError` naming the path if one is missing or broken: ``shbot run`` refuses
to start then, rather than speak English only.
See ``docs/translating.md`` for the catalog workflow (``python -m shbot.i18n update``).
"""

from __future__ import annotations

import functools
import gettext
import html
import importlib.resources
import io
import logging
import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path
from string import Formatter

__all__ = [
    "DEFAULT",
    "DOMAIN",
    "LANGUAGES",
    "LANGUAGE_NAMES",
    "PSEUDO",
    "CatalogError",
    "Translator",
    "check_catalogs",
    "clear_cache",
    "esc",
    "language_changed_text",
    "language_prompt_text",
    "locales_dir",
    "normalize",
    "placeholders",
    "pseudo_leaks",
    "translator",
]

log = logging.getLogger(__name__)

LANGUAGES: tuple[str, ...] = ("en", "ja", "fr")
DEFAULT = "en"
#: Each language named in itself (never translated: a reader looks for their own language).
LANGUAGE_NAMES: dict[str, str] = {"en": "English", "ja": "日本語", "fr": "Français"}

DOMAIN = "shbot"
LOCALES_ENV = "SHBOT_LOCALES"
#: Pseudo-locale for tests only: ``normalize`` never returns it, so users cannot pick it.
PSEUDO = "qps"
PSEUDO_OPEN, PSEUDO_CLOSE = "⟦", "⟧"


def N_(message: str) -> str:
    """Mark ``message`` for extraction without translating it (translate later with ``t._``)."""
    return message


def esc(value: object) -> str:
    """Escape a placeholder value for Telegram's HTML parse mode."""
    return html.escape(str(value), quote=True)


def normalize(code: str | None) -> str | None:
    """Map a language tag (``"fr-CA"``, ``"ja_JP"``, ``"EN"``) to a supported language, or None."""
    if not code:
        return None
    primary = re.split(r"[-_.@]", code.strip(), maxsplit=1)[0].lower()
    return primary if primary in LANGUAGES else None


# --------------------------------------------------------------------------- loading


#: A checkout's catalogs: ``locales/`` beside the ``shbot`` package directory.
_SOURCE_LOCALES = Path(__file__).resolve().parents[2] / "locales"
_BUNDLED = "locales"  # inside the package: what the wheel's build step writes


class CatalogError(RuntimeError):
    """A catalog is missing or cannot be read; the message names its path."""


def _bundled_locales() -> Path | None:
    """``shbot/locales`` of the installed package, if the build put catalogs there."""
    root = importlib.resources.files("shbot") / _BUNDLED
    # Installed from a wheel the package is a directory, so this is a real path; a zipped
    # package (never made by pip) would not be, and falls back like a checkout.
    if isinstance(root, Path) and root.is_dir():
        return root
    return None


def locales_dir() -> Path:
    """The catalog directory: ``$SHBOT_LOCALES``, else the package's, else a checkout's."""
    return _locales_dir(os.environ.get(LOCALES_ENV))


@functools.cache
def _locales_dir(override: str | None) -> Path:
    # Cached: finding the package's folder costs a resource lookup and a stat, and every
    # message rendered asks. Keyed by the override, so setting $SHBOT_LOCALES still counts.
    if override:
        return Path(override)
    return _bundled_locales() or _SOURCE_LOCALES


def catalog_path(directory: Path, code: str) -> Path:
    """The ``.po`` of ``code`` under ``directory`` (its ``.mo`` sits beside it)."""
    return directory / code / "LC_MESSAGES" / f"{DOMAIN}.po"


def _compile_po(po: Path) -> bytes:
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as f:
        catalog = read_po(f)
    buf = io.BytesIO()
    write_mo(buf, catalog, use_fuzzy=False)  # fuzzy entries fall back to English
    return buf.getvalue()


def _write_atomically(target: Path, data: bytes, mtime_ns: int) -> None:
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; another user (a container's) must read it
        os.utime(tmp, ns=(mtime_ns, mtime_ns))
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _load_catalog(po: Path) -> gettext.GNUTranslations | None:
    """Compile ``po`` to ``.mo`` beside it when missing or stale, then load it.

    Without a ``.po`` (the wheel ships compiled catalogs only) the ``.mo`` is loaded as is.
    """
    mo = po.with_suffix(".mo")
    if not po.is_file():
        if mo.is_file():
            with mo.open("rb") as f:
                return gettext.GNUTranslations(f)
        log.warning("no catalog at %s; falling back to English", po)
        return None
    # The .mo carries the modification time of the .po it was compiled from: any other
    # time (missing, older, or a .po swapped for one with an older date) means stale.
    source_time = po.stat().st_mtime_ns
    try:
        fresh = mo.stat().st_mtime_ns == source_time
    except FileNotFoundError:
        fresh = False
    if not fresh:
        data = _compile_po(po)
        try:
            _write_atomically(mo, data, source_time)
        except OSError as exc:
            log.info("cannot write %s (%s); using the catalog from memory", mo, exc)
            return gettext.GNUTranslations(io.BytesIO(data))
        log.info("compiled %s", mo)
    with mo.open("rb") as f:
        return gettext.GNUTranslations(f)


def check_catalogs(languages: Sequence[str] = LANGUAGES) -> Path:
    """Load the catalog of every language now; returns their directory.

    Raises :class:`CatalogError` (one line, naming the file) when a catalog is missing,
    unreadable or empty, so a start-up check can refuse to run instead of the bot quietly
    answering in English.
    """
    directory = locales_dir()
    for code in languages:
        po = catalog_path(directory, code)
        mo = po.with_suffix(".mo")
        shown = po if po.is_file() or not mo.is_file() else mo
        if not po.is_file() and not mo.is_file():
            raise CatalogError(f"no {code} catalog at {po} (nor {mo.name})")
        try:
            catalog = _translator(code, directory)._catalog
        except Exception as exc:  # a damaged file: struct.error, OSError, UnicodeError...
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise CatalogError(f"cannot read the {code} catalog {shown}: {reason}") from exc
        messages = getattr(catalog, "_catalog", {})
        if len([key for key in messages if key]) == 0:
            raise CatalogError(f"the {code} catalog {shown} has no messages")
    return directory


# --------------------------------------------------------------------------- pseudo-locale

_ACCENTS = str.maketrans(
    "abcdeghiklnorstuyzABCDEGHIKLNORSTUYZ",
    "ȧƀçđéğĥíķŀñóřšţúýžÅƁÇĐÉĞĤÍĶĿÑÓŘŠŢÚÝŽ",
)
# Kept verbatim by the pseudo-locale: brace escapes, {placeholders}, <tags>, &entities;
_PROTECTED = re.compile(r"(\{\{|\}\}|\{[^{}]*\}|<[^<>]*>|&#?\w+;)")
_MARKUP = re.compile(r"<[^<>]*>|&#?\w+;")


def _pseudo(message: str) -> str:
    parts = _PROTECTED.split(message)
    parts[::2] = [p.translate(_ACCENTS) for p in parts[::2]]
    return f"{PSEUDO_OPEN}{''.join(parts)}{PSEUDO_CLOSE}"


def pseudo_leaks(text: str) -> list[str]:
    """Parts of a pseudo-locale message that did not go through a translator.

    Returns the stretches of ``text`` outside every ⟦…⟧ that contain a letter or digit
    (HTML tags and entities aside); an empty list means every word came from the catalogs
    (placeholder values sit inside the brackets of the message that formatted them).
    """
    leaks: list[str] = []
    depth = 0
    outside: list[str] = []
    for ch in text:
        if ch == PSEUDO_OPEN:
            depth += 1
        elif ch == PSEUDO_CLOSE and depth:
            depth -= 1
        elif depth == 0:
            outside.append(ch)
            continue
        if outside:
            leaks.append("".join(outside))
            outside = []
    if outside:
        leaks.append("".join(outside))
    return [s for s in leaks if any(c.isalnum() for c in _MARKUP.sub("", s))]


# --------------------------------------------------------------------------- translator

_FORMATTER = Formatter()


def placeholders(message: str) -> frozenset[str]:
    """The named ``{placeholders}`` of a message (``{{`` escapes excluded)."""
    names = set()
    for _, field, _, _ in _FORMATTER.parse(message):
        if field is not None:
            names.add(re.split(r"[.\[]", field, maxsplit=1)[0])
    return frozenset(names)


class Translator:
    """Translates and formats messages for one locale. Get one with :func:`translator`."""

    def __init__(
        self,
        locale: str,
        catalog: gettext.NullTranslations | None = None,
        *,
        pseudo: bool = False,
    ) -> None:
        self.locale = locale
        self._catalog = catalog or gettext.NullTranslations()
        self._pseudo = pseudo

    def __repr__(self) -> str:
        return f"<Translator {self.locale}>"

    def _render(self, translated: str, original: str, kwargs: dict[str, object]) -> str:
        template = _pseudo(translated) if self._pseudo else translated
        try:
            return template.format(**kwargs)
        except (KeyError, IndexError, ValueError, AttributeError):
            if translated == original:
                raise  # the caller's placeholders do not match the English message
            log.exception("bad %s translation of %r; using English", self.locale, original)
            return original.format(**kwargs)

    def gettext(self, message: str, /, **kwargs: object) -> str:
        """Translate ``message`` and fill its ``{placeholders}`` from ``kwargs``."""
        return self._render(self._catalog.gettext(message), message, kwargs)

    _ = gettext

    def ngettext(self, singular: str, plural: str, n: int, /, **kwargs: object) -> str:
        """Plural-aware :meth:`gettext`; ``{n}`` is filled with ``n`` unless given."""
        kwargs.setdefault("n", n)
        original = singular if n == 1 else plural
        return self._render(self._catalog.ngettext(singular, plural, n), original, kwargs)

    def pgettext(self, context: str, message: str, /, **kwargs: object) -> str:
        """:meth:`gettext` with a disambiguating context (same English, different uses)."""
        return self._render(self._catalog.pgettext(context, message), message, kwargs)

    def npgettext(
        self, context: str, singular: str, plural: str, n: int, /, **kwargs: object
    ) -> str:
        """:meth:`ngettext` with a context."""
        kwargs.setdefault("n", n)
        original = singular if n == 1 else plural
        translated = self._catalog.npgettext(context, singular, plural, n)
        return self._render(translated, original, kwargs)


def translator(locale: str) -> Translator:
    """The translator for ``locale`` (normalized; unsupported → English), cached."""
    return _translator_for(locale, os.environ.get(LOCALES_ENV))


@functools.lru_cache(maxsize=64)
def _translator_for(locale: str, override: str | None) -> Translator:
    # The hot path (several calls per update): the tag is normalized and the folder found
    # once per tag and $SHBOT_LOCALES, not per call; bounded, as tags come from users.
    code = PSEUDO if locale == PSEUDO else (normalize(locale) or DEFAULT)
    return _translator(code, _locales_dir(override))


@functools.cache
def _translator(code: str, directory: Path) -> Translator:
    if code == PSEUDO:
        return Translator(PSEUDO, pseudo=True)
    return Translator(code, _load_catalog(catalog_path(directory, code)))


def clear_cache() -> None:
    """Forget loaded translators (the next :func:`translator` call re-checks the catalogs)."""
    _translator.cache_clear()
    _translator_for.cache_clear()
    _locales_dir.cache_clear()


# --------------------------------------------------------------------------- language picker

_PROMPT = N_("Current language: {language}. Choose the language I use in this chat:")
_CHANGED = N_("Done: from now on I speak {language} in this chat.")


def language_prompt_text(t: Translator) -> str:
    """Text above the language buttons (label each button with ``LANGUAGE_NAMES[code]``)."""
    return t._(_PROMPT, language=LANGUAGE_NAMES[t.locale if t.locale in LANGUAGES else DEFAULT])


def language_changed_text(code: str) -> str:
    """Confirmation after switching a chat to ``code``, written in the new language."""
    t = translator(code)
    return t._(_CHANGED, language=LANGUAGE_NAMES[normalize(code) or DEFAULT])
