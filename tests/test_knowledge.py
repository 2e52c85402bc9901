"""What a seat knows (shbot/table/knowledge.py), checked over many seeded full games.

Games are played by the simulator's agents on the bare engine (no bot). For every seat,
every private fact must come from an event whose audience names that seat (the engine's
own rule, ``Event.to``), and the facts must not change when everything the seat was not
shown is changed: two games that differ only in hidden things give the same log.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from shbot.engine import FASCIST, LIBERAL, Event, Game, Kind, Phase, Vote
from shbot.players import AGENTS, deliver, visible
from shbot.table import Table
from shbot.table.knowledge import ACT, Entry, events, knowledge, read, record

SEEDS = range(60)


def play_game(seed: int) -> tuple[Game, list[Event], Table]:
    """One full game between computer players; returns the game, all its events and a table
    whose log recorded them as the bot does."""
    rng = random.Random(seed)
    players = 5 + seed % 6
    game, opening = Game.new(players, seed)
    table = Table(gid="test", host=0, created=0.0)
    kind = "heuristic" if seed % 2 else "random"
    agents = [AGENTS[kind](random.Random(rng.random())) for _ in range(players)]
    for seat, agent in enumerate(agents):
        agent.reset(seat, game)
        deliver(agent, seat, opening)
    everything = list(opening)
    record(table, opening)
    while not game.is_over:
        if game.phase is Phase.VOTE:
            seat = game.to_act()[0]
            action: Any = Vote(seat, agents[seat].ballot(game, seat))
        else:
            seat = game.to_act()[0]
            action = agents[seat].act(game, seat)
        new = game.apply(action)
        everything += new
        record(table, new, action)
        for s, agent in enumerate(agents):
            deliver(agent, s, new)
    return game, everything, table


@pytest.fixture(scope="module")
def games() -> list[tuple[Game, list[Event], Table]]:
    return [play_game(seed) for seed in SEEDS]


def scramble(entries: list[Entry], seat: int, rng: random.Random) -> list[Entry]:
    """The same log, with everything ``seat`` was not shown changed (hands, roles, parties,
    own actions of others): another game, as far as ``seat`` can tell."""
    out = []
    for e in entries:
        if e.seen_by(seat):
            out.append(e)
            continue
        data: dict[str, Any] = dict(e.data)
        if "policies" in data:
            data["policies"] = [rng.choice([LIBERAL, FASCIST]) for _ in data["policies"]]
        if "party" in data:
            data["party"] = rng.choice([LIBERAL, FASCIST])
        if "role" in data:
            data["role"] = rng.choice([LIBERAL, FASCIST, "H"])
            data["fascists"] = [rng.randrange(10)]
            data["hitler"] = rng.randrange(10)
        if e.kind == ACT:
            data["action"] = ["Discard", rng.randrange(10), rng.choice([LIBERAL, FASCIST])]
        out.append(Entry(e.kind, data, e.to))
    return out


def test_the_log_keeps_every_event_but_the_ballots_cast(games: list[Any]) -> None:
    for _game, everything, table in games:
        entries = read(table.log)
        kept = [e for e in everything if e.kind is not Kind.VOTE_CAST]
        assert events(entries) == kept
        acts = [e for e in entries if e.kind == ACT]
        hands = [e for e in everything if e.kind is Kind.PRESIDENT_HAND]
        # Every President who drew discarded (a game can end before, never after a draw).
        assert len(hands) - 1 <= len(acts) <= len(hands)
        for act in acts:
            assert act.to == (act.data["action"][1],), "an action is known to its actor alone"


def test_every_private_fact_was_addressed_to_the_seat(games: list[Any]) -> None:
    for game, _everything, table in games:
        entries = read(table.log)
        for seat in range(game.n):
            facts = knowledge(entries, seat)
            assert facts, "every seat knows at least its role"
            for fact in facts:
                source = entries[fact.source]
                if fact.private:
                    assert source.to is not None and seat in source.to, (fact, source)
                else:
                    assert source.to is None, (fact, source)


def test_what_a_seat_was_not_shown_changes_nothing(games: list[Any]) -> None:
    rng = random.Random(7)
    for game, _everything, table in games:
        entries = read(table.log)
        for seat in range(game.n):
            mine = knowledge(entries, seat)
            assert knowledge(scramble(entries, seat, rng), seat) == mine
            # Nor does removing it altogether (only the positions of the sources move).
            seen = [e for e in entries if e.seen_by(seat)]
            trimmed = [(f.kind, f.data, f.private) for f in knowledge(seen, seat)]
            assert trimmed == [(f.kind, f.data, f.private) for f in mine]


def test_the_facts_match_the_engines_private_view(games: list[Any]) -> None:
    for game, everything, table in games:
        entries = read(table.log)
        for seat in range(game.n):
            facts = knowledge(entries, seat)
            view = game.private_view(seat)
            roles = [f.data for f in facts if f.kind == "role"]
            assert roles == [{k: v for k, v in view.items() if k in roles[0]}]
            found = {f.data["target"]: f.data["party"] for f in facts if f.kind == "investigation"}
            assert found == view["investigations"]
            mine = [e for e in visible(everything, seat) if e.to is not None]
            drew = [e.data["policies"] for e in mine if e.kind is Kind.PRESIDENT_HAND]
            assert [f.data["policies"] for f in facts if f.kind == "drew"] == drew
            peeks = [e.data["policies"] for e in mine if e.kind is Kind.PEEK_RESULT]
            assert [f.data["policies"] for f in facts if f.kind == "peek"] == peeks


def test_discards_are_what_the_seat_got_minus_what_it_passed_on(games: list[Any]) -> None:
    checked = 0
    for game, _everything, table in games:
        entries = read(table.log)
        for seat in range(game.n):
            facts = knowledge(entries, seat)
            for before, fact in itertools.pairwise(facts):
                if fact.kind == "discarded":
                    assert before.kind == "drew"
                    got = sorted(before.data["policies"])
                    assert sorted([fact.data["policy"], *fact.data["passed"]]) == got
                    checked += 1
                if fact.kind == "enacted":
                    hand = entries[fact.source].data["policies"]
                    assert sorted([fact.data["policy"], fact.data["discarded"]]) == sorted(hand)
                    checked += 1
    assert checked > 100


def test_an_unreadable_entry_is_skipped() -> None:
    log = '["nominated",[1,2]]\n["nominated",[1]]\njunk\n["role",3,[0]]\n7\n["x"]'
    assert read(log) == [Entry("nominated", {"president": 1, "chancellor": 2}, None)]
