"""One table: the players, the engine state, the step's deadline and what the table owes.

Stored as ``GameRecord.data``. The engine knows seats; this maps seats to people. Every
field is plain JSON so any store can keep it and a restarted bot can carry on.

Delivery is part of the state: a transition that changes what a message should show marks
that message *owed* (:meth:`Table.owe`), in the same write as the change itself. The bot
renders an owed message from the table when the rate limiter lets it send, and marks it
delivered (:meth:`Table.delivered`) only once Telegram accepted it; after a crash, what is
still owed is delivered again. Messages are named by *slots* ("lobby", "board",
"round:3", "prompt:14", "role:2", ...); ``shown`` keeps the message id of each slot that
may be edited later.
"""

from __future__ import annotations

import copy
import math
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
    return ch not in _BIDI and unicodedata.category(ch) not in ("Cc", "Cf", "Cs")


def clean_name(raw: str | None, fallback: str) -> str:
    """A display name safe to show anywhere: no control or bidi characters, at most 32
    characters (grapheme-naive but never splitting a surrogate), never empty."""
    text = "".join(
        " " if ch.isspace() else ch  # a newline or tab still separates two words
        for ch in (raw or "")
        if (ch not in _BIDI and unicodedata.category(ch) not in ("Cc", "Cf", "Cs"))
        or ch == "\u200d"  # keep zero-width joiners: they hold emoji sequences together
        or ch.isspace()
    )
    text = " ".join(text.split())
    if len(text) > MAX_NAME:
        text = text[: MAX_NAME - 1].rstrip() + "…"
    if not text.replace("\u200d", "").strip():
        return fallback  # nothing visible: joiners alone would show a blank name
    return text


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


GROUP = 0  # the chat id of an owed message meant for the table's own group
MAX_SEEN = 64  # callback query ids remembered per table (duplicate deliveries)
MAX_CALLS = 20  # group call times remembered (the send window survives a restart)


@dataclass
class Table:
    gid: str
    host: int
    created: float
    players: list[Player] = field(default_factory=list)
    game: Game | None = None
    step: int = 0
    round_log: list[list[Any]] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    deadline: float | None = None  # epoch seconds when the current step times out
    reminded: bool = False  # the half-way reminder of the current step was sent
    # Delivery state (see the module docstring).
    seq: int = 0
    owed: dict[str, list[Any]] = field(default_factory=dict)  # slot -> [seq, chat, payload]
    shown: dict[str, int] = field(default_factory=dict)  # slot -> message id
    # round slot -> the part of its round its message last showed ("vote", "session", ...;
    # "closed"): whether the group still sees buttons there (shbot.bot.delivery.budget.teller)
    stages: dict[str, str] = field(default_factory=dict)
    calls: list[float] = field(default_factory=list)  # recent group calls (epoch seconds)
    seen: list[str] = field(default_factory=list)  # recent callback query ids
    ending: str | None = None  # "finished" or "cancelled": archived once nothing is owed
    missed: dict[str, int] = field(default_factory=dict)  # user id -> deadlines missed in a row
    talk: dict[str, Any] = field(default_factory=dict)  # claims (shbot.table.claims)
    standins: list[int] = field(default_factory=list)  # people a computer plays for (seats.py)
    log: str = ""  # every event, one JSON line each (table.knowledge): one string to load

    invited: list[Player] = field(default_factory=list)  # a rematch lobby's former players

    # -------------------------------------------------------------- delivery

    def owe(self, slot: str, chat: int = GROUP, payload: dict[str, Any] | None = None) -> None:
        """Mark ``slot`` as owed: its newest state must reach ``chat`` (GROUP: the group).

        Owing a slot again replaces the older entry (latest state wins); a payload given
        before is kept unless a new one is given, so a later re-render keeps its data.
        Nothing private is owed to a computer seat (a negative id), nor a prompt to a person
        a computer plays for (:mod:`shbot.table.seats`), nor a claim prompt they were not
        shown already (the computer claims for their seat)."""
        if chat < GROUP or (
            chat in self.standins
            and (
                slot.startswith(("prompt:", "nudge:"))
                or (slot.startswith("claim:") and slot not in self.shown)
            )
        ):
            return
        self.seq += 1
        old = self.owed.get(slot)
        if payload is None and old is not None:
            payload = old[2]
        self.owed[slot] = [self.seq, chat, payload]

    def delivered(
        self, slot: str, seq: int, message_id: int | None, *, keep: bool, stage: str | None = None
    ) -> None:
        """Telegram accepted ``slot`` as rendered at ``seq`` (showing ``stage`` of its round):
        forget it unless owed again. The newest private message of each person is noted
        (``talk["newest"]``: message ids grow within a chat): what they see at the end."""
        entry = self.owed.get(slot)
        if entry is not None and entry[1] != GROUP and message_id is not None:
            newest = self.talk.setdefault("newest", {})
            if message_id > int(newest.get(str(entry[1]), 0)):
                newest[str(entry[1])] = message_id
        if entry is not None and entry[0] <= seq:
            del self.owed[slot]
        if keep and message_id is not None:
            self.shown[slot] = message_id
            if stage is not None:
                self.stages[slot] = stage
        elif not keep:
            self.shown.pop(slot, None)
            self.stages.pop(slot, None)

    def duplicate(self, update_key: str) -> bool:
        """True if this update was applied already; else remember it (rides in the commit)."""
        if update_key in self.seen:
            return True
        self.seen.append(update_key)
        del self.seen[:-MAX_SEEN]
        return False

    def result(self) -> dict[str, Any] | None:
        """The finished game for the statistics (roles by user), or None if not finished."""
        game = self.game
        if game is None or game.winner is None or game.condition is None:
            return None
        players = []
        for seat, role in enumerate(game.roles):
            p = self.at(seat)
            side = "liberal" if role == "L" else "fascist"
            players.append(
                {
                    "user_id": p.id,
                    "name": p.name,
                    "role": {"L": "liberal", "F": "fascist", "H": "hitler"}[role],
                    "won": side == game.winner.value,
                }
            )
        return {
            "game_id": self.gid,
            "winner": game.winner.value,
            "condition": game.condition.value,
            "players": players,
        }

    def record_calls(self, times: list[float]) -> None:
        """Note the group's calls made at ``times``, to the millisecond and rounded up (a
        call looks a little later, never earlier, to the rate limit): the record keeps 20 of
        them, and their noise digits were a tenth of its compressed size."""
        later = [math.ceil(t * 1000) / 1000 for t in times]
        self.calls = sorted([*self.calls, *later])[-MAX_CALLS:]

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
        out = [p.name for p in people]
        while len(set(out)) < len(out):  # again if "Ann #1" was someone's own name
            out = [f"{n} #{i + 1}" if out.count(n) > 1 else n for i, n in enumerate(out)]
        return out

    def key(self, name: str) -> str:
        return f"{self.gid}:{name}"

    # -------------------------------------------------------------- serialization

    def snapshot(self) -> Table:
        """The table as it is now, for a change to be compared with afterwards: its own
        copy of the game, the rest shared (read only the game and the scalars of it)."""
        snap = copy.copy(self)
        snap.game = self.game.clone() if self.game is not None else None
        return snap

    def copy(self) -> Table:
        """An independent copy, as deep as :meth:`from_dict` of :meth:`to_dict` makes one
        (a transition may change it freely) but without the round trip: the commit path
        copies the table it already holds instead of parsing the record on every press."""
        return Table(
            gid=self.gid,
            host=self.host,
            created=self.created,
            players=[Player(p.id, p.name, p.lang, p.ready) for p in self.players],
            game=self.game.clone() if self.game is not None else None,
            step=self.step,
            round_log=[list(e) for e in self.round_log],
            options=dict(self.options),
            deadline=self.deadline,
            reminded=self.reminded,
            seq=self.seq,
            owed={k: list(v) for k, v in self.owed.items()},
            shown=dict(self.shown),
            stages=dict(self.stages),
            calls=list(self.calls),
            seen=list(self.seen),
            ending=self.ending,
            missed=dict(self.missed),
            talk={k: v.copy() for k, v in self.talk.items()},
            standins=list(self.standins),
            log=self.log,
            invited=[Player(p.id, p.name, p.lang, p.ready) for p in self.invited],
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "gid": self.gid,
            "host": self.host,
            "created": self.created,
            "players": [p.to_dict() for p in self.players],
            "game": self.game.to_dict() if self.game else None,
            "step": self.step,
            "round_log": self.round_log,
            "options": self.options,
            "deadline": self.deadline,
            "reminded": self.reminded,
            "seq": self.seq,
            "owed": self.owed,
            "shown": self.shown,
            "stages": self.stages,
            "calls": self.calls,
            "seen": self.seen,
            "ending": self.ending,
            "missed": self.missed,
            "talk": self.talk,
            "standins": self.standins,
            "log": self.log,
            "invited": [p.to_dict() for p in self.invited],
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
            round_log=[list(e) for e in d.get("round_log", [])],
            options=dict(d.get("options", {})),
            deadline=float(d["deadline"]) if d.get("deadline") is not None else None,
            reminded=bool(d.get("reminded", False)),
            seq=int(d.get("seq", 0)),
            owed={str(k): list(v) for k, v in d.get("owed", {}).items()},
            shown=_shown_slots(d),
            stages={str(k): str(v) for k, v in d.get("stages", {}).items()},
            calls=[float(x) for x in d.get("calls", [])],
            seen=[str(x) for x in d.get("seen", [])],
            ending=d.get("ending"),
            missed={str(k): int(v) for k, v in d.get("missed", {}).items()},
            # One level copied: the claims module replaces items, never changes them in place.
            talk={str(k): v.copy() for k, v in d.get("talk", {}).items()},
            standins=[int(x) for x in d.get("standins", [])],
            log=str(d.get("log") or ""),
            invited=[Player.from_dict(p) for p in d.get("invited", [])],
        )


def _shown_slots(d: dict[str, Any]) -> dict[str, int]:
    """Message ids by slot; a record written before slots existed kept them in ``msgs``
    ("round3", "prompt14"), so a game started before the upgrade goes on after it."""
    shown = {str(k): int(v) for k, v in d.get("shown", {}).items()}
    for name, mid in d.get("msgs", {}).items():
        for old in ("round", "prompt"):
            if name.startswith(old) and name[len(old) :].isdigit():
                name = f"{old}:{name[len(old) :]}"
        shown.setdefault(str(name), int(mid))
    return shown
