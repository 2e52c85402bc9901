"""The family of counter-rules (:class:`~.counters.Rule`) the exploit search plays: habits a
Liberal group could follow by eye, on nominations, votes, claims of both government
members, disputes, investigations and shots, and some combinations."""

from __future__ import annotations

from collections.abc import Callable

from shbot.engine import FASCIST, LIBERAL, Event, Kind
from shbot.engine.claims import Claim, ClaimKind

from .counters import Rule, RuleAgent

__all__ = ["COMBOS", "RULES"]


# ------------------------------------------------------------------ the habits


def _on(kind: Kind, fn: Callable[[RuleAgent, dict], None]) -> Callable[[RuleAgent, Event], None]:
    def hook(agent: RuleAgent, event: Event) -> None:
        if event.kind is kind:
            fn(agent, event.data)

    return hook


def _voters(agent: RuleAgent, ja: int, weight: float) -> None:
    """Mark every voter outside the last government who voted ``ja`` (1) or Nein (0)."""
    if agent.voted_for is None:
        return
    p, c, votes = agent.voted_for
    for v, b in enumerate(votes):
        if b == ja and v not in (p, c):
            agent.mark(v, weight)


def _nominee_of_suspect(a: RuleAgent, d: dict) -> None:
    if a.distrusted(d["president"]):
        a.mark(d["chancellor"])


def _nominator_of_suspect(a: RuleAgent, d: dict) -> None:
    if a.distrusted(d["chancellor"]):
        a.mark(d["president"])


def _red_nominator(a: RuleAgent, d: dict) -> None:
    if a.fascist >= 3 and d["president"] in a.red:
        a.mark(d["chancellor"])


def _renominated(a: RuleAgent, d: dict) -> None:
    if a.named[d["chancellor"]] >= 2:
        a.mark(d["chancellor"])


def _ja_unconfirmed(a: RuleAgent, d: dict) -> None:
    if a.fascist >= 3 and a.voted_for is not None and a.maybe_hitler(a.voted_for[1]):
        _voters(a, 1, 0.5)


def _ja_on_suspect(a: RuleAgent, d: dict) -> None:
    if a.voted_for is not None and (a.distrusted(a.voted_for[0]) or a.distrusted(a.voted_for[1])):
        _voters(a, 1, 0.5)


def _ja_failed(a: RuleAgent, d: dict) -> None:
    if not d["elected"]:
        _voters(a, 1, 0.3)


def _nein_failed(a: RuleAgent, d: dict) -> None:
    if not d["elected"]:
        _voters(a, 0, 0.3)


def _after_policy(policy: str, ja: int) -> Callable[[RuleAgent, dict], None]:
    def hook(a: RuleAgent, d: dict) -> None:
        if d["policy"] == policy and not d["chaos"]:
            _voters(a, ja, 0.5)

    return hook


def _nein_unconfirmed(a: RuleAgent, vote: bool) -> bool:
    return vote and not (a.maybe_hitler(a.chancellor) and a.tracker < 2)


def _never_disputed(a: RuleAgent, vote: bool) -> bool:
    return vote and a.president not in a.disputed and a.chancellor not in a.disputed


def _claim_value(kind: ClaimKind, values: dict[str, float]) -> Callable[[RuleAgent, Claim], None]:
    def hook(a: RuleAgent, claim: Claim) -> None:
        if claim.kind is kind and claim.policies in values:
            a.mark(claim.seat, values[claim.policies])

    return hook


def _silent(a: RuleAgent, claim: Claim) -> None:
    if claim.kind is ClaimKind.NONE and a.enacted == FASCIST:
        a.mark(claim.seat, 0.5)


def _dispute(blame: str, soft: bool, hard: bool) -> Callable[[RuleAgent, Claim], None]:
    """After a session's two claims: a soft dispute (the President claims a Liberal, the
    Chancellor none, a Fascist enacted) or a hard one (the two hands cannot fit)."""

    def hook(a: RuleAgent, claim: Claim) -> None:
        if claim.kind is not ClaimKind.RECEIVED:
            return
        drawn = a.drawn_said.get(claim.round)
        if drawn is None or claim.round not in a.sessions_seen:
            return
        p, c = a.sessions_seen[claim.round]
        got = claim.policies
        clash = any(got.count(t) > drawn.count(t) for t in (LIBERAL, FASCIST))
        dodge = LIBERAL in drawn and LIBERAL not in got and a.enacted == FASCIST
        if not ((hard and clash) or (soft and dodge and not clash)):
            return
        if blame == "both":
            a.disputed.update((p, c))
        a.mark(p if blame in ("president", "both") else c, 1.0)
        if blame == "both":
            a.mark(c, 1.0)

    return hook


def _session_seen(a: RuleAgent, d: dict) -> None:
    a.sessions_seen[a.round] = (d["president"], d["chancellor"])


def _investigation(target_w: dict[str, float], by_w: dict[str, float]) -> Callable:
    def hook(a: RuleAgent, claim: Claim) -> None:
        if claim.kind is ClaimKind.INVESTIGATED and claim.target is not None:
            party = claim.party or ""
            a.mark(claim.target, target_w.get(party, 0.0))
            a.mark(claim.seat, by_w.get(party, 0.0))

    return hook


def _shooter(weight: float) -> Callable[[RuleAgent, dict], None]:
    return lambda a, d: a.mark(d["president"], weight)


def _nominator_unconfirmed(a: RuleAgent, d: dict) -> None:
    if a.fascist >= 3 and a.maybe_hitler(d["chancellor"]):
        a.mark(d["president"], 0.5)


def _nein_on_trusted(a: RuleAgent, d: dict) -> None:
    if a.voted_for is None:
        return
    p, c, _ = a.voted_for
    if not (a.distrusted(p) or a.distrusted(c)) and a.score(p) <= 0 and a.score(c) <= 0:
        _voters(a, 0, 0.3)


def _quiet(a: RuleAgent, claim: Claim) -> None:
    if claim.kind is ClaimKind.NONE:
        a.mark(claim.seat, 0.5)


def _note_cleared(a: RuleAgent, claim: Claim) -> None:
    if claim.kind is ClaimKind.INVESTIGATED and claim.party == LIBERAL and claim.target is not None:
        a.cleared.setdefault(claim.seat, set()).add(claim.target)


def _nominates_cleared(a: RuleAgent, d: dict) -> None:
    if d["chancellor"] in a.cleared.get(d["president"], ()):
        a.mark(d["president"])
        a.mark(d["chancellor"])


def _rule(name: str, text: str, **hooks: object) -> Rule:
    return Rule(name, text, **hooks)  # type: ignore[arg-type]


_SEEN = _on(Kind.SESSION_STARTED, _session_seen)


def _with_sessions(hook: Callable[[RuleAgent, Claim], None]) -> dict[str, object]:
    return {"event": _SEEN, "claim": hook}


RULES: dict[str, Rule] = {
    r.name: r
    for r in (
        _rule(
            "nominee-of-suspect",
            "distrust the Chancellor a distrusted President nominates",
            event=_on(Kind.NOMINATED, _nominee_of_suspect),
        ),
        _rule(
            "nominator-of-suspect",
            "distrust the President who nominates a distrusted seat",
            event=_on(Kind.NOMINATED, _nominator_of_suspect),
        ),
        _rule(
            "red-nominator-3F",
            "from 3F, distrust the Chancellor nominated by a member of a "
            "government that enacted a Fascist policy",
            event=_on(Kind.NOMINATED, _red_nominator),
        ),
        _rule(
            "renominated-3F",
            "from 3F, distrust a seat nominated Chancellor a second time",
            event=_on(Kind.NOMINATED, _renominated),
        ),
        _rule(
            "ja-unconfirmed-3F",
            "from 3F, whoever votes Ja! on an unconfirmed Chancellor is suspect",
            event=_on(Kind.VOTE_RESULT, _ja_unconfirmed),
        ),
        _rule(
            "nein-unconfirmed-3F",
            "from 3F, Nein! on every unconfirmed Chancellor unless the tracker is at 2",
            vote=_nein_unconfirmed,
        ),
        _rule(
            "ja-on-suspect",
            "whoever votes Ja! on a government with a distrusted seat is suspect",
            event=_on(Kind.VOTE_RESULT, _ja_on_suspect),
        ),
        _rule(
            "ja-on-failed",
            "whoever votes Ja! on a government that fails is suspect",
            event=_on(Kind.VOTE_RESULT, _ja_failed),
        ),
        _rule(
            "nein-on-failed",
            "whoever votes Nein! on a government that fails is suspect",
            event=_on(Kind.VOTE_RESULT, _nein_failed),
        ),
        _rule(
            "ja-then-red",
            "whoever voted Ja! on a government that enacted a Fascist policy is suspect",
            event=_on(Kind.POLICY_ENACTED, _after_policy(FASCIST, 1)),
        ),
        _rule(
            "nein-then-blue",
            "whoever voted Nein! on a government that enacted a Liberal policy is suspect",
            event=_on(Kind.POLICY_ENACTED, _after_policy(LIBERAL, 0)),
        ),
        _rule(
            "fff-president",
            "a President who claims 🔴🔴🔴 is suspect",
            claim=_claim_value(ClaimKind.DRAWN, {"FFF": 1.0}),
        ),
        _rule(
            "ffl-president",
            "a President who claims 🔴🔴🔵 is suspect",
            claim=_claim_value(ClaimKind.DRAWN, {"FFL": 1.0}),
        ),
        _rule(
            "blue-president",
            "a President who claims two or three 🔵 is trusted",
            claim=_claim_value(ClaimKind.DRAWN, {"FLL": -1.0, "LLL": -1.0}),
        ),
        _rule(
            "ff-chancellor",
            "a Chancellor who claims 🔴🔵 is honest, one who claims 🔴🔴 is suspect",
            claim=_claim_value(ClaimKind.RECEIVED, {"FF": 1.0, "FL": -1.0}),
        ),
        _rule("silent", "whoever says nothing after a Fascist policy is suspect", claim=_silent),
        _rule(
            "dispute-never",
            "never elect anyone involved in a dispute, soft ones included",
            vote=_never_disputed,
            **_with_sessions(_dispute("both", True, True)),
        ),
        _rule(
            "soft-blame-president",
            "in a soft dispute, blame the President",
            **_with_sessions(_dispute("president", True, False)),
        ),
        _rule(
            "soft-blame-chancellor",
            "in a soft dispute, blame the Chancellor",
            **_with_sessions(_dispute("chancellor", True, False)),
        ),
        _rule(
            "hard-blame-president",
            "in a hard conflict, blame the President",
            **_with_sessions(_dispute("president", False, True)),
        ),
        _rule(
            "hard-blame-chancellor",
            "in a hard conflict, blame the Chancellor",
            **_with_sessions(_dispute("chancellor", False, True)),
        ),
        _rule(
            "believe-investigation",
            "a seat an investigation calls Fascist is distrusted, one it calls Liberal trusted",
            claim=_investigation({FASCIST: 1.0, LIBERAL: -1.0}, {}),
        ),
        _rule(
            "accuser-suspect",
            "a President who calls someone Fascist is suspect",
            claim=_investigation({}, {FASCIST: 1.0}),
        ),
        _rule(
            "cleared-suspect",
            "a seat an investigation calls Liberal is suspect",
            claim=_investigation({LIBERAL: 1.0}, {}),
        ),
        _rule(
            "nominator-unconfirmed-3F",
            "from 3F, a President who nominates an unconfirmed Chancellor is suspect",
            event=_on(Kind.NOMINATED, _nominator_unconfirmed),
        ),
        _rule(
            "nein-on-trusted",
            "whoever votes Nein! on a government nobody distrusts is suspect",
            event=_on(Kind.VOTE_RESULT, _nein_on_trusted),
        ),
        _rule(
            "fll-president",
            "a President who claims 🔴🔵🔵 is suspect",
            claim=_claim_value(ClaimKind.DRAWN, {"FLL": 1.0}),
        ),
        _rule(
            "ll-chancellor",
            "a Chancellor who claims 🔵🔵 is trusted",
            claim=_claim_value(ClaimKind.RECEIVED, {"LL": -1.0}),
        ),
        _rule("quiet", "whoever says nothing after a session is suspect", claim=_quiet),
        _rule(
            "clearer-suspect",
            "a President who calls someone Liberal is suspect",
            claim=_investigation({}, {LIBERAL: 1.0}),
        ),
        _rule(
            "clears-then-nominates",
            "a President who nominates the seat it called Liberal: both are suspect",
            event=_on(Kind.NOMINATED, _nominates_cleared),
            claim=_note_cleared,
        ),
        _rule(
            "shooter-trusted",
            "a President who shoots someone is trusted",
            event=_on(Kind.EXECUTED, _shooter(-1.0)),
        ),
        _rule(
            "shooter-suspect",
            "a President who shoots someone is suspect",
            event=_on(Kind.EXECUTED, _shooter(1.0)),
        ),
    )
}
"""The family of single rules, by name."""

COMBOS: dict[str, tuple[str, ...]] = {
    "issue-four": (
        "nominee-of-suspect",
        "ja-unconfirmed-3F",
        "dispute-never",
        "nein-unconfirmed-3F",
    ),
    "nominee+ff+soft": ("nominee-of-suspect", "ff-chancellor", "soft-blame-president"),
    "votes": ("ja-on-suspect", "ja-then-red", "ja-unconfirmed-3F"),
    "issue-six": (
        "nominee-of-suspect",
        "ja-unconfirmed-3F",
        "dispute-never",
        "nein-unconfirmed-3F",
        "soft-blame-president",
        "ff-chancellor",
    ),
    "claims": ("fff-president", "ff-chancellor", "ll-chancellor", "silent"),
    "hunt-3F": ("nein-unconfirmed-3F", "nominator-unconfirmed-3F", "ja-unconfirmed-3F"),
}
"""Rules played together, by name."""
