"""The bot's record of one table: the players, the engine state and the message ids.

Stored as ``GameRecord.data``. The engine knows seats; this maps seats to people. Every
field is plain JSON so any store can keep it and a restarted bot can carry on.
"""

from __future__ import annotations

import secrets
import time
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from shbot.engine import Game

MAX_NAME = 32
# Bidirectional controls in a name could reorder the rest of the message; they are removed and
# every name is shown inside an isolate (FSI … PDI) instead.
_BIDI = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C)}
FSI, PDI = "\u2068", "\u2069"


def _shown(ch: str) -> bool:
    if ch == "\u200d":  # zero-width joiners hold emoji sequences together
        return True
    return ch not in _BIDI and unicodedata.category(ch) not in ("Cc", "Cf")


def clean_name(raw: str | None, fallback: str) -> str:
    """A display name safe to show anywhere: no control or bidi characters, at most 32
    characters (grapheme-naive but never splitting a surrogate), never empty."""
    text = "".join(
        ch
        for ch in (raw or "")
        if (ch not in _BIDI and unicodedata.category(ch) not in ("Cc", "Cf"))
        or ch == "\u200d"  # keep zero-width joiners: they hold emoji sequences together
    )
    text = " ".join(text.split())
    if len(text) > MAX_NAME:
        text = text[: MAX_NAME - 1].rstrip() + "…"
    return text or fallback


def new_game_id() -> str:
    return secrets.token_hex(4)


@dataclass
class Player:
    id: int
    name: str
    lang: str | None = None
    ready: bool = False  # the bot can write to them in private

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "lang": self.lang, "ready": self.ready}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Player:
        return cls(int(d["id"]), str(d["name"]), d.get("lang"), bool(d.get("ready")))


@dataclass
class Table:
    gid: str
    host: int
    created: float
    players: list[Player] = field(default_factory=list)
    game: Game | None = None
    step: int = 0
    msgs: dict[str, int] = field(default_factory=dict)
    priv: dict[int, int] = field(default_factory=dict)
    round_log: list[list[Any]] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    deadline: float | None = None  # epoch seconds when the current step times out
    reminded: bool = False  # the half-way reminder of the current step was sent

    def restart_clock(self, now: float | None = None) -> None:
        """Give the current step a fresh deadline (none when the group's timers are off)."""
        seconds = int(self.options.get("timer", 0) or 0)
        if seconds <= 0 or self.game is None or self.game.is_over:
            self.deadline = None
        else:
            self.deadline = (time.time() if now is None else now) + seconds
        self.reminded = False

    # -------------------------------------------------------------- people and seats

    def player(self, user_id: int) -> Player | None:
        for p in self.players:
            if p.id == user_id:
                return p
        return None

    def seat_of(self, user_id: int) -> int | None:
        if self.game is None:
            return None
        for seat, index in enumerate(self.game.seating):
            if self.players[index].id == user_id:
                return seat
        return None

    def at(self, seat: int) -> Player:
        assert self.game is not None
        return self.players[self.game.seating[seat]]

    def names(self) -> list[str]:
        """Display names by seat (join order in the lobby), made unique with a number."""
        people = [self.at(s) for s in range(self.game.n)] if self.game else self.players
        base = [p.name for p in people]
        out = []
        for i, name in enumerate(base):
            out.append(f"{name} #{i + 1}" if base.count(name) > 1 else name)
        return out

    def key(self, name: str) -> str:
        return f"{self.gid}:{name}"

    # -------------------------------------------------------------- serialization

    def to_dict(self) -> dict[str, Any]:
        return {
            "gid": self.gid,
            "host": self.host,
            "created": self.created,
            "players": [p.to_dict() for p in self.players],
            "game": self.game.to_dict() if self.game else None,
            "step": self.step,
            "msgs": self.msgs,
            "priv": {str(k): v for k, v in self.priv.items()},
            "round_log": self.round_log,
            "options": self.options,
            "deadline": self.deadline,
            "reminded": self.reminded,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Table:
        return cls(
            gid=str(d["gid"]),
            host=int(d["host"]),
            created=float(d.get("created", 0.0)),
            players=[Player.from_dict(p) for p in d.get("players", [])],
            game=Game.from_dict(d["game"]) if d.get("game") else None,
            step=int(d.get("step", 0)),
            msgs={str(k): int(v) for k, v in d.get("msgs", {}).items()},
            priv={int(k): int(v) for k, v in d.get("priv", {}).items()},
            round_log=[list(e) for e in d.get("round_log", [])],
            options=dict(d.get("options", {})),
            deadline=float(d["deadline"]) if d.get("deadline") is not None else None,
            reminded=bool(d.get("reminded", False)),
        )
