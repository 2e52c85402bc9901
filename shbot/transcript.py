"""A whole game told move by move for a person to read (``shbot simulate --transcript``).

The transcript is omniscient: it shows the roles from the start and, marked private, the
hands, peeks and investigation results that only one player saw. Every word goes through
a translator ``t`` (``t.gettext(msg, **kw)`` / ``t.ngettext(s, p, n, **kw)``, ``{name}``
placeholders) so the Babel catalogs can localize it; all the messages live in this module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from shbot.engine import FASCIST, HITLER, LIBERAL, Event, Kind

__all__ = ["Translator", "get_translator", "render"]


def N_(message: str) -> str:
    """Mark a message for extraction; it is translated where it is used."""
    return message


class Translator(Protocol):
    """What the transcript needs of :class:`shbot.i18n.Translator`."""

    def gettext(self, message: str, /, **kwargs: object) -> str: ...

    def ngettext(self, singular: str, plural: str, n: int, /, **kwargs: object) -> str: ...


class _English:
    """Fallback when :mod:`shbot.i18n` is unavailable: the English source, formatted."""

    def gettext(self, message: str, /, **kwargs: object) -> str:
        return message.format(**kwargs)

    def ngettext(self, singular: str, plural: str, n: int, /, **kwargs: object) -> str:
        kwargs.setdefault("n", n)
        return (singular if n == 1 else plural).format(**kwargs)


def get_translator(lang: str = "en") -> Translator:
    """The project translator for ``lang`` (unknown languages fall back to English)."""
    try:
        from shbot.i18n import translator
    except ImportError:  # pragma: no cover - only before the i18n module exists
        return _English()
    return translator(lang)


ROLE_NAMES = {LIBERAL: N_("Liberal"), FASCIST: N_("Fascist"), HITLER: N_("Hitler")}
# Tiles get their own words (a role and a tile differ in ja and in gendered fr).
POLICY_NAMES = {LIBERAL: N_("🔵 Liberal"), FASCIST: N_("🔴 Fascist")}
POWER_NAMES = {
    "investigate": N_("{president} must investigate a player's loyalty."),
    "special_election": N_("{president} must call a special election."),
    "peek": N_("{president} looks at the top three policy tiles."),
    "execution": N_("{president} must execute a player."),
}
ENDINGS = {
    "five_liberal": N_("The Liberals win: five Liberal policies are enacted."),
    "hitler_executed": N_("The Liberals win: Hitler has been executed."),
    "six_fascist": N_("The Fascists win: six Fascist policies are enacted."),
    "hitler_elected": N_("The Fascists win: Hitler has been elected Chancellor."),
}
ENACTED = {
    LIBERAL: N_("{chancellor} enacts a Liberal policy."),
    FASCIST: N_("{chancellor} enacts a Fascist policy."),
}
CHAOS = {
    LIBERAL: N_("Three failed elections: the top tile, a Liberal policy, is enacted."),
    FASCIST: N_("Three failed elections: the top tile, a Fascist policy, is enacted."),
}
PARTY_SEEN = {
    LIBERAL: N_("{target} is a member of the Liberal party."),
    FASCIST: N_("{target} is a member of the Fascist party."),
}
INDENT = "  "


def render(
    events: Iterable[Event],
    t: Translator | None = None,
    names: Sequence[str] | None = None,
    *,
    seed: int | None = None,
) -> list[str]:
    """The transcript lines of a game from its complete event list (private events
    included). ``names`` defaults to "Player 1", "Player 2", …"""
    tr = t or get_translator()
    return _Renderer(tr, names).run(events, seed)


class _Renderer:
    """Turns events into lines, remembering the hands to show what was discarded."""

    def __init__(self, t: Translator, names: Sequence[str] | None) -> None:
        self.t = t
        self.names = names
        self.lines: list[str] = []
        self.roles: dict[int, str] = {}
        self.president = self.chancellor = -1
        self.round = 0
        self.president_hand: list[str] = []
        self.chancellor_hand: list[str] = []

    # ---------------------------------------------------------------- helpers

    def name(self, seat: int) -> str:
        if self.names is not None:
            return self.names[seat]
        return self.t.gettext("Player {n}", n=seat + 1)

    def tile(self, policy: str) -> str:
        return self.t.gettext(POLICY_NAMES[policy])

    def tiles(self, policies: Sequence[str]) -> str:
        return self.join([self.tile(p) for p in policies])

    def join(self, items: Sequence[str]) -> str:
        # Translators: separator between the items of a list ("Player 1, Player 2").
        sep = self.t.gettext(", ")
        return sep.join(items) if items else self.t.gettext("nobody")

    def say(self, text: str, *, indent: bool = True) -> None:
        self.lines.append(INDENT + text if indent else text)

    def secret(self, text: str) -> None:
        # Translators: marks what only one player saw (the transcript is omniscient).
        self.say(self.t.gettext("[private] {text}", text=text))

    def board(self, liberal: int, fascist: int) -> None:
        self.say(
            self.t.gettext(
                "Board: Liberal {liberal}/5, Fascist {fascist}/6.",
                liberal=liberal,
                fascist=fascist,
            )
        )

    # ---------------------------------------------------------------- events

    def run(self, events: Iterable[Event], seed: int | None) -> list[str]:
        handlers: dict[Kind, Callable[[Event], None]] = {
            Kind.GAME_STARTED: self.game_started,
            Kind.ROLE: self.role,
            Kind.ROUND_STARTED: self.round_started,
            Kind.NOMINATED: self.nominated,
            Kind.VOTE_RESULT: self.vote_result,
            Kind.CONFIRMED_NOT_HITLER: self.confirmed,
            Kind.TRACKER_ADVANCED: self.tracker,
            Kind.SESSION_STARTED: self.session_started,
            Kind.PRESIDENT_HAND: self.president_hand_,
            Kind.CHANCELLOR_HAND: self.chancellor_hand_,
            Kind.POLICY_ENACTED: self.enacted,
            Kind.CHAOS: self.chaos,
            Kind.DECK_RESHUFFLED: self.reshuffled,
            Kind.VETO_UNLOCKED: self.veto_unlocked,
            Kind.VETO_PROPOSED: self.veto_proposed,
            Kind.VETO_ACCEPTED: self.veto_accepted,
            Kind.VETO_REFUSED: self.veto_refused,
            Kind.POWER_GRANTED: self.power_granted,
            Kind.INVESTIGATED: self.investigated,
            Kind.INVESTIGATION_RESULT: self.investigation_result,
            Kind.SPECIAL_ELECTION: self.special_election,
            Kind.PEEK_RESULT: self.peek_result,
            Kind.EXECUTED: self.executed,
            Kind.GAME_OVER: self.game_over,
        }
        if seed is not None:
            self.say(self.t.gettext("Seed {seed}.", seed=seed), indent=False)
        for event in events:
            handler = handlers.get(event.kind)
            if handler is not None:
                handler(event)
        return self.lines

    def game_started(self, e: Event) -> None:
        t = self.t
        self.say(t.gettext("Secret Hitler with {n} players.", n=e.data["players"]), indent=False)
        if e.data.get("fascist"):
            self.board(0, e.data["fascist"])

    def role(self, e: Event) -> None:
        if not self.roles:
            self.say(self.t.gettext("Roles (secret):"), indent=False)
        seat, role = e.data["seat"], e.data["role"]
        self.roles[seat] = role
        self.say(
            self.t.gettext(
                "{player}: {role}", player=self.name(seat), role=self.t.gettext(ROLE_NAMES[role])
            )
        )

    def round_started(self, e: Event) -> None:
        t = self.t
        self.president, self.chancellor = e.data["president"], -1
        self.round = e.data["round"]
        self.lines.append("")
        president = self.name(self.president)
        if e.data["special"]:
            line = t.gettext(
                "Round {n}: {president} is the presidential candidate (special election).",
                n=e.data["round"],
                president=president,
            )
        else:
            line = t.gettext(
                "Round {n}: {president} is the presidential candidate.",
                n=e.data["round"],
                president=president,
            )
        self.say(line, indent=False)

    def nominated(self, e: Event) -> None:
        self.chancellor = e.data["chancellor"]
        self.say(
            self.t.gettext(
                "{president} nominates {chancellor} for Chancellor.",
                president=self.name(e.data["president"]),
                chancellor=self.name(self.chancellor),
            )
        )

    def vote_result(self, e: Event) -> None:
        t = self.t
        votes = e.data["votes"]
        ja = [self.name(s) for s, v in enumerate(votes) if v == 1]
        nein = [self.name(s) for s, v in enumerate(votes) if v == 0]
        self.say(t.gettext("Ja ({n}): {players}.", n=len(ja), players=self.join(ja)))
        self.say(t.gettext("Nein ({n}): {players}.", n=len(nein), players=self.join(nein)))
        if e.data["elected"]:
            self.say(t.gettext("The government is elected."))
        else:
            self.say(t.gettext("The government is rejected."))

    def confirmed(self, e: Event) -> None:
        self.say(self.t.gettext("{player} is not Hitler.", player=self.name(e.data["seat"])))

    def tracker(self, e: Event) -> None:
        self.say(self.t.gettext("Election tracker: {tracker}/3.", tracker=e.data["tracker"]))

    def session_started(self, e: Event) -> None:
        if e.data["veto"]:
            self.say(self.t.gettext("The veto is available in this session."))

    def president_hand_(self, e: Event) -> None:
        self.president_hand = list(e.data["policies"])
        self.secret(
            self.t.gettext(
                "{president} draws {tiles}.",
                president=self.name(self.president),
                tiles=self.tiles(self.president_hand),
            )
        )

    def chancellor_hand_(self, e: Event) -> None:
        hand = list(e.data["policies"])
        self.chancellor_hand = hand
        dropped = list(self.president_hand)
        for p in hand:
            if p in dropped:
                dropped.remove(p)
        self.secret(
            self.t.gettext(
                "{president} discards {tile} and passes {tiles} to {chancellor}.",
                president=self.name(self.president),
                tile=self.tiles(dropped),
                tiles=self.tiles(hand),
                chancellor=self.name(self.chancellor),
            )
        )

    def enacted(self, e: Event) -> None:
        policy = e.data["policy"]
        dropped = list(self.chancellor_hand)
        if policy in dropped:
            dropped.remove(policy)
            self.secret(
                self.t.gettext(
                    "{chancellor} discards {tile}.",
                    chancellor=self.name(self.chancellor),
                    tile=self.tiles(dropped),
                )
            )
        self.chancellor_hand = []
        self.say(self.t.gettext(ENACTED[policy], chancellor=self.name(self.chancellor)))
        self.board(e.data["liberal"], e.data["fascist"])

    def chaos(self, e: Event) -> None:
        message = CHAOS[e.data["policy"]]  # a variable: the extractor must not take "policy"
        self.say(self.t.gettext(message))
        self.board(e.data["liberal"], e.data["fascist"])

    def reshuffled(self, e: Event) -> None:
        self.say(
            self.t.gettext(
                "The discard pile is shuffled into the draw pile ({n} tiles).", n=e.data["draw"]
            )
        )

    def veto_unlocked(self, e: Event) -> None:
        self.say(self.t.gettext("The veto power is unlocked."))

    def veto_proposed(self, e: Event) -> None:
        self.say(
            self.t.gettext("{chancellor} proposes a veto.", chancellor=self.name(self.chancellor))
        )

    def veto_accepted(self, e: Event) -> None:
        self.chancellor_hand = []
        self.say(
            self.t.gettext(
                "{president} accepts the veto: both tiles are discarded.",
                president=self.name(self.president),
            )
        )

    def veto_refused(self, e: Event) -> None:
        self.say(
            self.t.gettext("{president} refuses the veto.", president=self.name(self.president))
        )

    def power_granted(self, e: Event) -> None:
        message = POWER_NAMES[str(e.data["power"])]
        self.say(self.t.gettext(message, president=self.name(e.data["president"])))

    def investigated(self, e: Event) -> None:
        self.say(
            self.t.gettext(
                "{president} investigates {target}.",
                president=self.name(e.data["president"]),
                target=self.name(e.data["target"]),
            )
        )

    def investigation_result(self, e: Event) -> None:
        message = PARTY_SEEN[e.data["party"]]
        self.secret(self.t.gettext(message, target=self.name(e.data["target"])))

    def special_election(self, e: Event) -> None:
        self.say(
            self.t.gettext(
                "{president} chooses {target} as the next presidential candidate.",
                president=self.name(e.data["president"]),
                target=self.name(e.data["target"]),
            )
        )

    def peek_result(self, e: Event) -> None:
        self.secret(
            self.t.gettext(
                "{president} sees {tiles} on top of the draw pile.",
                president=self.name(self.president),
                tiles=self.tiles(e.data["policies"]),
            )
        )

    def executed(self, e: Event) -> None:
        self.say(
            self.t.gettext(
                "{president} executes {target}.",
                president=self.name(e.data["president"]),
                target=self.name(e.data["target"]),
            )
        )

    def game_over(self, e: Event) -> None:
        t = self.t
        self.lines.append("")
        self.say(t.gettext(ENDINGS[str(e.data["condition"])]), indent=False)
        self.say(
            t.ngettext("The game lasted {n} round.", "The game lasted {n} rounds.", self.round),
            indent=False,
        )
        self.say(t.gettext("Roles:"), indent=False)
        for seat, role in enumerate(e.data["roles"]):
            self.say(
                t.gettext(
                    "{player}: {role}", player=self.name(seat), role=t.gettext(ROLE_NAMES[role])
                )
            )
