"""The Mini App's views (shbot/webapp/views.py) over many simulated games.

The secrecy property the chat has, for the page: before the game ends, the public view
(what any member of the group gets) does not change when anything hidden changes (roles,
ballots not yet revealed, hands, the draw pile, every private log entry, the truth behind
claims); a seat's secret panel does not change when what that seat was not shown changes.
"""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest

from shbot.bot.render.picture import HEIGHT, WIDTH
from shbot.engine import Kind
from shbot.i18n import translator
from shbot.table import Table
from shbot.table.knowledge import ACT, encode, read
from shbot.webapp import views
from tests.webapp_games import simulate

EN = translator("en")


def flat(blocks: list[list[str]]) -> list[str]:
    return list(itertools.chain.from_iterable(blocks))


FLIP = {"L": "F", "F": "L", "liberal": "fascist", "fascist": "liberal"}


def _flip(value: Any) -> Any:
    if isinstance(value, str):
        return FLIP.get(value, value)
    if isinstance(value, list):
        return [_flip(v) for v in value]
    return value


def scramble(table: Table, keep: int | None, rng: random.Random) -> Table:
    """A copy of ``table`` with everything hidden changed, except what seat ``keep`` (if
    given) was shown: its own role entry and the private entries addressed to it."""
    d = json.loads(json.dumps(table.to_dict()))
    g = d["game"]
    roles = list(g["roles"])
    rng.shuffle(roles)
    g["roles"] = "".join(roles)
    g["draw"] = "".join(rng.choice("LF") for _ in g["draw"])
    holder = {"president_discard": g["president"], "chancellor_enact": g["chancellor"]}
    if keep is None or holder.get(g["phase"]) != keep:  # the holder sees its hand (to act)
        g["hand"] = "".join(_flip(list(g["hand"])))
    flipped = [{"0": "1", "1": "0"}.get(c, c) for c in g["votes"]]
    if keep is not None:  # a voter knows their own vote (the page marks it)
        flipped[keep] = g["votes"][keep]
    g["votes"] = "".join(flipped)
    lines = []
    for e in read(table.log):
        data = e.data
        if e.to is not None and (keep is None or keep not in e.to):
            if e.kind == Kind.ROLE:
                data = {**data, "role": "H" if data["role"] != "H" else "L", "fascists": [0]}
            elif e.kind == ACT:
                data = {"action": [*data["action"][:2], _flip(data["action"][2])]}
            else:
                data = {k: _flip(v) for k, v in data.items()}
        lines.append(encode(e.kind, data, e.to))
    d["log"] = "\n".join(lines)
    truth = d["talk"].get("truth", {})
    d["talk"]["truth"] = {k: _flip(v) for k, v in truth.items()}
    return Table.from_dict(d)


def dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


@pytest.mark.parametrize("n", range(5, 11))
def test_nothing_private_outside_its_owners_view_before_the_end(n: int) -> None:
    rng = random.Random(n)
    states = 0
    for seed in range(n * 10, n * 10 + 2):
        for table in simulate(n, seed):
            game = table.game
            assert game is not None
            if game.is_over:
                continue
            states += 1
            public = dump(views.public(EN, table))
            assert public == dump(views.public(EN, scramble(table, None, rng)))
            spectator = dump(views.view(EN, table, None))
            assert spectator == dump(views.view(EN, scramble(table, None, rng), None))
            for seat in rng.sample(range(n), 2):
                mine = dump(views.view(EN, table, seat))
                assert mine == dump(views.view(EN, scramble(table, seat, rng), seat)), seat
    assert states > 50


def test_the_secret_panel_holds_what_the_seat_was_shown() -> None:
    """A seat's panel has its role, its hands and its results; a spectator has none, and
    nobody's public view names a hand or a role before the end."""
    tables = list(simulate(7, 11))
    last_running = [t for t in tables if t.game is not None and not t.game.is_over][-1]
    game = last_running.game
    assert game is not None
    for seat in range(7):
        panel = "\n".join(flat(views.secret(EN, last_running, seat)))
        assert "Your secret role in this game" in panel
        drew = any(
            e.kind == Kind.PRESIDENT_HAND and e.to == (seat,) for e in read(last_running.log)
        )
        assert ("You drew" in panel) == drew
    spectator = dump(views.view(EN, last_running, None))
    for secret in ("You drew", "You received", "secret role", '"role"', "Hitler is"):
        assert secret not in spectator
    assert views.view(EN, last_running, None)["secret"] is None


def test_roles_are_on_the_seats_at_the_end_and_the_end_is_told() -> None:
    final = list(simulate(6, 3))[-1]
    v = views.view(EN, final, None)
    assert v["status"] == "over"
    assert [s["side"] for s in v["seats"]].count("hitler") == 1
    assert all(s["role"] in ("Liberal", "Fascist", "Hitler") for s in v["seats"])
    assert v["end"][0] in ("🏁 <b>The Liberals win!</b>", "🏁 <b>The Fascists win!</b>")


def test_during_a_vote_who_voted_is_shown_never_how() -> None:
    for table in simulate(8, 5, claims=False):
        game = table.game
        assert game is not None
        if game.phase.value == "vote" and 0 < sum(v >= 0 for v in game.votes) < game.alive_count:
            break
    else:
        raise AssertionError("no vote half cast")
    seats = views.view(EN, table, None)["seats"]
    assert [s["voted"] for s in seats] == [
        (v >= 0) if game.alive[i] else None for i, v in enumerate(game.votes)
    ]
    assert not any("Ja! (" in line for line in views.public(EN, table)["now"])


def test_the_board_svg_draws_the_public_facts_only() -> None:
    table = list(simulate(10, 2))[40]
    svg = views.public(EN, table)["board"]
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert f'viewBox="0 0 {WIDTH} {HEIGHT}"' in svg  # the picture's canvas
    for seat in range(1, 11):
        assert f">{seat}</text>" in svg


def test_the_page_speaks_the_viewers_language() -> None:
    table = list(simulate(5, 1))[10]
    fr = views.view(translator("fr"), table, 0)
    ja = views.view(translator("ja"), table, 0)
    assert fr["labels"]["record"] != views.view(EN, table, 0)["labels"]["record"]
    assert ja["labels"]["secret"] != fr["labels"]["secret"]
    assert "Votre rôle secret" in "\n".join(flat(fr["secret"]))


def test_a_cancelled_game_reveals_nothing() -> None:
    table = list(simulate(6, 4))[30]
    table.ending = "cancelled"
    v = views.view(EN, table, None)
    assert v["status"] == "cancelled" and v["now"] == []
    assert not any("role" in s or "side" in s for s in v["seats"])
    assert "end" not in v
