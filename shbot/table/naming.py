"""Computer players' names: from a per-language list, marked 🤖, and never one a person at
the table goes by ("Alice" and "🤖 Alice" at one table read as the same player in a hurry),
whatever the language: names are compared without the mark, case or accents, and a person's
first name counts as well as their full name.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from shbot.table.model import Player, Table

ROBOT = "🤖"
#: Names by language: common first names that read naturally in that language.
NAMES: dict[str, tuple[str, ...]] = {
    "en": ("Alice", "Ben", "Clara", "David", "Emma", "Frank", "Grace", "Henry", "Ivy", "Jack"),
    "ja": (
        "さくら",
        "はると",
        "ゆい",
        "そうた",
        "あおい",
        "れん",
        "ひな",
        "ゆうと",
        "めい",
        "かいと",
    ),
    "fr": ("Camille", "Louis", "Chloé", "Hugo", "Léa", "Jules", "Manon", "Arthur", "Inès", "Théo"),
}


def folded(name: str) -> str:
    """A name as a reader takes it in: no robot mark, no accents, no case."""
    plain = unicodedata.normalize("NFKD", name.replace(ROBOT, ""))
    return "".join(c for c in plain if not unicodedata.combining(c)).casefold().strip()


def _readings(name: str) -> set[str]:
    """The full name and its first word, folded."""
    full = folded(name)
    return {full, *full.split()[:1]} - {""}


def is_computer(player: Player) -> bool:
    return player.id < 0


def taken(players: Iterable[Player]) -> set[str]:
    """The folded names a computer may not use at this table (every person's full and first
    name, every computer's name)."""
    out: set[str] = set()
    for p in players:
        out |= _readings(p.name) if not is_computer(p) else {folded(p.name)}
    return out


def free_names(lang: str, avoid: set[str], count: int) -> list[str]:
    """``count`` computer names in ``lang`` that clash with none of ``avoid``."""
    names = NAMES.get(lang, NAMES["en"])
    out = [n for n in names if not (_readings(n) & avoid)]
    k = 2
    while len(out) < count:  # more computers than free names: numbered, still unique
        extra = f"{names[0]} {k}"
        if folded(extra) not in avoid and extra not in out:
            out.append(extra)
        k += 1
    return [f"{ROBOT} {n}" for n in out[:count]]


def rename_clashing(table: Table) -> None:
    """A person joined: a computer player who goes by their name takes another one."""
    people = [p for p in table.players if not is_computer(p)]
    person_names: set[str] = set()
    for p in people:
        person_names |= _readings(p.name)
    for player in table.players:
        if is_computer(player) and _readings(player.name) & person_names:
            others = [p for p in table.players if p is not player]
            player.name = free_names(player.lang or "en", taken(others), 1)[0]
