"""Secrecy (RULES-SPEC R11, with R2, R4.3, R5.3, R9.2, R9.4, R9.5, R10): over thousands of
random games nothing secret reaches a public event or the public view before the end, and
each private event goes exactly to the seat entitled to it."""

from __future__ import annotations

import random

from shbot.engine import PRIVATE_KINDS, Event, Game, Kind, Phase

from .engine_helpers import (
    check_public_event,
    check_role_events,
    choose_move,
    settings_for,
)

GAMES = 2000
FIRST_SEED = 100_000  # other seeds than the property tests

PUBLIC_VIEW_KEYS = frozenset(
    {
        "players",
        "phase",
        "round",
        "president",
        "chancellor",
        "in_office",
        "last_president",
        "last_chancellor",
        "term_limited",
        "alive",
        "confirmed",
        "investigated",
        "voted",
        "liberal",
        "fascist",
        "tracker",
        "draw",
        "discard",
        "powers",
        "veto_unlocked",
        "veto_refused",
        "seating",
        "winner",
        "condition",
    }
)


PRIVATE_VIEW_KEYS = frozenset(
    {"role", "party", "seat", "fascists", "hitler", "hand", "investigations"}
)


def entitled(ev: Event, g: Game, president_before: int) -> int:
    """The one seat allowed to see a private event (R11 table)."""
    if ev.kind is Kind.ROLE:
        return int(ev.data["seat"])
    if ev.kind is Kind.PRESIDENT_HAND:
        return g.president
    if ev.kind is Kind.CHANCELLOR_HAND:
        return g.chancellor
    assert ev.kind in (Kind.INVESTIGATION_RESULT, Kind.PEEK_RESULT), ev
    return president_before


def test_r11_public_events_and_view_reveal_nothing_before_the_end() -> None:
    """No role, party, drawn/passed/discarded/peeked tile or investigation result in any
    public event before GAME_OVER (allowed keys per kind, typed values); the public view
    has no roles; private events reach exactly their entitled seat; GAME_OVER then reveals
    every role (R10)."""
    private_seen: dict[Kind, int] = {}
    for seed in range(FIRST_SEED, FIRST_SEED + GAMES):
        s = settings_for(seed)
        r = random.Random(seed)
        g, events = Game.new(s.n, seed, shuffle_seats=s.shuffle_seats, rebalanced=s.rebalanced)
        check_role_events(events, g.n, g.roles)
        over = False
        while True:
            for ev in events:
                assert not over, "nothing after GAME_OVER"
                if ev.kind is Kind.GAME_OVER:
                    assert ev.to is None and ev.data["roles"] == g.roles
                    over = True
                elif ev.to is None:
                    check_public_event(ev, g.n)
                else:
                    private_seen[ev.kind] = private_seen.get(ev.kind, 0) + 1
            if g.phase is Phase.GAME_OVER:
                assert over and g.public_view()["roles"] == g.roles
                break
            if r.random() < 0.3:
                view = g.public_view()
                assert set(view) == PUBLIC_VIEW_KEYS and g.roles not in view.values()
            president = g.president
            events = choose_move(g, r, s).play(g)
            for ev in events:
                if ev.to is not None:
                    assert ev.kind in PRIVATE_KINDS
                    assert ev.to == (entitled(ev, g, president),), ev
    assert set(private_seen) == set(PRIVATE_KINDS)


def test_r11_public_events_do_not_depend_on_the_hidden_roles() -> None:
    """Non-interference: two games with the same seed, deck and first president but
    different roles, played with the same actions, publish the very same events until the
    end (which may come at different times: Hitler elected or executed, R10)."""
    compared = 0
    for seed in range(FIRST_SEED, FIRST_SEED + 400):
        s = settings_for(seed)
        r = random.Random(seed)
        deck = "".join(Game.new(s.n, seed)[0].draw[::-1])
        roles = list(Game.new(s.n, seed)[0].roles)
        other = roles[1:] + roles[:1]
        games = [
            Game.new(s.n, seed, roles=rs, deck=deck, first_president=seed % s.n)[0]
            for rs in (roles, other)
        ]
        a, b = games
        while a.phase is not Phase.GAME_OVER and b.phase is not Phase.GAME_OVER:
            move = choose_move(a, r, s)
            ea, eb = move.play(a), move.play(b)
            pa = [e for e in ea if e.to is None and e.kind is not Kind.GAME_OVER]
            pb = [e for e in eb if e.to is None and e.kind is not Kind.GAME_OVER]
            ended = Kind.GAME_OVER in [e.kind for e in ea + eb]
            if not ended:
                assert pa == pb
                assert a.public_view() == b.public_view()
                compared += 1
            # the private events are about the same tiles, to the same seats
            assert [(e.kind, e.to) for e in ea if e.kind in PRIVATE_KINDS] == [
                (e.kind, e.to) for e in eb if e.kind in PRIVATE_KINDS
            ] or ended
    assert compared > 5_000


def test_r11_private_view_is_own_knowledge_only() -> None:
    """private_view(seat) holds the seat's own role (R2), the hand only while that seat
    holds it (R5.1, R5.2) and only that seat's own investigations (R9.2)."""
    for seed in range(FIRST_SEED, FIRST_SEED + 300):
        s = settings_for(seed)
        r = random.Random(seed)
        g, _ = Game.new(s.n, seed, rebalanced=s.rebalanced)
        investigations: dict[int, dict[int, str]] = {seat: {} for seat in range(g.n)}
        while g.phase is not Phase.GAME_OVER:
            for seat in range(g.n) if g.phase is not Phase.VOTE or r.random() < 0.2 else ():
                view = g.private_view(seat)
                assert view["role"] == g.roles[seat] and view["seat"] == seat
                assert view["investigations"] == investigations[seat]
                holds = (g.phase is Phase.PRESIDENT_DISCARD and seat == g.president) or (
                    g.phase in (Phase.CHANCELLOR_ENACT, Phase.VETO_RESPONSE)
                    and seat == g.chancellor
                )
                assert ("hand" in view) is holds
                assert set(view) <= PRIVATE_VIEW_KEYS
            president = g.president
            for ev in choose_move(g, r, s).play(g):
                if ev.kind is Kind.INVESTIGATION_RESULT:
                    investigations[president][ev.data["target"]] = ev.data["party"]
