"""Claims at the table: after each sight, its seat may tell the group what it saw.

A *sight* is one private look a seat had: the President's three drawn policies, the
Chancellor's two, a peek, an investigation. When a legislative session ends (a policy
enacted or a veto accepted), or a power shows something, the sight opens: its seat gets a
private prompt with one-tap claims (``claim:<round>:<kind>``), and the first press is the
claim, shown in that round's group message. Claims are talk: never checked against the
truth. Conflicts come from public facts and claims only (:func:`shbot.engine.claims.conflicts`).

Kept in ``Table.talk`` (plain JSON):

- ``facts``: the public events the conflict rules read, ``[round, kind, data]``;
- ``sights``: ``"<round>:<kind>" -> [seat, target, step]``, in the order they opened (the
  step at the opening names the sight in callback data, like every button names its step);
- ``claims``: ``"<round>:<kind>" -> Claim.to_list()`` (one per sight, a NONE for "no claim");
- ``at``: ``"<round>:<kind>" -> `` the number of lines of ``Table.log`` when the claim was
  made, so that a computer player rebuilt mid-game hears it where the others did;
- ``truth``: what each sight really showed — hidden, read only once the game is over;
- ``logs``: ``"<round>" -> the closed round's log`` (kept by older versions);
- ``told``: ``"<round>:<kind>" -> the round`` whose message shows the claim: the newest one
  when it was made (a closed round's message has scrolled away: it is never edited again);
- ``folded``: ``"<round>:<kind>" -> {"done": ..., "timeout": ...}``: the claim prompt is the
  seat's own prompt message, which says first what was done there (see ``_fold``);
- ``early``: ``"<round>:drawn" -> [seat, None, step]``: a person's claim prompt as President,
  offered on the edit that closes their hand (``_offer``), before the sight opens;
- ``held``: ``"<round>:drawn" -> Claim.to_list()``: a claim pressed there before the session
  ended, unknown to the group, the computers and the conflicts until the sight opens: then
  it is made as at that moment (``_publish``);
- ``newest``: ``"<user id>" -> `` the id of their newest private message of this game (what
  is on their screen: the only claim prompt closed at the end, see ``close_prompts``).
"""

from __future__ import annotations

from typing import Any

from shbot.engine import Discard, Event, Kind, Phase
from shbot.engine.claims import (
    FACT_KINDS,
    Claim,
    ClaimKind,
    Conflict,
    Fact,
    conflicts,
    normalize,
    valid,
)
from shbot.engine.rules import FASCIST_POLICIES, LIBERAL_POLICIES, rebalanced_setup

from .model import Table
from .outcome import Outcome, Refusal

#: The letter of each kind in callback data ("d" + "FFL"; "d-" is "no claim").
LETTER = {
    ClaimKind.DRAWN: "d",
    ClaimKind.RECEIVED: "r",
    ClaimKind.PEEKED: "p",
    ClaimKind.INVESTIGATED: "i",
}
KIND_OF = {letter: kind for kind, letter in LETTER.items()}
NO_CLAIM = "-"
ORDER = (ClaimKind.DRAWN, ClaimKind.RECEIVED, ClaimKind.INVESTIGATED, ClaimKind.PEEKED)


def key(rnd: int, kind: ClaimKind) -> str:
    return f"{rnd}:{kind.value}"


def parse_key(text: str) -> tuple[int, ClaimKind]:
    rnd, kind = text.split(":")
    return int(rnd), ClaimKind(kind)


def _part(table: Table, name: str) -> Any:
    return table.talk.setdefault(name, [] if name == "facts" else {})


# ------------------------------------------------------------------------- observing play


def observe(before: Table, table: Table, outcome: Outcome) -> None:
    """After a change of play: keep the public facts, the hidden truth of each sight, and
    open the sights whose session or power just ended (called by ``narrate``)."""
    game, bgame = table.game, before.game
    assert game is not None and bgame is not None
    facts = _part(table, "facts")
    if not facts:
        facts.append([0, Kind.GAME_STARTED.value, _start(table)])
    rnd = bgame.round
    truth = _part(table, "truth")
    _offer(before, table, outcome)
    for e in outcome.events:
        if e.kind is Kind.ROUND_STARTED:
            rnd = e.data["round"]
        elif e.public and e.kind in FACT_KINDS:
            facts.append([rnd, e.kind.value, dict(e.data)])
        _secret(truth, rnd, e)
        _open(table, rnd, e)
    closed = table.owed.get(f"round:{bgame.round}")
    payload = closed[2] if closed and bgame.round != game.round else None
    if payload and payload.get("closed") and kept(table, bgame.round):
        _part(table, "logs")[str(bgame.round)] = payload["log"]
    if game.is_over:
        close_prompts(table)


def close_prompts(table: Table) -> None:
    """The game ended (or was cancelled): an unanswered claim prompt loses its buttons if it
    is what its player sees (their newest private message of the game) or is still owed;
    an older one, scrolled away, keeps them (a press on it is answered and closes it then:
    ``handlers.talk``), so the end costs at most one edit per player. No round message is
    edited again."""
    table.talk.pop("logs", None)
    said, newest = _part(table, "claims"), _part(table, "newest")
    for k, sight in offered(table).items():
        slot, user = f"claim:{k}", table.at(int(sight[0])).id
        mid = table.shown.get(slot)
        if k in said:
            continue
        # Not sent yet, or what they see (no message noted for them: a game kept from
        # before this was noted; closed, as then). An owed entry of a message already out is
        # no reason: an edit recorded in place and lost in a crash leaves one behind, and
        # that message may have scrolled away long ago.
        if (mid is None and slot in table.owed) or (
            mid is not None and newest.get(str(user), mid) == mid
        ):
            table.owe(slot, user)


def _start(table: Table) -> dict[str, Any]:
    """The public set-up of the pile (the GAME_STARTED event's data, R1.5)."""
    game = table.game
    assert game is not None
    removed, preset = rebalanced_setup(game.n) if game.options.get("rebalanced") else (0, 0)
    return {"draw": LIBERAL_POLICIES + FASCIST_POLICIES - removed - preset, "fascist": preset}


def _secret(truth: dict[str, Any], rnd: int, e: Event) -> None:
    """What the sight really showed: hidden until the game is over."""
    if e.kind is Kind.PRESIDENT_HAND:
        truth[key(rnd, ClaimKind.DRAWN)] = normalize(ClaimKind.DRAWN, "".join(e.data["policies"]))
    elif e.kind is Kind.CHANCELLOR_HAND:
        truth[key(rnd, ClaimKind.RECEIVED)] = normalize(
            ClaimKind.RECEIVED, "".join(e.data["policies"])
        )
    elif e.kind is Kind.PEEK_RESULT:
        truth[key(rnd, ClaimKind.PEEKED)] = "".join(e.data["policies"])
    elif e.kind is Kind.INVESTIGATION_RESULT:
        truth[key(rnd, ClaimKind.INVESTIGATED)] = e.data["party"]


def _open(table: Table, rnd: int, e: Event) -> None:
    """Open the sights a public event ends: a session (enacted or vetoed), a peek, an
    investigation (its public event names the target)."""
    game = table.game
    assert game is not None
    if (e.kind is Kind.POLICY_ENACTED and not e.data.get("chaos")) or (
        e.kind is Kind.VETO_ACCEPTED
    ):
        session = next(
            (d for r, k, d in _part(table, "facts") if r == rnd and k == Kind.SESSION_STARTED), None
        )
        if session is not None:
            _sight(table, rnd, ClaimKind.DRAWN, session["president"])
            _sight(table, rnd, ClaimKind.RECEIVED, session["chancellor"])
    elif e.kind is Kind.PEEKED:
        _sight(table, rnd, ClaimKind.PEEKED, e.data["president"])
    elif e.kind is Kind.INVESTIGATED:
        _sight(table, rnd, ClaimKind.INVESTIGATED, e.data["president"], e.data["target"])


def _sight(table: Table, rnd: int, kind: ClaimKind, seat: int, target: int | None = None) -> None:
    k = key(rnd, kind)
    sights = _part(table, "sights")
    if k in sights:
        return
    early = _part(table, "early").get(k)
    sights[k] = [seat, target, table.step if early is None else early[2]]
    assert table.game is not None
    if early is not None:  # its prompt is out already, maybe answered
        held = _part(table, "held").pop(k, None)
        if held is not None:
            said = Claim.from_list(held)
            _publish(table, k, said)
            if said.kind is not ClaimKind.NONE:  # their prompt said the group would hear it
                table.owe(f"claim:{k}", table.at(seat).id)
        return
    if not table.game.is_over:
        _fold(table, k, seat)
        table.owe(f"claim:{k}", table.at(seat).id, {"seat": seat})


def _fold(table: Table, k: str, seat: int) -> None:
    """The seat's own prompt, answered by the step that opened the sight (the Chancellor's
    hand, an investigation) and shown but not yet edited to say so, becomes the claim
    prompt: one edit ("You enacted ... — what do you tell the group?") instead of that edit
    and a new message. What was done is kept (``folded``) for the message's later edits."""
    user = table.at(seat).id
    for slot, entry in list(table.owed.items()):
        done = (entry[2] or {}).get("done")
        if slot.startswith("prompt:") and entry[1] == user and done and slot in table.shown:
            folded = _part(table, "folded")
            folded[k] = {"done": done, "timeout": entry[2].get("timeout")}
            table.shown[f"claim:{k}"] = table.shown.pop(slot)
            del table.owed[slot]
            return


def _offer(before: Table, table: Table, outcome: Outcome) -> None:
    """A person discarded as President: the edit that closes their hand asks the claim at
    once (one edit instead of that edit and a new message later). Their sight still opens
    when the session ends; a claim pressed before is held until then (``claim``)."""
    game, bgame = table.game, before.game
    assert game is not None and bgame is not None
    slot = f"prompt:{before.step}"
    entry = table.owed.get(slot)
    if (
        game.is_over
        or bgame.phase is not Phase.PRESIDENT_DISCARD
        or not isinstance(outcome.action, Discard)
        or entry is None
        or not (entry[2] or {}).get("done")
    ):
        return  # a computer's hand, or one the person never had (nothing owed them)
    seat, k = bgame.president, key(bgame.round, ClaimKind.DRAWN)
    _part(table, "early")[k] = [seat, None, table.step]
    _part(table, "folded")[k] = {"done": entry[2]["done"], "timeout": entry[2].get("timeout")}
    del table.owed[slot]
    if slot in table.shown:
        table.shown[f"claim:{k}"] = table.shown.pop(slot)
    table.owe(f"claim:{k}", int(entry[1]), {"seat": seat})


# ------------------------------------------------------------------------- a claim


def decode(arg: str | None) -> tuple[ClaimKind, str | None]:
    """Callback argument → (sight kind, claimed value or None for "no claim")."""
    kind = KIND_OF.get((arg or "")[:1])
    value = (arg or "")[1:]
    if kind is None or not (value == NO_CLAIM or valid(kind, value)):
        raise Refusal("invalid")
    return kind, None if value == NO_CLAIM else value


def encode(kind: ClaimKind, value: str | None) -> str:
    return LETTER[kind] + (NO_CLAIM if value is None else value)


def button_step(table: Table, k: str) -> int:
    """The step a sight's buttons name (the step at which it opened, or was offered)."""
    return int(offered(table)[k][2])


def offered(table: Table) -> dict[str, list[Any]]:
    """Every claim prompt given so far, ``sights`` and those offered early: key -> [seat,
    target, step]."""
    return {**_part(table, "early"), **_part(table, "sights")}


def held(table: Table, k: str) -> Claim | None:
    """A claim pressed before its session ended, not yet made (the group does not know it)."""
    data = _part(table, "held").get(k)
    return None if data is None else Claim.from_list(data)


def claim(table: Table, gid: str, step: int, user_id: int, arg: str | None) -> Outcome:
    """``user_id`` says what it saw in the sight opened at ``step`` (of the kind in ``arg``):
    once, never checked against the truth; the round's group message gets the line."""
    game = table.game
    if table.gid != gid or game is None:
        raise Refusal("over_button")
    if game.is_over or table.ending:
        raise Refusal("over")
    seat = table.seat_of(user_id)
    if seat is None:
        raise Refusal("not_playing")
    kind, value = decode(arg)
    found = [(k, v) for k, v in offered(table).items() if v[2] == step and parse_key(k)[1] is kind]
    if len(found) != 1 or found[0][1][0] != seat:
        raise Refusal("invalid")
    k, sight = found[0]
    rnd = parse_key(k)[0]
    if k in _part(table, "claims") or k in _part(table, "held"):
        raise Refusal("claimed", alert=False)
    if value is None:
        said = Claim(rnd, seat, ClaimKind.NONE)
    elif kind is ClaimKind.INVESTIGATED:
        said = Claim(rnd, seat, kind, target=sight[1], party=value)
    else:
        said = Claim(rnd, seat, kind, value)
    table.owe(f"claim:{k}", user_id)
    if k not in _part(table, "sights"):  # the session goes on: the group hears it at its end
        _part(table, "held")[k] = said.to_list()
        return Outcome(table, answer="claim_held")
    _publish(table, k, said)
    return Outcome(table, answer="claimed")


def _publish(table: Table, k: str, said: Claim) -> None:
    """The claim is made now: heard after the log so far, shown in the newest round's
    message."""
    rnd = parse_key(k)[0]
    _part(table, "claims")[k] = said.to_list()
    _part(table, "at")[k] = table.log.count("\n") + 1 if table.log else 0  # heard after
    assert table.game is not None
    _part(table, "told")[k] = table.game.round  # shown in that round's message
    _owe_round(table, rnd)
    if all(s[0] in table.talk["claims"] for s in sights(table, rnd)):
        _part(table, "logs").pop(str(rnd), None)  # the round's message has its last claim


def _owe_round(table: Table, rnd: int) -> None:
    """Show the claim in the newest round message (edited in place), never in a closed
    one: that has scrolled away, and editing it would spend a group call nobody sees."""
    assert table.game is not None
    del rnd  # a claim of an earlier round rides in the newest message (its "R{n}:" line)
    table.owe(f"round:{table.game.round}")


# ------------------------------------------------------------------------- reading


def sights(table: Table, rnd: int | None = None) -> list[tuple[str, int, int | None]]:
    """Open sights (key, seat, target), in round then ``ORDER`` order."""
    out = [(k, int(v[0]), v[1]) for k, v in _part(table, "sights").items()]
    if rnd is not None:
        out = [s for s in out if parse_key(s[0])[0] == rnd]
    return sorted(out, key=lambda s: (parse_key(s[0])[0], ORDER.index(parse_key(s[0])[1])))


def claim_of(table: Table, k: str) -> Claim | None:
    data = _part(table, "claims").get(k)
    return None if data is None else Claim.from_list(data)


def told_in(table: Table, rnd: int, *, own: bool = False) -> list[int]:
    """The earlier rounds with a claim shown in round ``rnd``'s message (``own``: and
    ``rnd`` itself, if a claim of its own was made while it was the newest)."""
    told = _part(table, "told")
    last = rnd + 1 if own else rnd
    return sorted({parse_key(k)[0] for k, r in told.items() if r == rnd and parse_key(k)[0] < last})


def kept(table: Table, rnd: int) -> bool:
    """A closed round keeps its message id while a claim may still be added to it."""
    return any(parse_key(k)[0] == rnd for k in _part(table, "sights"))


def facts(table: Table) -> list[Fact]:
    return [Fact(r, Event(Kind(k), d)) for r, k, d in _part(table, "facts")]


def all_conflicts(table: Table) -> list[Conflict]:
    """Conflicts of the claims so far, from the public facts and the claims only."""
    claims = [Claim.from_list(c) for c in _part(table, "claims").values()]
    return conflicts(facts(table), claims) if claims else []


def revealed(table: Table) -> dict[str, Any]:
    """What each sight really showed — empty until the game is over (R10, R11)."""
    game = table.game
    if game is None or not game.is_over:
        return {}
    return dict(_part(table, "truth"))
