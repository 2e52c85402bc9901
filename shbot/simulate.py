"""Play many complete games between computer players and summarize who wins and how.

Reproducible: game ``k`` of a run with seed ``S`` is dealt from a seed derived from
``(S, k)`` and its agents draw from a ``random.Random`` seeded with that same game seed, so
a run, or any single game of it, replays exactly.

Two loops play a game. :func:`play` seats real :class:`~shbot.agents.Agent` objects and
feeds each one only the events its seat may see, as the bot will. :func:`play_random` is
the lean loop for all-random tables (the benchmark and ``--agents random``): no agent
objects, no event filtering, one ``getrandbits`` per election.
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from shbot.engine import (
    LIBERAL,
    MAX_PLAYERS,
    MIN_PLAYERS,
    Condition,
    Discard,
    Event,
    Game,
    Phase,
    Winner,
)
from shbot.engine.claims import Claim
from shbot.engine.rng import next_u64, seed_state
from shbot.players import (
    AGENTS,
    Agent,
    AgentFactory,
    ClaimRequest,
    GameView,
    Memory,
    claim_requests,
    deliver,
    recalled,
    tell,
)

_T = TypeVar("_T")

__all__ = [
    "GameResult",
    "game_seeds",
    "parse_players",
    "play",
    "play_random",
    "simulate",
    "summary_table",
]

_VOTE = Phase.VOTE
_OVER = Phase.GAME_OVER


@dataclass(slots=True)
class GameResult:
    """How one game went. ``actions`` counts decisions: one per non-vote action and one
    per ballot of each living voter."""

    players: int
    seed: int
    winner: str
    condition: str
    rounds: int
    actions: int
    events: list[Event] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    asked: list[ClaimRequest] = field(default_factory=list)  # what each claim answered


def parse_players(text: str) -> list[int]:
    """``"7"`` → [7], ``"5-10"`` → [5, …, 10]; ValueError (one line) outside 5–10."""
    lo_text, sep, hi_text = text.partition("-")
    try:
        lo = int(lo_text)
        hi = int(hi_text) if sep else lo
    except ValueError:
        raise ValueError(f"players must be N or N-M, got {text!r}") from None
    if not MIN_PLAYERS <= lo <= hi <= MAX_PLAYERS:
        raise ValueError(
            f"players must be within {MIN_PLAYERS}-{MAX_PLAYERS} (low ≤ high), got {text!r}"
        )
    return list(range(lo, hi + 1))


def game_seeds(seed: int, count: int) -> list[int]:
    """``count`` well-spread 64-bit game seeds derived from one run seed (SplitMix64), so
    runs with neighbouring seeds share no games."""
    out = []
    state = seed_state(seed)
    for _ in range(count):
        value, state = next_u64(state)
        out.append(value)
    return out


def play_random(players: int, seed: int, record: list[Event] | None = None) -> GameResult:
    """One complete game between uniformly random players, as fast as the engine allows.

    Equivalent in distribution to seating :class:`~shbot.agents.RandomAgent` everywhere
    (one random ballot bit per living voter), but all ballots come from a single
    ``getrandbits`` call per election."""
    game, events = Game.new(players, seed)
    if record is not None:
        record.extend(events)
    rand = random.Random(seed)
    rnd = rand.random
    bits = rand.getrandbits
    seats = range(players)
    table = _ballot_table(players)
    actions = 0
    to_act = game.to_act
    legal = game.legal_actions
    apply = game.apply
    apply_ballots = game.apply_ballots
    while True:
        phase = game.phase
        if phase is _OVER:
            break
        if phase is _VOTE:
            b = bits(players)
            alive = game.alive
            living = alive.count(True)
            actions += living
            if living == players:
                events = apply_ballots(table[b])
            else:
                events = apply_ballots([(b >> s) & 1 == 1 if alive[s] else None for s in seats])
        else:
            acts = legal(to_act()[0])
            events = apply(acts[int(rnd() * len(acts))])
            actions += 1
        if record is not None:
            record.extend(events)
    return _result(game, seed, actions, record)


@functools.cache
def _ballot_table(players: int) -> tuple[tuple[bool, ...], ...]:
    """Every full-table ballot list, indexed by its bit pattern (seat s = bit s)."""
    return tuple(tuple((b >> s) & 1 == 1 for s in range(players)) for b in range(1 << players))


def play(
    players: int,
    seed: int,
    liberals: str | AgentFactory = "random",
    fascists: str | AgentFactory = "random",
    record: list[Event] | None = None,
    *,
    view: Callable[[Game, int], GameView] | None = None,
    timings: list[float] | None = None,
    rebuild: Callable[[int, int], bool] | None = None,
) -> GameResult:
    """One complete game with agents by name for each party (Hitler sits with the
    Fascists), or agent factories. Each agent sees only what its seat may see, and hears
    every claim.

    ``view(game, seat)`` gives the object a seat's agent reads instead of the game (a
    test hands out views that refuse anything else); ``timings`` collects the seconds of
    every agent decision (act, ballot, claim). ``rebuild(step, seat)`` true: before that
    step, the seat's agent is replaced by a new one of the same seed that recalls the game
    from the seat's record (a take-over, or a restart when true for every seat)."""
    game, events = Game.new(players, seed)
    if record is not None:
        record.extend(events)
    past: list[Memory] | None = list(events) if rebuild is not None else None
    liberal_cls = AGENTS[liberals] if isinstance(liberals, str) else liberals
    fascist_cls = AGENTS[fascists] if isinstance(fascists, str) else fascists
    roles = game.roles  # the runner deals the seats; agents never see this
    kinds = [liberal_cls if roles[s] == LIBERAL else fascist_cls for s in range(players)]
    agents: list[Agent] = [kinds[s](_seat_rng(seed, s)) for s in range(players)]
    views: list[GameView] = [game if view is None else view(game, s) for s in range(players)]
    for s, agent in enumerate(agents):
        agent.reset(s, views[s])
    watchers = [(s, a) for s, a in enumerate(agents) if a.observes]
    for s, agent in watchers:
        deliver(agent, s, events)
    decide = _Timed(timings) if timings is not None else None
    actions = 0
    said: list[Claim] = []
    asked: list[ClaimRequest] = []
    while not game.is_over:
        if past is not None and rebuild is not None:
            for s in range(players):
                if agents[s].observes and rebuild(actions, s):
                    agents[s] = kinds[s](_seat_rng(seed, s))
                    agents[s].recall(s, views[s], recalled(past, s))
            watchers = [(s, a) for s, a in enumerate(agents) if a.observes]
        requests: list[ClaimRequest] = []
        if game.phase is _VOTE:
            alive = game.alive
            if decide is None:
                ballots = [
                    agents[s].ballot(views[s], s) if alive[s] else None for s in range(players)
                ]
            else:
                ballots = [
                    decide(agents[s].ballot, views[s], s) if alive[s] else None
                    for s in range(players)
                ]
            actions += alive.count(True)
            events = game.apply_ballots(ballots)
        else:
            seat = game.to_act()[0]
            before = (game.round, game.president, game.chancellor)
            act = agents[seat].act
            action = act(views[seat], seat) if decide is None else decide(act, views[seat], seat)
            events = game.apply(action)
            actions += 1
            requests = claim_requests(events, *before)
            if past is not None and isinstance(action, Discard):
                past.append(action)
        if record is not None:
            record.extend(events)
        if past is not None:
            past.extend(events)
        for s, agent in watchers:
            deliver(agent, s, events)
        if requests:
            claims = [
                agents[r.seat].claim(views[r.seat], r)
                if decide is None
                else decide(agents[r.seat].claim, views[r.seat], r)
                for r in requests
            ]
            said.extend(claims)
            asked.extend(requests)
            if past is not None:
                past.extend(claims)
            for _, agent in watchers:
                tell(agent, claims)
    result = _result(game, seed, actions, record)
    result.claims, result.asked = said, asked
    return result


def _seat_rng(seed: int, seat: int) -> random.Random:
    """Each seat's own generator, from the game seed and the seat: an agent rebuilt for
    the seat mid-game gets the same seed."""
    return random.Random(seed * 16 + seat)


class _Timed:
    """Calls a decision and records how long it took (the benchmark's per-decision p99)."""

    def __init__(self, into: list[float]) -> None:
        self.into = into

    def __call__(self, fn: Callable[[GameView, Any], _T], view: GameView, arg: Any) -> _T:
        start = time.perf_counter()
        out = fn(view, arg)
        self.into.append(time.perf_counter() - start)
        return out


def _result(game: Game, seed: int, actions: int, record: list[Event] | None) -> GameResult:
    assert game.winner is not None and game.condition is not None
    return GameResult(
        players=game.n,
        seed=seed,
        winner=game.winner.value,
        condition=game.condition.value,
        rounds=game.round,
        actions=actions,
        events=record if record is not None else [],
    )


def play_one(
    players: int, seed: int, liberals: str, fascists: str, record: list[Event] | None = None
) -> GameResult:
    """The game a run plays with these settings (the lean loop for all-random tables)."""
    if liberals == fascists == "random":
        return play_random(players, seed, record)
    return play(players, seed, liberals, fascists, record)


def _tally(results: Sequence[GameResult]) -> dict[str, Any]:
    wins = {w.value: 0 for w in Winner}
    conditions = {c.value: 0 for c in Condition}
    rounds = actions = 0
    for r in results:
        wins[r.winner] += 1
        conditions[r.condition] += 1
        rounds += r.rounds
        actions += r.actions
    n = len(results) or 1
    return {
        "games": len(results),
        "wins": wins,
        "conditions": conditions,
        "mean_rounds": round(rounds / n, 3),
        "actions_per_game": round(actions / n, 2),
    }


def simulate(
    games: int,
    players: Sequence[int],
    seed: int,
    liberals: str = "random",
    fascists: str = "random",
) -> dict[str, Any]:
    """Play ``games`` games, player counts cycling over ``players``; the summary as a
    JSON-ready dict (everything but the timings is reproducible from the seed)."""
    seeds = game_seeds(seed, games)
    counts = [players[k % len(players)] for k in range(games)]
    start = time.perf_counter()
    results = [
        play_one(count, game_seed, liberals, fascists)
        for count, game_seed in zip(counts, seeds, strict=True)
    ]
    seconds = time.perf_counter() - start
    summary: dict[str, Any] = {
        "games": games,
        "players": f"{players[0]}-{players[-1]}" if len(players) > 1 else str(players[0]),
        "seed": seed,
        "agents": {"liberal": liberals, "fascist": fascists},
        "seconds": round(seconds, 4),
        "games_per_second": round(games / seconds, 1) if seconds > 0 else None,
    }
    total = _tally(results)
    del total["games"]
    summary.update(total)
    summary["by_players"] = {
        str(p): _tally([r for r in results if r.players == p]) for p in players
    }
    return summary


def summary_table(summary: dict[str, Any]) -> str:
    """The summary as a small human table."""
    head = (
        f"{'players':>7} {'games':>6} {'liberal':>8} {'fascist':>8} {'5 lib':>6} "
        f"{'H shot':>6} {'6 fas':>6} {'H elec':>6} {'rounds':>7}"
    )
    rows = [
        f"{summary['games']} games, players {summary['players']}, seed {summary['seed']}, "
        f"liberals: {summary['agents']['liberal']}, fascists: {summary['agents']['fascist']}",
        head,
    ]

    def row(label: str, part: dict[str, Any]) -> str:
        n = part["games"] or 1
        w, c = part["wins"], part["conditions"]
        return (
            f"{label:>7} {part['games']:>6} {w['liberal'] / n:>8.1%} {w['fascist'] / n:>8.1%} "
            f"{c['five_liberal'] / n:>6.1%} {c['hitler_executed'] / n:>6.1%} "
            f"{c['six_fascist'] / n:>6.1%} {c['hitler_elected'] / n:>6.1%} "
            f"{part['mean_rounds']:>7.2f}"
        )

    for p, part in summary["by_players"].items():
        rows.append(row(p, part))
    rows.append(row("all", summary))
    rows.append(
        f"{summary['seconds']:.2f} s, {summary['games_per_second']} games/s, "
        f"{summary['actions_per_game']} decisions per game"
    )
    return "\n".join(rows)
