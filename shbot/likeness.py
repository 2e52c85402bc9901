"""The human-likeness report: every 7-player figure of the people's reference, measured on
simulated games of the computer players, side by side.

The people's figures are those of ``../shared/players/human-reference.md`` (898 ranked
7-player games of secrethitler.io), embedded here so a clone without ``../shared`` runs
it. :class:`Likeness` reads whole games (every event, private ones included, each claim
with its request) the way that file's figures were computed; :meth:`Likeness.rows` gives
(section, figure, computer, people, n) for each. Conventions where the file is terse:
vote figures count voters outside the government; "unconfirmed" is a Chancellor not yet
proven not-Hitler; "3F" three or more Fascist policies enacted when the act was made.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from shbot.calibration import HUMAN_CLAIMS, HUMAN_ENDINGS, HUMAN_FASCIST, Talk
from shbot.engine import FASCIST, HITLER, LIBERAL, Kind

__all__ = ["FLAG", "HUMAN_ACTS", "Likeness", "likeness_report", "likeness_table", "summary"]

FLAG = 5.0
"""Points of difference that flag a figure."""

HUMAN_ACTS: dict[str, float] = {
    "Liberal voter, government all Liberal: Ja %": 50.9,
    "Liberal voter, government with a Fascist-team member: Ja %": 42.2,
    "Liberal voter, Hitler as Chancellor after 3F: Ja %": 35.0,
    "Fascist voter, government all Liberal: Ja %": 42.5,
    "Fascist voter, government with a Fascist-team member: Ja %": 47.5,
    "Fascist voter, Hitler as Chancellor after 3F: Ja %": 62.9,
    "Hitler voting, government all Liberal: Ja %": 45.2,
    "Hitler voting, government with a Fascist-team member: Ja %": 43.9,
    "Ja on a government that failed: Fascist-team %": 50.2,
    "Nein on a government that failed: Fascist-team %": 43.4,
    "Nein, then a Fascist policy: Fascist-team %": 39.6,
    "after 3F, Ja on an unconfirmed Chancellor: Fascist-team %": 49.1,
    "after 3F, Nein on an unconfirmed Chancellor: Fascist-team %": 43.6,
    "Liberal President before 3F: nominee Fascist-team %": 47.0,
    "Fascist President before 3F: nominee Fascist-team %": 28.7,
    "Hitler as President before 3F: nominee Fascist-team %": 33.2,
    "Liberal President after 3F: nominee Fascist-team %": 39.0,
    "Liberal President after 3F: nominee Hitler %": 15.1,
    "Fascist President after 3F: nominee Fascist-team %": 37.4,
    "Fascist President after 3F: nominee Hitler %": 25.8,
    "Hitler as President after 3F: nominee Fascist-team %": 32.1,
    "Hitler nominated Chancellor after 3F, per 100 games": 73.0,
    "Hitler nominated Chancellor after 3F: elected %": 48.3,
    "Hitler nominated Chancellor after 3F, per 100 games (all 898)": 67.0,
    "Liberal investigator: target Fascist-team %": 43.0,
    "Fascist investigator: target Fascist-team %": 32.6,
    "Hitler investigating: target Fascist-team %": 34.3,
    'investigation claimed "Fascist": true %': 50.6,
    'investigation claimed "Fascist": investigator Fascist-team %': 52.9,
    'investigation claimed "Liberal": true %': 71.7,
    "Chancellor claims FF: Fascist-team %": 44.7,
    "Chancellor claims FL: Fascist-team %": 33.8,
    "Chancellor claims LL: Fascist-team %": 40.0,
    "Chancellor says nothing: Fascist-team %": 28.9,
    "President says nothing: Fascist-team %": 22.6,
    "sessions with both claims: hard conflict %": 5.8,
    "sessions with both claims: soft dispute %": 12.3,
    "soft disputes: the President lied or discarded the Liberal %": 55.8,
    "soft disputes: the Chancellor lied %": 43.1,
    "soft disputes: both lied %": 1.0,
    "Liberal executions: Fascist team hit %": 65.4,
    "Liberal executions: Hitler hit %": 23.3,
    "Fascist investigations of a teammate %": 33.0,
    "largest Fascist-team share of any act above %": 52.9,
}
"""People's figures beyond the talk's (votes, nominations, investigations, disputes).

The reference gives Hitler's nominations after 3F twice: 0.73 a game in its table (over the
819 games with a known ending) and 0.67 in its list (over all 898); every simulated game
has an ending, so the same count stands beside both. Its last line — no act of a person
gives their side away with more than 52.9 % — stands beside the largest Fascist-team share
of the computers' acts of that table (:data:`BY_TEAM`)."""

PER_GAME = "Hitler nominated Chancellor after 3F, per 100 games"
LARGEST = "largest Fascist-team share of any act above %"
BY_TEAM = (
    "Ja on a government that failed: Fascist-team %",
    "Nein on a government that failed: Fascist-team %",
    "Nein, then a Fascist policy: Fascist-team %",
    "after 3F, Ja on an unconfirmed Chancellor: Fascist-team %",
    "after 3F, Nein on an unconfirmed Chancellor: Fascist-team %",
    'investigation claimed "Fascist": investigator Fascist-team %',
    "Chancellor claims FF: Fascist-team %",
    "Chancellor claims FL: Fascist-team %",
    "Chancellor claims LL: Fascist-team %",
    "Chancellor says nothing: Fascist-team %",
    "President says nothing: Fascist-team %",
)
"""The acts of the reference's last table whose figure is the share made by the Fascist
team (the "largest share" line reads these)."""


class Likeness:
    """Counts over many 7-player games (see the module docstring)."""

    def __init__(self) -> None:
        self.talk = Talk()
        self.hits: Counter[str] = Counter()
        self.of: Counter[str] = Counter()
        self.games = 0
        self.endings: Counter[str] = Counter()

    def _tick(self, name: str, hit: bool) -> None:
        self.of[name] += 1
        self.hits[name] += hit

    def add(self, events: Sequence[Any], claims: Sequence[Any], asked: Sequence[Any]) -> None:
        """One game: its full event record, its claims and the requests they answered."""
        over = next((e.data for e in events if e.kind is Kind.GAME_OVER), None)
        if over is None:
            return
        self.talk.add(events, claims, asked)
        self.games += 1
        self.endings[over["condition"]] += 1
        self.endings["liberal_wins"] += over["winner"] == "liberal"
        roles = over["roles"]
        team = [r != LIBERAL for r in roles]
        self._acts(events, roles, team)
        self._claims(events, claims, asked, team)

    def _acts(self, events: Sequence[Any], roles: Sequence[str], team: list[bool]) -> None:
        tick = self._tick
        fascist = 0
        confirmed: set[int] = set()
        p = c = -1
        naysayers: list[int] = []
        for kind, data, _ in events:
            if kind is Kind.NOMINATED:
                p, c = data["president"], data["chancellor"]
                who = {LIBERAL: "Liberal", FASCIST: "Fascist", HITLER: "Hitler as"}[roles[p]]
                when = "after" if fascist >= 3 else "before"
                tick(f"{who} President {when} 3F: nominee Fascist-team %", team[c])
                if fascist >= 3 and roles[p] != HITLER:
                    tick(f"{who} President after 3F: nominee Hitler %", roles[c] == HITLER)
                if fascist >= 3 and roles[c] == HITLER:
                    self.hits[PER_GAME] += 1
            elif kind is Kind.VOTE_RESULT:
                naysayers = self._votes(data, p, c, roles, team, fascist, confirmed)
            elif kind is Kind.CONFIRMED_NOT_HITLER:
                confirmed.add(data["seat"])
            elif kind is Kind.POLICY_ENACTED:
                if not data["chaos"] and data["policy"] == FASCIST:
                    for v in naysayers:
                        tick("Nein, then a Fascist policy: Fascist-team %", team[v])
                naysayers = []
                fascist = data["fascist"]
            elif kind is Kind.INVESTIGATED:
                looker = {LIBERAL: "Liberal investigator", FASCIST: "Fascist investigator"}
                name = looker.get(roles[data["president"]], "Hitler investigating")
                tick(f"{name}: target Fascist-team %", team[data["target"]])
                if roles[data["president"]] == FASCIST:
                    tick("Fascist investigations of a teammate %", team[data["target"]])
            elif kind is Kind.EXECUTED and roles[data["president"]] == LIBERAL:
                tick("Liberal executions: Fascist team hit %", team[data["target"]])
                tick("Liberal executions: Hitler hit %", roles[data["target"]] == HITLER)

    def _votes(
        self,
        data: dict[str, Any],
        p: int,
        c: int,
        roles: Sequence[str],
        team: list[bool],
        fascist: int,
        confirmed: set[int],
    ) -> list[int]:
        tick = self._tick
        hitler_up = fascist >= 3 and roles[c] == HITLER
        if hitler_up:
            tick("Hitler nominated Chancellor after 3F: elected %", data["elected"])
        gov = "with a Fascist-team member" if team[p] or team[c] else "all Liberal"
        naysayers = []
        for v, b in enumerate(data["votes"]):
            if b is None or v in (p, c):
                continue
            ja = b == 1
            who = {LIBERAL: "Liberal voter", FASCIST: "Fascist voter"}.get(
                roles[v], "Hitler voting"
            )
            tick(f"{who}, government {gov}: Ja %", ja)
            if hitler_up and roles[v] != HITLER:
                tick(f"{who}, Hitler as Chancellor after 3F: Ja %", ja)
            if not data["elected"]:
                tick(
                    f"{'Ja' if ja else 'Nein'} on a government that failed: Fascist-team %", team[v]
                )
            elif not ja:
                naysayers.append(v)
            if fascist >= 3 and c not in confirmed:
                name = f"after 3F, {'Ja' if ja else 'Nein'} on an unconfirmed Chancellor"
                tick(f"{name}: Fascist-team %", team[v])
        return naysayers

    def _claims(
        self, events: Sequence[Any], claims: Sequence[Any], asked: Sequence[Any], team: list[bool]
    ) -> None:
        tick = self._tick
        rnd = 0
        drawn: dict[int, str] = {}
        got: dict[int, str] = {}
        enacted: dict[int, str] = {}
        for kind, data, _ in events:
            if kind is Kind.ROUND_STARTED:
                rnd = data["round"]
            elif kind is Kind.PRESIDENT_HAND:
                drawn[rnd] = "".join(sorted(data["policies"]))
            elif kind is Kind.CHANCELLOR_HAND:
                got[rnd] = "".join(sorted(data["policies"]))
            elif kind is Kind.POLICY_ENACTED and not data["chaos"]:
                enacted[rnd] = data["policy"]
        by_round: dict[int, dict[str, Any]] = {}
        for claim, request in zip(claims, asked, strict=True):
            k = request.kind.name
            if k == "INVESTIGATED" and claim.target is not None:
                truly = FASCIST if team[claim.target] else LIBERAL
                if claim.party == FASCIST:
                    tick('investigation claimed "Fascist": true %', truly == FASCIST)
                    tick(
                        'investigation claimed "Fascist": investigator Fascist-team %',
                        team[claim.seat],
                    )
                elif claim.party == LIBERAL:
                    tick('investigation claimed "Liberal": true %', truly == LIBERAL)
            elif k in ("DRAWN", "RECEIVED"):
                by_round.setdefault(request.round, {})["P" if k == "DRAWN" else "C"] = claim
        for r, slot in by_round.items():
            pc, cc = slot.get("P"), slot.get("C")
            if cc is not None:
                val = cc.policies if cc.kind.name == "RECEIVED" else ""
                name = f"Chancellor claims {val}" if val else "Chancellor says nothing"
                tick(f"{name}: Fascist-team %", team[cc.seat])
            if pc is not None and pc.kind.name == "NONE":
                tick("President says nothing: Fascist-team %", team[pc.seat])
            if pc is None or cc is None or pc.kind.name == "NONE" or cc.kind.name == "NONE":
                continue
            d, g = pc.policies, cc.policies
            hard = any(g.count(t) > d.count(t) for t in (LIBERAL, FASCIST))
            soft = not hard and LIBERAL in d and LIBERAL not in g and enacted.get(r) == FASCIST
            tick("sessions with both claims: hard conflict %", hard)
            tick("sessions with both claims: soft dispute %", soft)
            if soft and r in drawn and r in got:
                dropped = drawn[r].count(LIBERAL) > got[r].count(LIBERAL)
                tick(
                    "soft disputes: the President lied or discarded the Liberal %",
                    d != drawn[r] or dropped,
                )
                tick("soft disputes: the Chancellor lied %", g != got[r])
                tick("soft disputes: both lied %", (d != drawn[r] or dropped) and g != got[r])

    def rows(self) -> list[tuple[str, str, float | None, float, int]]:
        """(section, figure, computer, people, n) for every figure of the reference."""
        out: list[tuple[str, str, float | None, float, int]] = []
        n = self.games or 1
        for name, human in HUMAN_ENDINGS.items():
            out.append(("endings", name, round(100 * self.endings[name] / n, 1), human, n))
        out.append(("endings", "Liberal team wins", _p(self.endings["liberal_wins"], n), 48.8, n))
        fascist = _p(n - self.endings["liberal_wins"], n)
        out.append(("endings", "Fascist win rate (source B)", fascist, HUMAN_FASCIST[7], n))
        talk = self.talk.report()
        for name, s in talk["situations"].items():
            spoke = s["n"] and s["silent"] < 100
            lie = s["lie"] if spoke else None
            out.append(("claims", f"{name}: lie %", lie, s["human_lie"], s["n"]))
            quiet = s["silent"] if s["n"] else None
            out.append(("claims", f"{name}: silent %", quiet, s["human_silent"], s["n"]))
        for value, cl in talk["claims"].items():
            label = f"President claims {value}: Fascist-team %"
            out.append(("claims", label, cl["fascist_team"], HUMAN_CLAIMS[value], cl["n"]))
        for name, human in HUMAN_ACTS.items():
            if name.startswith("Hitler nominated Chancellor after 3F, per"):
                value = _p(self.hits[PER_GAME], n)  # every simulated game has its ending
                out.append(("acts", name, value, human, n))
                continue
            if name == LARGEST:
                mine, m = _largest(out)
                out.append(("acts", name, mine, human, m))
                continue
            m = self.of[name]
            out.append(("acts", name, _p(self.hits[name], m) if m else None, human, m))
        return out


def _largest(rows: Sequence[tuple[str, str, float | None, float, int]]) -> tuple[float | None, int]:
    """The largest computed figure among :data:`BY_TEAM`, and its n."""
    found = [(mine, n) for _, name, mine, _, n in rows if name in BY_TEAM and mine is not None]
    return max(found, default=(None, 0))


def _p(part: float, whole: float) -> float:
    return round(100.0 * part / whole, 1) if whole else 0.0


def likeness_table(rows: Sequence[tuple[str, str, float | None, float, int]]) -> str:
    """The report as Markdown: computer beside people, the difference, ⚠ over FLAG points."""
    lines = [
        "| figure (7 players) | n | computers | people | difference |",
        "|---|---:|---:|---:|---:|",
    ]
    near = far = measured = 0
    for _, name, mine, human, n in rows:
        if mine is None:
            lines.append(f"| {name} | 0 | - | {human} | - |")
            continue
        diff = mine - human
        measured += 1
        near += abs(diff) <= FLAG
        far += abs(diff) > 3 * FLAG
        flag = " ⚠" if abs(diff) > FLAG else ""
        lines.append(f"| {name} | {n} | {mine} | {human} | {diff:+.1f}{flag} |")
    lines.append("")
    lines.append(
        f"{near} of {measured} figures within {FLAG:g} points of people's "
        f"({100 * near / (measured or 1):.0f} %), {far} off by more than {3 * FLAG:g}"
    )
    return "\n".join(lines)


def likeness_report(games: int, seed: int) -> dict[str, Any]:
    """Play ``games`` 7-player heuristic games (seed ``seed``) and compare with people."""
    from shbot.simulate import game_seeds, play

    likeness = Likeness()
    for s in game_seeds(seed, games):
        record: list[Any] = []
        result = play(7, s, "heuristic", "heuristic", record)
        likeness.add(record, result.claims, result.asked)
    return summary(likeness.rows())


def summary(rows: Sequence[tuple[str, str, float | None, float, int]]) -> dict[str, Any]:
    """The rows with the counts the issue's bar reads, and the table."""
    measured = [(name, mine - human) for _, name, mine, human, _ in rows if mine is not None]
    return {
        "rows": [list(r) for r in rows],
        "measured": len(measured),
        "within": sum(abs(d) <= FLAG for _, d in measured),
        "over_15": [name for name, d in measured if abs(d) > 3 * FLAG],
        "table": likeness_table(rows),
    }
