"""Claims at the table (shbot.table.claims): sights, one claim per sight, and the proof that
nothing a claim shows depends on hidden state.

The property test plays pairs of games through the table's own transitions: the second game
of a pair has other roles (Hitler in the same seat) and every hand drawn before the first
reshuffle rotated (same tiles, other order, so peeks differ), and replays the first game's
moves. Both games get the same random claims. Their public facts, sights, claims,
conflicts, group lines and claim buttons must be identical, although the truth differs.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass

import pytest

from shbot.bot.render import claims as rc
from shbot.engine import (
    FASCIST,
    HITLER,
    LIBERAL,
    AnswerVeto,
    Discard,
    Enact,
    Game,
    Kind,
    Nominate,
    Phase,
    ProposeVeto,
    Vote,
)
from shbot.engine.actions import Action
from shbot.engine.claims import CHOICES, ClaimKind
from shbot.i18n import translator
from shbot.table import Refusal, claims, computer_talk, timers
from shbot.table.model import Player, Table
from shbot.table.play import advance

EN = translator("en")


def new_table(game: Game) -> Table:
    table = Table("abcd1234", 100, 0.0)
    table.players = [Player(100 + s, f"P{s}", ready=True) for s in range(game.n)]
    table.game = game
    table.step = 1
    return table


@dataclass
class Run:
    table: Table
    moves: list[Action]
    hands: list[tuple[int, list[int]]]  # (round, deck positions) drawn before a reshuffle
    vetoed: set[int]


def perturbed(table: Table, rng: random.Random) -> Table:
    """The same table with every hidden part changed: roles, piles, hand, each sight's truth."""
    other = Table.from_dict(table.to_dict())
    game = other.game
    assert game is not None
    rng.shuffle(game.roles)
    tiles = game.draw + game.discard
    rng.shuffle(tiles)
    game.draw, game.discard = tiles[: len(game.draw)], tiles[len(game.draw) :]
    game.hand = [rng.choice("LF") for _ in game.hand]
    game.rng = rng.getrandbits(64)
    other.talk["truth"] = {
        k: "".join(rng.choice("LF") for _ in v) for k, v in other.talk.get("truth", {}).items()
    }
    return other


def play(table: Table, seed: int, moves: list[Action] | None = None) -> Run:
    """Random legal moves (or ``moves``), and the same random claims for the same sights."""
    game = table.game
    assert game is not None
    pick, talk = random.Random(seed), random.Random(seed + 1)
    done: list[Action] = []
    hands: list[tuple[int, list[int]]] = []
    vetoed: set[int] = set()
    drawn, reshuffled, decided = 0, False, set()
    while not game.is_over and len(done) < 400:
        if moves is None:
            seat = game.to_act()[0]
            action = pick.choice(list(game.legal_actions(seat)))
        else:
            action = moves[len(done)]
        done.append(action)
        rnd = game.round
        for e in advance(table, action).events:
            if e.kind is Kind.PRESIDENT_HAND and not reshuffled:
                hands.append((rnd, [drawn, drawn + 1, drawn + 2]))
            drawn += 3 if e.kind is Kind.PRESIDENT_HAND else 1 if e.kind is Kind.CHAOS else 0
            reshuffled = reshuffled or e.kind is Kind.DECK_RESHUFFLED
            if e.kind is Kind.VETO_ACCEPTED:
                vetoed.add(rnd)
        for key, seat, _ in claims.sights(table):
            if key in decided or game.is_over:
                continue
            decided.add(key)
            kind = claims.parse_key(key)[1]
            roll = talk.random()
            if roll < 0.1:
                continue
            value = None if roll < 0.2 else talk.choice(CHOICES[kind])
            arg = claims.encode(kind, value)
            step = claims.button_step(table, key)
            claims.claim(table, table.gid, step, table.at(seat).id, arg)
        if not game.is_over:  # what the group and the buttons show ignores hidden state
            assert group_view(perturbed(table, random.Random(len(done)))) == group_view(table)
    return Run(table, done, hands, vetoed)


def twin_roles(game: Game, rng: random.Random) -> list[str]:
    """Other roles, Hitler in the same seat (Hitler's election and execution are public)."""
    hitler = game.roles.index(HITLER)
    while True:
        roles = [r for r in game.roles if r != HITLER]
        rng.shuffle(roles)
        out = list(roles)
        out.insert(hitler, HITLER)
        if out != game.roles:
            return out


def twin_deck(start: Game, run: Run) -> str:
    deck = list(reversed(start.draw))  # top first
    for rnd, (a, b, c) in run.hands:
        if rnd not in run.vetoed:  # a vetoed hand is discarded in its order
            deck[a], deck[b], deck[c] = deck[b], deck[c], deck[a]
    return "".join(deck)


def group_view(table: Table) -> tuple[object, ...]:
    """Everything claims put in front of the group or in the buttons, as data and words."""
    rounds = sorted({claims.parse_key(k)[0] for k, _, _ in claims.sights(table)})
    keyboards = [
        [b.callback_data for row in kb.inline_keyboard for b in row]
        for k, _, _ in claims.sights(table)
        if (kb := rc.prompt_keyboard(EN, table, k)) is not None
    ]
    return (
        table.talk.get("facts"),
        table.talk.get("sights"),
        table.talk.get("claims"),
        claims.all_conflicts(table),
        [rc.claim_line(EN, table, rnd) for rnd in rounds],
        rc.history_lines(EN, table),
        keyboards,
    )


@pytest.mark.parametrize("players", range(5, 11))
def test_claim_outcomes_do_not_depend_on_hidden_state(players: int) -> None:
    differ = conflicted = 0
    for seed in range(12):
        game_a, _ = Game.new(players, 1000 * players + seed)
        start = game_a.clone()
        run_a = play(new_table(game_a), seed)
        game_b, _ = Game.new(
            players,
            1,
            roles=twin_roles(start, random.Random(seed)),
            deck=twin_deck(start, run_a),
            first_president=start.president,
        )
        game_b.rng = start.rng  # the same reshuffles
        run_b = play(new_table(game_b), seed, run_a.moves)
        assert game_b.is_over == game_a.is_over
        assert game_b.history == game_a.history, "the twin's public history differs"
        assert group_view(run_b.table) == group_view(run_a.table)
        truth_a, truth_b = run_a.table.talk["truth"], run_b.table.talk["truth"]
        differ += truth_a != truth_b or game_a.roles != game_b.roles
        conflicted += bool(claims.all_conflicts(run_a.table))
    assert differ == 12, "every twin has other hidden state"
    assert conflicted >= 6, "random claims should conflict often"


# ------------------------------------------------------------------------ the transition


def session_table() -> Table:
    game, _ = Game.new(5, 3, roles="LLFHL", deck="FFLLLFFFLLFFFFFLF", first_president=0)
    table = new_table(game)
    advance(table, Nominate(0, 1))
    for seat in range(5):
        advance(table, Vote(seat, True))
    advance(table, Discard(0, LIBERAL))
    advance(table, Enact(1, FASCIST))
    return table


def test_a_session_opens_one_prompt_per_seat_and_keeps_the_truth_hidden() -> None:
    table = session_table()
    assert [s[:2] for s in claims.sights(table)] == [("1:drawn", 0), ("1:received", 1)]
    assert table.owed["claim:1:drawn"][1] == 100 and table.owed["claim:1:received"][1] == 101
    assert table.talk["truth"] == {"1:drawn": "FFL", "1:received": "FF"}
    assert claims.revealed(table) == {}  # not before the end
    assert "1" in table.talk["logs"]  # the closed round can still be edited


def test_one_claim_per_sight_and_every_forgery_refused() -> None:
    table = session_table()
    gid, at = table.gid, claims.button_step(table, "1:drawn")
    saved = table.to_dict()
    for step, user, arg, code in [
        (at, 101, "dFFF", "invalid"),  # the Chancellor claiming the President's sight
        (at, 100, "rFF", "invalid"),  # the President claiming the Chancellor's
        (at, 100, "dLFF", "invalid"),  # not an offered form
        (at, 100, "pFFF", "invalid"),  # no peek then
        (at - 1, 100, "dFFF", "invalid"),
        (at, 100, None, "invalid"),
        (at, 999, "dFFF", "not_playing"),
    ]:
        with pytest.raises(Refusal) as refused:
            claims.claim(table, gid, step, user, arg)
        assert refused.value.code == code
    with pytest.raises(Refusal) as refused:
        claims.claim(table, "other1", at, 100, "dFFF")
    assert refused.value.code == "over_button"
    assert table.to_dict() == saved
    outcome = claims.claim(table, gid, at, 100, "dFFF")
    assert outcome.answer == "claimed"
    assert "round:1" in table.owed and table.owed["round:1"][2]["closed"]
    with pytest.raises(Refusal) as refused:
        claims.claim(table, gid, at, 100, "dLLL")
    assert (refused.value.code, refused.value.alert) == ("claimed", False)
    assert claims.claim_of(table, "1:drawn") is not None
    assert "1" in table.talk["logs"]  # the Chancellor may still claim
    claims.claim(table, gid, claims.button_step(table, "1:received"), 101, "rFF")
    assert "1" not in table.talk["logs"], "a round with every claim made is not kept"
    assert table.owed["round:1"][2]["log"], "its last edit still carries the log"


def test_a_table_stored_before_claims_loads() -> None:
    table = session_table()
    old = table.to_dict()
    del old["talk"]
    loaded = Table.from_dict(old)
    assert loaded.talk == {} and claims.sights(loaded) == []
    assert claims.all_conflicts(loaded) == []


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", ["(President)", "(Chancellor)", "⚠", "what do you tell the group"]),
        ("ja", ["（大統領）", "（首相）", "⚠", "申告しますか"]),
        ("fr", ["(présidence)", "(chancellerie)", "⚠", "que dites-vous au groupe"]),
    ],
)
def test_claims_speak_the_readers_language(lang: str, words: list[str]) -> None:
    table = session_table()
    at = claims.button_step(table, "1:drawn")
    claims.claim(table, table.gid, at, 100, "dLLL")  # a Fascist was enacted: ENACTED
    claims.claim(table, table.gid, claims.button_step(table, "1:received"), 101, "rFL")
    t = translator(lang)
    shown = [
        rc.claim_line(t, table, 1) or "",
        rc.prompt_text(t, table, "1:drawn"),
        rc.prompt_text(t, table, "1:received"),
    ]
    text = "\n".join(shown)
    for word in words[:3]:
        assert word in text, (word, text)
    fresh = session_table()
    assert words[3] in rc.prompt_text(t, fresh, "1:drawn")
    if lang != "en":
        assert "President" not in text and "claim" not in text


# ------------------------------------------------------------- the President's early prompt


def discarded_table(*, fascist: int = 0, timer: int = 0) -> Table:
    """Round 1 of a 5-player game, the President (seat 0, user 100) has just discarded."""
    game, _ = Game.new(5, 3, roles="LLFHL", deck="FFLLLFFFLLFFFFFLF", first_president=0)
    game.fascist = fascist  # 5: the veto is unlocked
    table = new_table(game)
    table.options["timer"] = timer
    advance(table, Nominate(0, 1))
    for seat in range(5):
        advance(table, Vote(seat, True))
    table.owed.clear()  # as if delivered: the hand is on the President's screen
    table.shown[f"prompt:{table.step}"] = 77
    if timer:
        table.restart_clock()
        timers.timeout(table, table.gid, table.step, table.deadline, random.Random(1), False)
    else:
        advance(table, Discard(0, LIBERAL))
    return table


def test_the_presidents_hand_is_edited_once_into_their_claim_prompt() -> None:
    table = discarded_table()
    assert "1:drawn" not in table.talk.get("sights", {}), "the sight opens at the session's end"
    assert table.talk["early"] == {"1:drawn": [0, None, table.step]}
    assert not [s for s in table.owed if s.startswith("prompt:") and table.owed[s][1] == 100]
    assert table.owed["claim:1:drawn"][1] == 100 and table.shown["claim:1:drawn"] == 77
    assert table.talk["folded"]["1:drawn"]["done"] == ["discard", LIBERAL, ["F", "F"]]
    text = rc.prompt_text(EN, table, "1:drawn")
    assert text == "🗣 Round 1: what do you tell the group you drew as President?"
    assert rc.prompt_keyboard(EN, table, "1:drawn") is not None


def test_a_claim_before_the_session_ends_is_held_until_it_does() -> None:
    table = discarded_table()
    at = claims.button_step(table, "1:drawn")
    outcome = claims.claim(table, table.gid, at, 100, "dLLL")  # a lie: a Fascist comes
    assert outcome.answer == "claim_held"
    with pytest.raises(Refusal) as refused:
        claims.claim(table, table.gid, at, 100, "dFFF")
    assert refused.value.code == "claimed"
    # Not known to the group, the computers or the conflicts; kept through a restart.
    assert table.talk.get("claims", {}) == {} and claims.all_conflicts(table) == []
    assert rc.claim_line(EN, table, 1) is None and rc.history_lines(EN, table) == []
    assert computer_talk.heard(table, set()) == []
    assert "They hear it once the session ends" in rc.prompt_text(EN, table, "1:drawn")
    assert rc.prompt(EN, table, "1:drawn", True) == (rc.prompt_text(EN, table, "1:drawn"), None)
    table = Table.from_dict(json.loads(json.dumps(table.to_dict())))
    assert claims.held(table, "1:drawn") is not None
    lines = table.log.count("\n") + 1
    advance(table, Enact(1, FASCIST))  # the session ends: the claim is made now
    claim = claims.claim_of(table, "1:drawn")
    assert claim is not None and claim.policies == "LLL" and claims.held(table, "1:drawn") is None
    assert table.talk["at"]["1:drawn"] == table.log.count("\n") + 1 > lines
    assert table.talk["told"]["1:drawn"] == table.game.round  # type: ignore[union-attr]
    assert f"round:{table.game.round}" in table.owed  # type: ignore[union-attr]
    assert [c.code.value for c in claims.all_conflicts(table)] == ["enacted"]
    assert [k for k, _ in computer_talk.heard(table, set())] == ["1:drawn"]
    assert "1:drawn" not in computer_talk.due(table)


def test_a_held_claim_is_made_when_a_veto_ends_the_session() -> None:
    table = discarded_table(fascist=5)
    claims.claim(table, table.gid, claims.button_step(table, "1:drawn"), 100, "d-")  # none
    advance(table, ProposeVeto(1))
    assert claims.claim_of(table, "1:drawn") is None, "a veto proposed: the session goes on"
    advance(table, AnswerVeto(0, True))
    claim = claims.claim_of(table, "1:drawn")
    assert claim is not None and claim.kind.value == "none"
    assert "1:received" in table.talk["sights"]


def test_a_timed_out_presidents_hand_asks_the_claim_too() -> None:
    table = discarded_table(timer=60)
    assert table.owed["claim:1:drawn"][1] == 100
    assert table.talk["folded"]["1:drawn"]["timeout"] == "president_discard"


def test_a_cancelled_game_tells_a_held_claim_was_never_heard() -> None:
    table = discarded_table()
    claims.claim(table, table.gid, claims.button_step(table, "1:drawn"), 100, "dFFL")
    table.ending = "cancelled"
    claims.close_prompts(table)
    text = rc.prompt(EN, table, "1:drawn", True)
    assert text == ("🗣 Round 1: the game ended before the group heard your claim.", None)


def test_at_the_end_only_the_claim_prompt_on_screen_is_closed() -> None:
    table = session_table()
    table.owed.clear()
    table.shown["claim:1:drawn"], table.shown["claim:1:received"] = 10, 11
    table.talk["newest"] = {"100": 12, "101": 11}  # the President got a message since
    claims.close_prompts(table)
    assert "claim:1:received" in table.owed and "claim:1:drawn" not in table.owed


def test_a_scrolled_away_prompt_left_owed_by_an_edit_in_place_is_not_closed() -> None:
    """An edit recorded in place (outbox) can leave the slot owed in the stored table when
    the next commit read it before: its message is out and scrolled away all the same."""
    table = session_table()
    table.owed.clear()
    table.shown["claim:1:drawn"], table.shown["claim:1:received"] = 10, 11
    table.owe("claim:1:drawn", 100)  # left behind, its message long out
    table.talk["newest"] = {"100": 12, "101": 11}
    seq = table.owed["claim:1:drawn"][0]
    claims.close_prompts(table)
    assert table.owed["claim:1:drawn"][0] == seq, "owed again: an edit of a scrolled-away prompt"
    assert "claim:1:received" in table.owed


def test_the_newest_private_message_is_noted_on_delivery() -> None:
    table = session_table()
    seq = table.owed["claim:1:received"][0]
    table.delivered("claim:1:received", seq, 40, keep=True)
    table.delivered("round:1", table.owed["round:1"][0], 90, keep=False)  # the group's
    seq = table.owed["claim:1:drawn"][0]
    table.delivered("claim:1:drawn", seq, 30, keep=True)
    assert table.talk["newest"] == {"101": 40, "100": 30}


def test_an_edit_recorded_in_place_keeps_the_players_newest_message() -> None:
    """The outbox records an edit of a known message in the cached record only (saved with
    the next commit): the player's newest message it notes must be in that record too, or a
    table built again from it closes the wrong prompt at the end."""
    from shbot.bot.delivery.tables import Tables
    from shbot.storage import GameRecord

    table = session_table()
    record = GameRecord(-100, 1, "running", json.loads(json.dumps(table.to_dict())))
    tables = Tables()
    tables.remember(record)
    seq = table.owed["claim:1:received"][0]
    tables.record_in_place(record, lambda t: t.delivered("claim:1:received", seq, 40, keep=True))
    assert Table.from_dict(record.data).talk["newest"] == {"101": 40}


@pytest.mark.parametrize("lang", ["en", "ja", "fr"])
def test_each_warning_has_a_line_of_its_own(lang: str) -> None:
    """Two conflicts in one round: the claims on one line, then one ⚠ per line (several on
    one line were hard to scan on a phone: reviews ja-5, fr-5)."""
    table = session_table()
    claims.claim(table, table.gid, claims.button_step(table, "1:drawn"), 100, "dLLL")
    claims.claim(table, table.gid, claims.button_step(table, "1:received"), 101, "rFL")
    t = translator(lang)
    lines = (rc.claim_line(t, table, 1) or "").split("\n")
    assert len(lines) == 3 and lines[0].startswith("🗣 ") and "⚠" not in lines[0], lines
    assert all(line.startswith("⚠ ") and line.count("⚠") == 1 for line in lines[1:]), lines
    history = rc.history_lines(t, table)
    assert history[1].split("\n")[1:] == lines[1:]


@pytest.mark.parametrize(
    ("lang", "offices"),
    [
        ("en", ["P0 (President) claimed", "P1 (Chancellor) made no claim"]),
        ("ja", ["P0（大統領）の申告", "P1（首相）は申告なし"]),
        ("fr", ["P0 (présidence) a annoncé", "P1 (chancellerie) n’a rien annoncé"]),
    ],
)
def test_the_end_card_names_the_office_of_each_claim(lang: str, offices: list[str]) -> None:
    """Review ja-4 C13: a seat may have two sights in a round (a President's hand, then her
    power): each end-card row names which, as the 🗣 lines do."""
    table = session_table()
    claims.claim(table, table.gid, claims.button_step(table, "1:drawn"), 100, "dLLL")
    claims.claim(
        table,
        table.gid,
        claims.button_step(table, "1:received"),
        101,
        claims.encode(ClaimKind.RECEIVED, None),
    )
    game = table.game
    assert game is not None
    game.phase = Phase.GAME_OVER  # the truth is told once the game is over
    lines = rc.truth_lines(translator(lang), table)
    assert len(lines) == 3
    for line, office in zip(lines[1:], offices, strict=True):
        plain = re.sub("<b>|</b>|\u2068|\u2069", "", line)
        assert office in plain, line
