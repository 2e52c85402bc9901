"""The heuristic player: cheap rules that play for the seat's team.

Liberals read the table (:class:`~shbot.players.reader.Reader`): they nominate and elect
the seats they trust, avoid an unconfirmed chancellor once Hitler could win by election,
investigate and shoot the most suspect, and always claim the truth.

Fascists know their team and play for it: they vote in governments with a teammate and
vote down the others (mostly), slip Fascist policies through when the claims can cover it
("I drew three Fascists"), take the odd risk of an exposing play when a Fascist policy is
worth it, accuse a Liberal they investigated now and then, and never harm a teammate.
Once three Fascist policies are out they put Hitler forward now and then, vote on an
unconfirmed chancellor the way the rest of the table does (:mod:`.blend`) and vote Hitler
in when the tracker is at 2. Hitler plays a Liberal's game to be trusted, helps teammates
he knows, and takes the win whenever one is on the table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

from shbot.engine import (
    FASCIST,
    HITLER,
    LIBERAL,
    Action,
    AnswerVeto,
    Discard,
    Enact,
    Execute,
    Investigate,
    Nominate,
    ProposeVeto,
    SpecialElection,
)
from shbot.engine.claims import Claim, ClaimKind

from .acts import (
    BACK_HITLER,
    BACK_MATE,
    BURN,
    DOUBT,
    DROP_LIBERAL,
    HITLER_PICK,
    LOOK_TRUSTED,
    MATE_PICK,
    WILD_LOOK,
    WILD_PICK,
    WILD_SHOT,
)
from .bluff import drawn_claim, investigation_claim, received_claim
from .dice import Dice
from .listener import Listener
from .reader import KNOWN
from .talk import ClaimRequest, stated
from .view import GameView

__all__ = ["HeuristicAgent"]

Targeted = Nominate | Investigate | SpecialElection | Execute
"""Actions whose second field is a target seat."""

DISTRUST = {5: 3.0, 6: 3.0, 7: 2.0, 8: 3.0, 9: 3.0, 10: 3.0}
"""Ballot threshold by player count: a Liberal votes Nein when a candidate's score reaches
this (with HITLER_RISK, the knobs that balance each table size against people's rates)."""
HITLER_RISK = {5: 2.0, 6: 2.0, 7: 0.5, 8: 2.0, 9: 2.0, 10: 2.0}
"""Extra distrust, once 3 Fascist policies are out, for a chancellor who might be Hitler,
by player count: the one knob calibrated so that neither side of the heuristic wins far
more than half the games at any table size (docs/players.md)."""
SLIP = {5: 0.1, 6: 0.1, 7: 0.1, 8: 0.1, 9: 0.1, 10: 0.1}
"""How often a Liberal votes against its own reading, by player count: people misjudge,
and this (with DISTRUST and HITLER_RISK) balances each size against people's rates."""
SLIP_HITLER = {5: 0.0, 6: 0.0, 7: 0.1, 8: 0.0, 9: 0.0, 10: 0.0}
"""The same on a chancellor who might be Hitler, once Hitler can win."""
PICK_RISK = {5: 0.0, 6: 0.0, 7: 2.0, 8: 0.0, 9: 0.0, 10: 0.0}
"""What a Liberal President adds, beyond HITLER_RISK, against nominating a chancellor who
might be Hitler once Hitler can win (a vote is cheaper than a nomination), by player count."""
HITLER_BAR = 1.5
"""Ballot threshold for a chancellor who might be Hitler, once Hitler can win."""
TRUST_FLOOR = -1.0
"""Trust beyond this does not lower the Hitler risk of an unconfirmed chancellor."""
DESPERATE = 3.0
"""How much more a Liberal tolerates when one more failed vote enacts a tile blind."""
HITLER_DESPERATE = 1.0
"""How much of that tolerance applies to the Hitler risk."""
FORCE = {5: 0.95, 6: 0.7, 7: 0.6, 8: 0.8, 9: 0.75, 10: 0.95}
"""How often a Fascist President passes two Fascist tiles to a Liberal (and covers it), by
player count: with DISTRUST, HITLER_RISK and SLIP, what balances each size."""
BOLD = {5: 0.8, 6: 0.8, 7: 0.5, 8: 0.8, 9: 0.8, 10: 0.8}
"""How often a Fascist Chancellor enacts Fascist over a Liberal's Liberal tile (and lies),
by player count."""
HUNT = 0.4
"""How much a Liberal's shot follows the belief over who is Hitler (beside suspicion)."""
HUNT_VOTE = {5: 0.5, 6: 0.5, 7: 2.0, 8: 0.5, 9: 0.5, 10: 0.5}
"""How much a Liberal's vote on a chancellor, once Hitler can win, follows that belief, by
player count."""
HITLER_CHEAT = {5: 0.2, 6: 0.2, 7: 0.4, 8: 0.2, 9: 0.2, 10: 0.2}
"""How often Hitler makes the Fascist play, by player count (people: a Liberal discarded in
40 % of his presidencies that drew both kinds)."""
CLEAR = 0.34
"""How often a Fascist investigates a teammate (to "clear" them), as people do."""
NAY = {5: 0.25, 6: 0.25, 7: 0.3, 8: 0.25, 9: 0.25, 10: 0.25}
"""How often a voter outside the government votes Nein whatever it reads (people vote Ja
42-51 % of the time), except when one more failed vote enacts a tile blind; by player
count."""
BLEND = 0.75
"""How often a Fascist votes on a government without teammates as a Liberal would."""
PULL = 1.0
"""How much a Fascist President prefers a teammate as chancellor (when it picks one)."""

_LABELS = {"Nominate": 2, "Discard": 3, "Enact": 4, "ProposeVeto": 4, "AnswerVeto": 5}
"""Each kind of decision rolls its own dice (powers: 9, plus the number of choices)."""


class HeuristicAgent(Listener):
    """Plays for its team with simple, cheap rules (see the module docstring)."""

    @property
    def fascist_player(self) -> bool:
        """An ordinary Fascist; Hitler plays like a Liberal unless a win is on the table."""
        return self.role == FASCIST

    def _looks(self, seat: int) -> float:
        """How suspect ``seat`` looks to the table (a Fascist's guess of the Liberals' view)."""
        return self.susp[seat] if seat != self.seat else 0.0

    # ---------------------------------------------------------------- ballots

    def ballot(self, game: GameView, seat: int) -> bool:
        self._roll(1)
        # People vote Nein far more than any reading of the table asks (a hunch, a test,
        # a seat they do not know): every side alike, so the Nein tells nothing.
        nay = self.rng.random() < NAY[self.n] and self.tracker < 2 and self.fascist < 5
        vote = self._ballot(seat)
        if vote and self.blends and self._late_unconfirmed(seat):
            keep = self.late.keep(self.n)  # blend in with the table's habit (blend.py)
            vote = keep >= 1.0 or self.rng.random() < keep
        return vote and not (nay and seat not in (self.president, self.chancellor))

    def _late_unconfirmed(self, seat: int) -> bool:
        """A ballot, outside the government, on an unconfirmed Chancellor once Hitler can
        win and no failed vote would enact a tile blind."""
        gov = (self.president, self.chancellor)
        return (
            seat not in gov and self.tracker < 2 and self.fascist < 5 and self.public_hitler(gov[1])
        )

    def _ballot(self, seat: int) -> bool:
        p, c = self.president, self.chancellor
        hitler_up = self.role != LIBERAL and c == self.hitler and self.fascist >= 3
        # Electing Hitler wins, but a bloc behind him is a tell: vote as the table reads
        # him, leaning his way now and then.
        if hitler_up and (
            seat in (p, c)
            or self.fascist >= 5
            or self.tracker == 2
            or self.rng.random() < BACK_HITLER
        ):
            return True
        if self.role != LIBERAL:
            if seat in (p, c) and (p in self.partners or c in self.partners):
                return True
            if self.fascist >= 5 and self.fascist_player:
                return p in self.team or c in self.team
            # Vote as a Liberal reading the table would (misjudging as often), with a
            # slight lean to a teammate's government.
            vote = self._liberal_ballot(seat, p, c, self._looks, public=True)
            if c != seat and self.rng.random() < (
                SLIP_HITLER[self.n] if self.public_hitler(c) else SLIP[self.n]
            ):
                vote = not vote
            mate = p in self.partners or c in self.partners
            return self._doubt(seat, vote) or (mate and self.rng.random() < BACK_MATE)
        vote = self._liberal_ballot(seat, p, c, self.score)
        if self.role == HITLER:
            return self._doubt(seat, vote)
        slip = SLIP_HITLER[self.n] if self.maybe_hitler(c) else SLIP[self.n]
        if c != seat and self.rng.random() < slip:
            return not vote  # people misread the table now and then
        return vote

    def _doubt(self, seat: int, vote: bool) -> bool:
        """A Fascist-team voter's Ja, now and then a Nein: Liberals vote down the seats they
        caught lying to them, which no public reading shows (DOUBT)."""
        if vote and seat not in (self.president, self.chancellor):
            return self.rng.random() >= DOUBT[self.fascist >= 3]
        return vote

    def _liberal_ballot(
        self, seat: int, p: int, c: int, score: Callable[[int], float], public: bool = False
    ) -> bool:
        """A Liberal's vote, with ``score`` as its reading; ``public``: as a Liberal who
        knows nothing private would vote (a Fascist's mimicry: its teammates may be Hitler
        as far as the table knows)."""
        if c == seat:
            return score(p) < KNOWN  # a known Fascist president would exploit me
        desperate = self.tracker == 2  # one more failed vote enacts a tile blind
        risk = max(score(p) if p != seat else -KNOWN, score(c))
        if risk >= DISTRUST[self.n] + (DESPERATE if desperate else 0.0):
            return False
        if not (self.public_hitler(c) if public else self.maybe_hitler(c)):
            return True
        # A blind tile costs one policy; Hitler elected costs the game.
        return self._as_chancellor(c, score(c), public) < HITLER_BAR + (
            HITLER_DESPERATE if desperate else 0.0
        )

    # ---------------------------------------------------------------- actions

    def act(self, game: GameView, seat: int) -> Action:
        acts = game.legal_actions(seat)
        first = acts[0]
        self._roll(_LABELS.get(type(first).__name__, 9), len(acts))
        if isinstance(first, Nominate):
            return self._nominate(acts)
        if isinstance(first, Discard):
            return self._discard(game, seat, acts)
        if isinstance(first, Enact | ProposeVeto):
            return self._enact(game, seat, acts)
        if isinstance(first, AnswerVeto):
            # Only the tiles this President passed tell whether the veto helps the team.
            bad = LIBERAL if self.role == LIBERAL else FASCIST
            return AnswerVeto(seat, bool(self.passed) and bad not in self.passed)
        if isinstance(first, Investigate):
            if self.role != LIBERAL:
                if self.role == HITLER:  # he knows little: anyone, as a Liberal would
                    return self._pick(acts, lambda t: 0.0)
                clear = self.rng.random() < CLEAR
                mate = -KNOWN if clear else KNOWN  # a teammate, to clear them (or never)
                return self._pick(acts, lambda t: mate if t in self.team else -self._looks(t))
            u = self.rng.random()
            if u < LOOK_TRUSTED:  # confirm a seat it would like to elect
                return self._pick(acts, lambda t: KNOWN if t in self.known else self.score(t))
            if u < LOOK_TRUSTED + WILD_LOOK:
                return self._pick(acts, lambda t: KNOWN if t in self.known else 0.0)
            return self._pick(acts, lambda t: KNOWN if t in self.known else -self.score(t))
        if isinstance(first, SpecialElection):
            if self.fascist_player:
                return self._pick(acts, self._special_key)
            return self._pick(acts, self._nominee_key)
        if isinstance(first, Execute):
            if self.role != LIBERAL:
                # Never a teammate; else the Liberal the table trusts most.
                return self._pick(acts, lambda t: KNOWN if t in self.team else self._looks(t))
            if self.rng.random() < WILD_SHOT and max(map(self.score, range(self.n))) < KNOWN:
                return self._pick(acts, lambda t: -KNOWN if self.score(t) > -KNOWN else 0.0)
            odds = self.hitler_odds()  # shots hunt Hitler, not only the loudest liar
            return self._pick(acts, lambda t: -self.score(t) - HUNT * odds[t])
        return acts[int(self.rng.random() * len(acts))]  # pragma: no cover - future actions

    def _nominate(self, acts: Sequence[Action]) -> Action:
        """A chancellor: mostly the most trusted, but no side nominates as a bloc."""
        u = self.rng.random()
        if self.fascist_player:
            eligible = {cast(Nominate, a).target for a in acts}
            late = self.fascist >= 3
            if late and self.hitler in eligible and (u < HITLER_PICK or self.fascist >= 5):
                return self._pick(acts, lambda t: 0.0 if t == self.hitler else 1.0)
            mates = eligible & self.partners - {self.hitler}
            if mates and u < HITLER_PICK * late + MATE_PICK[late]:
                return self._pick(acts, lambda t: self._looks(t) - (KNOWN if t in mates else 0))
            return self._pick(acts, lambda t: self._looks(t) + (KNOWN if t in self.team else 0))
        if u < WILD_PICK.get(self.role, 0.0) * (self.fascist < 3 or self.role == HITLER):
            return self._pick(acts, lambda t: KNOWN if self.score(t) >= KNOWN else 0.0)
        return self._pick(acts, self._nominee_key)

    def _nominee_key(self, target: int) -> float:
        """Lower is a better chancellor for this seat."""
        if self.fascist_player:
            if target == self.hitler:
                # Hitler wins as chancellor from 3 Fascist policies on; before, he plays
                # Liberal and an early spotlight only hurts him.
                return -KNOWN * 2 if self.fascist >= 3 else self._looks(target) + 0.5
            return self._looks(target) - (PULL if target in self.team else 0.0)
        if self.role == HITLER and target in self.partners:
            return self._looks(target) - PULL
        extra = PICK_RISK[self.n] if self.maybe_hitler(target) else 0.0
        return self._as_chancellor(target, self.score(target)) + extra

    def public_hitler(self, seat: int) -> bool:
        """Could ``seat`` be Hitler as far as the table knows (public facts only)?"""
        return self.fascist >= 3 and not self.confirmed[seat] and seat != self.seat

    def _as_chancellor(self, seat: int, score: float, public: bool = False) -> float:
        """``score`` as a chancellor: once Hitler can win by election, no track record
        makes an unconfirmed seat safe (trust counts only down to TRUST_FLOOR)."""
        if not (self.public_hitler(seat) if public else self.maybe_hitler(seat)):
            return score
        odds = self.hitler_odds()[seat] if self.role == LIBERAL else 1.0
        return max(score, TRUST_FLOOR) + HITLER_RISK[self.n] + HUNT_VOTE[self.n] * (odds - 1.0)

    def _special_key(self, target: int) -> float:
        """A Fascist's pick for Special Election: a teammate who can then nominate Hitler."""
        if target == self.hitler:
            return 0.0 if self.fascist < 3 else 1.0
        return -1.0 if target in self.team else 0.5 + self._looks(target) / 10

    def _pick(self, acts: Sequence[Action], key: Callable[[int], float]) -> Action:
        """The targeted action with the lowest key; ties broken at random."""
        rnd = self.rng.random
        return min(acts, key=lambda a: (key(cast(Targeted, a).target), rnd()))

    def _my_hand(self, game: GameView, seat: int) -> list[str]:
        if not self.hand:  # resumed mid-session: the events were missed
            self.hand = list(game.private_view(seat).get("hand", ()))
        return self.hand

    def _cheats(self, partner: bool, chance: float) -> bool:
        """Whether a Fascist-team seat makes the Fascist play in this session."""
        if self.role == LIBERAL:
            return False
        if self.fascist >= 5:
            return True  # one more Fascist policy wins
        if self.role == HITLER:
            chance = HITLER_CHEAT[self.n]  # Hitler mostly earns trust
        elif partner:
            return True  # a partner covers the claims
        if self.fascist == 2:
            chance += 0.2  # the third Fascist policy opens Hitler's road
        return self.rng.random() < chance

    def _discard(self, game: GameView, seat: int, acts: Sequence[Action]) -> Action:
        hand = self._my_hand(game, seat)
        if not self.drawn:
            self.drawn = list(hand)
        kinds = {a.policy for a in acts if isinstance(a, Discard)}
        drop = FASCIST
        if hand.count(FASCIST) >= 2 and self._cheats(
            self.chancellor in self.partners, FORCE[self.n]
        ):
            drop = LIBERAL
        elif self.role == LIBERAL and FASCIST in hand and self.rng.random() < DROP_LIBERAL:
            drop = LIBERAL  # a Liberal's misstep, as people make them
        elif (
            hand.count(FASCIST) == 1
            and self.role != LIBERAL
            and self.chancellor not in self.team
            and self.rng.random() < BURN[self.n]
        ):
            drop = LIBERAL  # a Liberal tile out of the deck; the Chancellor enacts the other
        if drop not in kinds:
            drop = next(iter(kinds))
        passed = list(hand)
        passed.remove(drop)
        self.passed = passed
        return Discard(seat, drop)

    def _enact(self, game: GameView, seat: int, acts: Sequence[Action]) -> Action:
        hand = self._my_hand(game, seat)
        if not self.received:
            self.received = list(hand)
        can_veto = any(isinstance(a, ProposeVeto) for a in acts)
        good = LIBERAL if self.role == LIBERAL else FASCIST
        if can_veto and good not in hand:
            return ProposeVeto(seat)
        want = LIBERAL
        if FASCIST in hand and (
            LIBERAL not in hand or self._cheats(self.president in self.partners, BOLD[self.n])
        ):
            want = FASCIST
        for a in acts:
            if isinstance(a, Enact) and a.policy == want:
                return a
        return next(a for a in acts if isinstance(a, Enact))

    # ---------------------------------------------------------------- claims

    def claim(self, game: GameView, request: ClaimRequest) -> Claim:
        """The truth as a Liberal (or nothing); as a Fascist, a mixed strategy that covers
        the team's play (:mod:`shbot.players.bluff`)."""
        kind = request.kind
        self.rng = Dice(self.seed, self.seat, request.round, 20 + list(ClaimKind).index(kind))
        if kind is ClaimKind.INVESTIGATED:
            party = self._seen_party(game, request.target)
            return request.none() if party is None else investigation_claim(self, request, party)
        if kind is ClaimKind.PEEKED:
            return stated(request, self.my_peek) if self.my_peek else request.none()
        if kind is ClaimKind.DRAWN:
            return drawn_claim(self, request)
        if kind is ClaimKind.RECEIVED:
            return received_claim(self, request)
        return request.none()

    def _seen_party(self, game: GameView, target: int | None) -> str | None:
        if target is None:
            return None
        party = self.known.get(target)
        if party is None:
            found = game.private_view(self.seat).get("investigations", {})
            party = found.get(target) or found.get(str(target))
        return party
