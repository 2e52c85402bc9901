"""How the computer players compare with people: the figures of
``../shared/players/human-reference.md`` (ranked secrethitler.io games), measured on
simulated games.

:class:`Talk` reads whole simulated games (every event, private ones included, and every
claim with the request it answered) and counts what each seat saw against what it said:
lie and silence rates per situation, the Fascist-team share of each claimed draw, who
Liberal executions hit, how often Fascists investigate a teammate. The tournament prints
them beside the human figures.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from shbot.engine import FASCIST, HITLER, LIBERAL, Kind
from shbot.engine.claims import ClaimKind, normalize

__all__ = [
    "HUMAN_CLAIMS",
    "HUMAN_ENDINGS",
    "HUMAN_FASCIST",
    "HUMAN_HITLER_HITS",
    "HUMAN_SITUATIONS",
    "HUMAN_TEAMMATE_INVESTIGATIONS",
    "Talk",
]

HUMAN_FASCIST = {5: 54.0, 6: 43.0, 7: 52.0, 8: 46.0, 9: 58.0, 10: 54.0}
"""secrethitler.io's Fascist win rate per table size (Source B), in %."""
HUMAN_ENDINGS = {
    "five_liberal": 41.5,
    "hitler_executed": 7.3,
    "six_fascist": 15.9,
    "hitler_elected": 35.3,
}
"""How 7-player games end among people (Source A), in % of known endings."""
HUMAN_CLAIMS = {"any": 39.5, "FFF": 47.4, "FFL": 35.7, "FLL": 33.9, "LLL": 40.5}
"""Share (%) of a President's claimed draws made by the Fascist team, per value."""
HUMAN_HITLER_HITS = 23.3
"""Liberal executions that hit Hitler (%)."""
HUMAN_TEAMMATE_INVESTIGATIONS = 33.0
"""Fascist investigations that target a teammate (%)."""

#: Situation -> (lie %, silent %) among people at 7 players. A lie is a claim other than
#: the truth (for a teammate investigated: "covers", i.e. says Liberal).
HUMAN_SITUATIONS: dict[str, tuple[float, float]] = {
    "Fascist President, discarded a Liberal over a Fascist": (68.0, 4.6),
    "Fascist President, otherwise": (27.8, 1.2),
    "Hitler President, discarded a Liberal over a Fascist": (70.0, 7.7),
    "Hitler President, otherwise": (17.2, 3.1),
    "Fascist Chancellor, enacted a Fascist over a Liberal": (94.4, 16.3),
    "Fascist Chancellor, otherwise": (7.4, 14.4),
    "Hitler Chancellor, enacted a Fascist over a Liberal": (97.9, 16.7),
    "Hitler Chancellor, otherwise": (7.6, 9.5),
    "Fascist investigating a Liberal": (55.1, 0.0),
    "Fascist investigating a teammate (covers)": (88.4, 0.0),
    "Hitler investigating a Fascist (covers)": (95.9, 0.0),
    "Hitler investigating a Liberal": (56.4, 0.0),
    "Liberal President, discarded a Liberal over a Fascist": (29.6, 5.3),
    "Liberal President, otherwise": (6.6, 7.7),
    "Liberal Chancellor, otherwise": (6.2, 20.5),
    "Liberal investigating": (0.5, 0.0),
}

_WHO = {LIBERAL: "Liberal", FASCIST: "Fascist", HITLER: "Hitler"}


def _pct(part: float, whole: float) -> float:
    return round(100.0 * part / whole, 1) if whole else 0.0


class Talk:
    """Counts over many games (see the module docstring); :meth:`report` is JSON-ready."""

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()  # situation -> sights
        self.lied: Counter[str] = Counter()  # situation -> claims other than the truth
        self.silent: Counter[str] = Counter()
        self.values: Counter[str] = Counter()  # claimed draw -> claims
        self.by_team: Counter[str] = Counter()  # claimed draw -> claims by the Fascist team
        self.shots = self.hitler_shot = self.team_shot = 0  # Liberal Presidents' executions
        self.fascist_looks = self.teammate_looks = 0  # ordinary Fascists' investigations

    def add(self, events: Sequence[Any], claims: Sequence[Any], asked: Sequence[Any]) -> None:
        """One game: its full event record, its claims and the requests they answered."""
        roles = next((e.data["roles"] for e in events if e.kind is Kind.GAME_OVER), None)
        if roles is None:
            return
        drawn: dict[int, str] = {}
        got: dict[int, str] = {}
        enacted: dict[int, str] = {}
        looked: dict[int, tuple[int, str]] = {}
        rnd = 0
        for kind, data, _ in events:
            if kind is Kind.ROUND_STARTED:
                rnd = data["round"]
            elif kind is Kind.PRESIDENT_HAND:
                drawn[rnd] = "".join(data["policies"])
            elif kind is Kind.CHANCELLOR_HAND:
                got[rnd] = "".join(data["policies"])
            elif kind is Kind.POLICY_ENACTED and not data["chaos"]:
                enacted[rnd] = data["policy"]
            elif kind is Kind.INVESTIGATED:
                looked[rnd] = (data["target"], roles[data["target"]])
                if roles[data["president"]] == FASCIST:
                    self.fascist_looks += 1
                    self.teammate_looks += roles[data["target"]] != LIBERAL
            elif kind is Kind.EXECUTED and roles[data["president"]] == LIBERAL:
                self.shots += 1
                self.hitler_shot += roles[data["target"]] == HITLER
                self.team_shot += roles[data["target"]] != LIBERAL
        for claim, request in zip(claims, asked, strict=True):
            role = roles[request.seat]
            kind, r = request.kind, request.round
            silent = claim.kind is ClaimKind.NONE
            if kind is ClaimKind.DRAWN and r in drawn:
                hand = drawn[r]
                dropped = hand.count(LIBERAL) > got.get(r, hand).count(LIBERAL)
                bad = dropped and FASCIST in hand
                where = "discarded a Liberal over a Fascist" if bad else "otherwise"
                truth = normalize(kind, hand)
                self._count(f"{_WHO[role]} President, {where}", silent, claim.policies != truth)
                if not silent:
                    self.values[claim.policies] += 1
                    self.by_team[claim.policies] += role != LIBERAL
            elif kind is ClaimKind.RECEIVED and r in got:
                hand = got[r]
                bad = enacted.get(r) == FASCIST and LIBERAL in hand
                where = "enacted a Fascist over a Liberal" if bad else "otherwise"
                truth = normalize(kind, hand)
                self._count(f"{_WHO[role]} Chancellor, {where}", silent, claim.policies != truth)
            elif kind is ClaimKind.INVESTIGATED and r in looked:
                their = looked[r][1]
                party = LIBERAL if their == LIBERAL else FASCIST
                if role == LIBERAL:
                    situation = "Liberal investigating"
                elif party == LIBERAL:
                    situation = f"{_WHO[role]} investigating a Liberal"
                elif role == HITLER:
                    situation = "Hitler investigating a Fascist (covers)"
                else:
                    situation = "Fascist investigating a teammate (covers)"
                self._count(situation, silent, claim.party != party)

    def _count(self, situation: str, silent: bool, lie: bool) -> None:
        self.seen[situation] += 1
        if silent:
            self.silent[situation] += 1
        elif lie:
            self.lied[situation] += 1

    def report(self) -> dict[str, Any]:
        situations = {}
        for name, (lie, quiet) in HUMAN_SITUATIONS.items():
            n = self.seen[name]
            spoken = n - self.silent[name]
            situations[name] = {
                "n": n,
                "lie": _pct(self.lied[name], spoken),
                "silent": _pct(self.silent[name], n),
                "human_lie": lie,
                "human_silent": quiet,
            }
        total = sum(self.values.values())
        claims = {"any": {"n": total, "fascist_team": _pct(sum(self.by_team.values()), total)}}
        for value in ("FFF", "FFL", "FLL", "LLL"):
            n = self.values[value]
            claims[value] = {"n": n, "fascist_team": _pct(self.by_team[value], n)}
        for value, human in HUMAN_CLAIMS.items():
            claims[value]["human"] = human
        return {
            "situations": situations,
            "claims": claims,
            "liberal_shots": self.shots,
            "hitler_hits": _pct(self.hitler_shot, self.shots),
            "fascist_team_hits": _pct(self.team_shot, self.shots),
            "fascist_investigations": self.fascist_looks,
            "teammate_investigations": _pct(self.teammate_looks, self.fascist_looks),
        }
