"""Claims through the real Application and the fake Bot API (issue 16, "Claims").

After each legislative session the President and the Chancellor (and after a peek or an
investigation, the President) get a private prompt with one-tap claims; a claim becomes one
line of that round's group message, edited in place; conflicts are marked ⚠; the end card
shows each claim next to the truth. Every game here also passes ``check_game`` (nothing
secret in the group before the end, private messages only to the entitled seat).
"""

from __future__ import annotations

import json
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from shbot.bot import callbacks as cb
from shbot.bot.render import claims as rc
from shbot.engine import HITLER, Game, Phase
from shbot.engine.claims import CHOICES, ClaimKind
from shbot.i18n import Translator, translator
from shbot.storage import open_store
from shbot.table import claims
from shbot.table.model import Table
from tests.botplay import (
    Bot,
    RandomPlay,
    Replay,
    Turn,
    check_calls_valid,
    check_game,
    check_group_keeps_secrets,
    find_seed,
    open_game,
    play,
    play_planned,
    rewrite_game,
    running_bot,
)
from tests.fake_telegram import FakeChat, StoredMessage
from tests.harness import FakeUser, make_users
from tests.harness import refused as is_refusal
from tests.langcheck import assert_language
from tests.test_bot_secrets import Recorded, fascists, transcript, twin_deck

EN = translator("en")
Choose = Callable[[int, ClaimKind], str | None]


def claim_buttons(message: StoredMessage) -> list[cb.GamePress]:
    out = []
    for b in message.buttons():
        press = cb.parse(b.get("callback_data"))
        if isinstance(press, cb.GamePress) and press.op == cb.CLAIM:
            out.append(press)
    return out


def sight_of(table: Table, press: cb.GamePress) -> tuple[int, ClaimKind]:
    """The sight a claim button belongs to: the one of its kind opened at its step."""
    kind = claims.KIND_OF[(press.arg or "")[0]]
    found = [
        claims.parse_key(k)
        for k, v in claims.offered(table).items()
        if v[2] == press.step and claims.parse_key(k)[1] is kind
    ]
    assert len(found) == 1, (press, claims.offered(table))
    return found[0]


@dataclass
class Claimer:
    """A ``before`` hook for :func:`tests.botplay.play`: presses the claim ``choose`` picks
    in every prompt on screen (None: "no claim"; "" : leave it unanswered). A President's
    claim pressed before the session ended is held: ``after`` runs once the group has it."""

    bot: Bot
    group: int
    users: list[FakeUser]
    choose: Choose
    prompts: dict[tuple[int, ClaimKind], int] = field(default_factory=dict)  # -> user id
    after: Callable[[tuple[int, ClaimKind]], Awaitable[None]] | None = None
    t: Translator = EN
    held: list[tuple[int, ClaimKind]] = field(default_factory=list)  # not made yet

    async def made(self, table: Table | None = None) -> None:
        """``after`` for each held claim the group now has (``table``: the game's end)."""
        await self.bot.settle()
        table = table or await self.bot.table(self.group)
        assert table is not None
        for sight in [s for s in self.held if claims.claim_of(table, claims.key(*s))]:
            self.held.remove(sight)
            if self.after is not None:
                await self.after(sight)

    async def __call__(self, turn: Turn) -> None:
        await self.made()
        table = await self.bot.table(self.group)
        assert table is not None
        for user in self.users:
            for message in self.bot.fake.messages(user.id):
                presses = claim_buttons(message)
                if not presses:
                    continue
                sight = sight_of(table, presses[0])
                assert self.prompts.setdefault(sight, user.id) == user.id
                value = self.choose(*sight)
                if value == "":
                    continue
                arg = claims.encode(sight[1], value)
                data = cb.game_data(table.gid, presses[0].step, cb.CLAIM, arg)
                query = await self.bot.h.press(user, message, data=data)
                await self.bot.settle()
                answer = self.bot.h.answer(query)
                assert not is_refusal(answer), answer.text
                if claims.key(*sight) not in table.talk.get("sights", {}):
                    assert claims.key(*sight) in claims.offered(table)  # on the hand's edit
                    held = self.t._("Noted: the group will hear your claim once the session ends.")
                    assert answer.text == held
                    self.held.append(sight)
                    continue
                assert answer.text == self.t._("Your claim is shown in the group.")
                if self.after is not None:
                    await self.after(sight)


def expected_prompts(table: Table) -> dict[tuple[int, ClaimKind], int]:
    """Who must have got a prompt: each sight's own seat (read from the public facts)."""
    out = {}
    for k, seat, _ in claims.sights(table):
        out[claims.parse_key(k)] = table.at(seat).id
    return out


# The 5-player plan: R1 F, R2 L, R3 rejected, R4 F, R5 F (peek), R6 F (Hitler executed).
SCRIPT: dict[tuple[int, ClaimKind], str | None] = {
    (1, ClaimKind.DRAWN): "FFF",  # ...and the Chancellor says a Liberal came: PAIR
    (1, ClaimKind.RECEIVED): "FL",
    (2, ClaimKind.DRAWN): None,  # no claim
    (2, ClaimKind.RECEIVED): "FF",  # a Liberal was enacted: ENACTED
    (5, ClaimKind.PEEKED): "LLL",  # the next President claims Fascists: PEEK
    (6, ClaimKind.DRAWN): "FFL",
}


async def test_claims_in_a_whole_game(bot: Bot) -> None:
    users = make_users(5)
    group = bot.h.group(creator=users[0], members=users[1:])
    made: list[tuple[int, ClaimKind]] = []

    async def after(sight: tuple[int, ClaimKind]) -> None:
        """Right after each claim: the newest round's message has the line, edited in place
        (never the message of a round that has scrolled away)."""
        table = await bot.table(group)
        assert table is not None and table.game is not None
        newest, rnd = table.game.round, sight[0]
        message = bot.fake.message(group.id, table.shown[f"round:{newest}"])
        if rnd == newest:
            line = rc.claim_line(EN, table, rnd)
        else:
            line = f"🗣 R{rnd}: {rc.claim_parts(EN, table, rnd)}"
        assert line is not None and line in message.text, message.text
        # (A President's claim, held until the session ended, may ride in the next round's
        # first message.)
        assert message.history or sight[1] is ClaimKind.DRAWN, "edited, not sent again"
        made.append(sight)

    claimer = Claimer(
        bot, group.id, users, lambda rnd, kind: SCRIPT.get((rnd, kind), ""), after=after
    )

    async def hook(turn: Turn) -> None:
        sends = bot.fake.group_sends(group.id)
        await claimer(turn)
        assert bot.fake.group_sends(group.id) == sends, "a claim sent a new group message"

    played = await play_planned(
        bot,
        users,
        ["F", "L", "x", "F", "F", "F"],
        targets=["H"],
        hitler=3,
        group=group,
        before=hook,
    )
    table = played.table
    await claimer.made(table)  # the last President's claim, made as the game ended
    # Each sight's prompt went to its own seat only, and every planned claim was made.
    assert claimer.prompts == expected_prompts(table)
    assert sorted(made) == sorted(SCRIPT), (made, sorted(claimer.prompts))
    lines = {rnd: rc.claim_line(EN, table, rnd) or "" for rnd in (1, 2, 5, 6)}
    assert "⚠ the Chancellor's two policies must be two of the President's three" in lines[1]
    assert "🔴🔴🔴" in lines[1] and "🔴🔵" in lines[1]
    assert "no claim" in lines[2] and "🔵 Liberal policy was enacted" in lines[2]
    assert "⚠ differs from the peek claimed in round 5" in lines[6]
    # The group saw each round's claims in one round message: the newest when they were
    # made (a closed round's message is never edited again).
    for rnd, line in lines.items():
        parts = line.removeprefix("🗣 ")
        shown_in = [m for m in bot.fake.messages(group.id) if parts in m.text]
        assert len(shown_in) == 1, (rnd, [m.text for m in shown_in])
    # The end card: each claim next to the truth.
    over = bot.h.last(group)
    truth = table.talk["truth"]
    assert f"(President) claimed 🔴🔴🔴 — drew {rc.icons(truth['1:drawn'])}" in over.text
    assert f"(Chancellor) claimed 🔴🔵 — received {rc.icons(truth['1:received'])}" in over.text
    assert f"(President) made no claim — drew {rc.icons(truth['2:drawn'])}" in over.text
    assert f"(Policy Peek) claimed 🔵🔵🔵 — saw {rc.icons(truth['5:peeked'])}" in over.text
    # Each lie is marked ❗ (issue 24), a true claim or no claim is not.
    assert over.text.count("❗ ") == sum(
        1 for k in truth if (c := claims.claim_of(table, k)) is not None and rc.lied(c, truth[k])
    )
    assert "❗ R5 · " in over.text  # LLL peeked: the pile's top held a Fascist (R6 drew FFL)
    assert not any(
        line.startswith("❗") and "made no claim" in line for line in over.text.split("\n")
    ), "no claim is no lie"
    await check_game(bot, played)
    # The final tracks and what was left in the draw pile.
    game = played.game
    assert f"Final tracks: 🔵 {game.liberal}/5 · 🔴 {game.fascist}/6" in over.text
    left = "".join(rc.icons(p) for p in reversed(game.draw))
    assert f"Left in the draw pile ({len(game.draw)}): {left or '—'}" in over.text
    # /history after the game: the log, not the end card again.
    await bot.h.command(users[0], group, "/history")
    await bot.settle()
    history = bot.h.last(group).text
    assert history.startswith("<b>History of the last game</b>")
    assert "Rematch" not in str(bot.h.last(group).buttons()) and "<b>Roles</b>" not in history
    assert "Thanks for playing" not in history and "R1: " in history and "❗" in history


# ------------------------------------------------------------------ refusals change nothing


async def test_second_and_forged_claims_are_refused_and_change_nothing(bot: Bot) -> None:
    users = make_users(5)
    by_id = {u.id: u for u in users}
    group = bot.h.group(creator=users[0], members=users[1:])
    done: list[bool] = []

    async def hook(turn: Turn) -> None:
        if done or "1:drawn" not in turn.table.talk.get("sights", {}):
            return
        done.append(True)
        await bot.settle()
        table = turn.table
        (_, pres, _), (_, chan, _) = claims.sights(table, 1)
        president, chancellor = by_id[table.at(pres).id], by_id[table.at(chan).id]
        prompt = next(m for m in bot.fake.messages(president.id) if claim_buttons(m))
        gid, step = table.gid, claims.button_step(table, "1:drawn")

        async def refused(user: FakeUser, data: str, text: str, *, alert: bool = False) -> None:
            before = await snapshot(bot, group.id)
            query = await bot.h.press_raw(user, user.id, prompt.message_id, data)
            await bot.settle()
            answer = bot.h.answer(query)
            assert (answer.text, answer.show_alert) == (text, alert), data
            assert is_refusal(answer), data
            assert await snapshot(bot, group.id) == before, f"{data} changed the game"

        invalid = EN._("This button is not valid.")
        # Forged: another seat's sight, unknown sights, values never offered, bad letters.
        await refused(chancellor, f"{gid}:{step}:c:dFFF", invalid)
        await refused(president, f"{gid}:{step}:c:rFL", invalid)
        await refused(president, f"{gid}:{step + 1}:c:dFFF", invalid)
        await refused(president, f"{gid}:{step}:c:dLFF", invalid)  # not in the offered form
        await refused(president, f"{gid}:{step}:c:dFFFF", invalid)
        await refused(president, f"{gid}:{step}:c:iF", invalid)
        await refused(president, f"{gid}:{step}:c:xFFF", invalid)
        await refused(president, f"{gid}:{step}:c:d", invalid)
        # Another game's claim (or no game at all): claims are closed (the message pressed
        # is not touched: the button is not on it).
        closed = EN._("The game is over: claims are closed.")
        await refused(president, f"zzzz:{step}:c:dFFF", closed)
        outsider = make_users(6)[5]
        await bot.h.command(outsider, outsider, "/start")
        await refused(outsider, f"{gid}:{step}:c:dFFF", closed)
        assert claim_buttons(bot.fake.message(president.id, prompt.message_id))
        # The real button, then the same sight again: a toast, nothing changes.
        query = await bot.h.press(president, prompt, data=f"{gid}:{step}:c:dFFL")
        await bot.settle()
        assert bot.h.answer(query).text == EN._("Your claim is shown in the group.")
        assert claim_buttons(bot.fake.message(president.id, prompt.message_id)) == []
        assert "🔴🔴🔵" in bot.fake.message(president.id, prompt.message_id).text
        await refused(
            president,
            f"{gid}:{step}:c:dLLL",
            EN._("You have already made this claim."),
            alert=False,
        )
        # /history shows the claim while the game runs, and no truth.
        await bot.h.command(users[0], group, "/history")
        await bot.settle()
        history = bot.h.last(group).text
        assert "<b>🗣 Claims</b>" in history and "🔴🔴🔵" in history
        assert "drew" not in history and "Claims and truth" not in history

    await play_planned(bot, users, ["F", "L", "L", "L", "L", "L"], group=group, before=hook)
    assert done, "the first session's sights never opened"
    bot.h.assert_no_errors()


async def snapshot(bot: Bot, chat_id: int) -> tuple[int, object]:
    await bot.settle()
    record = await bot.record(chat_id)
    assert record is not None
    return record.version, record.data


# ------------------------------------------------------------------ random claims, kept secrets


async def test_random_claims_keep_secrets(bot: Bot) -> None:
    """A 7-player game (investigations) where every sight gets a random claim, "no claim"
    or nothing: each prompt reached its own seat only, the group never saw a secret before
    the end (``check_game``), and the end card puts every claim next to the truth."""
    rng = random.Random(16)

    def choose(rnd: int, kind: ClaimKind) -> str | None:
        pick = rng.random()
        if pick < 0.15:
            return ""  # left unanswered
        if pick < 0.3:
            return None
        return rng.choice(CHOICES[kind])

    users = make_users(7)
    group = await open_game(bot, users, seed=find_seed(7, start=70))
    claimer = Claimer(bot, group.id, users, choose)
    played = await play(bot, group, users, RandomPlay(7, fascist=True), before=claimer)
    table = played.table
    kinds = {claims.parse_key(k)[1] for k, _, _ in claims.sights(table)}
    assert ClaimKind.INVESTIGATED in kinds, f"no investigation: {played.game.history}"
    assert claimer.prompts == {
        s: u for s, u in expected_prompts(table).items() if s in claimer.prompts
    }
    over = bot.h.last(group)
    made = [k for k, _, _ in claims.sights(table) if claims.claim_of(table, k) is not None]
    assert made, "no claim was made"
    parties = [k for k in made if k.endswith(":investigated")]
    said = [claims.claim_of(table, k) for k in parties]
    assert any(c is not None and c.party for c in said), "no investigation was claimed"
    assert over.text.count(" claimed ") + over.text.count(" made no claim ") == len(made)
    # What an investigator saw names whom they investigated (issue 24).
    names = table.names()
    for k, _, target in claims.sights(table):
        if k in parties and target is not None:
            assert f"saw that {rc.name(names, target)} is " in over.text, over.text
    # No claim prompt keeps live buttons after the end.
    for user in users:
        for message in bot.fake.messages(user.id):
            assert not claim_buttons(message), f"a live claim button after the end: {message.text}"
    await check_game(bot, played)


# ------------------------------------------------------------------ twin games with claims


async def test_claims_show_the_group_the_same_in_games_with_other_hidden_state(
    tmp_path: Path,
) -> None:
    """Two 7-player games with the same public moves and the same claims but other roles
    and hands (rotated before the first reshuffle: other peeks and investigation results)
    show the group exactly the same calls up to the end card (tests/test_bot_secrets.py,
    with claims)."""
    players = 7
    stores = [open_store(sqlite_path=str(tmp_path / f"{i}.sqlite3")) for i in (1, 2)]

    def chooser() -> Choose:
        rng = random.Random(7)
        return lambda rnd, kind: rng.choice([*CHOICES[kind], None])

    try:
        async with running_bot(stores[0]) as bot_a:
            users_a = make_users(players)
            group_a = await open_game(bot_a, users_a, seed=find_seed(players, start=49))
            claimer_a = Claimer(bot_a, group_a.id, users_a, chooser())
            recorded = await record_game(bot_a, group_a, users_a, claimer_a)
            game_a = recorded.initial
            seed_b = find_seed(
                players,
                hitler=game_a.roles.index(HITLER),
                first_president=game_a.president,
                accept=lambda g: fascists(g).isdisjoint(fascists(game_a)),
            )
            async with running_bot(stores[1]) as bot_b:
                users_b = make_users(players)
                group_b = await open_game(bot_b, users_b, seed=seed_b)
                deck_b = twin_deck(recorded)

                def rig(game: Game) -> None:
                    game.draw = list(reversed(deck_b))
                    game.rng = game_a.rng

                await rewrite_game(bot_b, group_b, rig)
                claimer_b = Claimer(bot_b, group_b.id, users_b, chooser())
                replay = Replay(recorded.played.moves)
                second = await play(bot_b, group_b, users_b, replay, before=claimer_b)
                assert replay.i == len(recorded.played.moves)
                first = recorded.played
                assert first.table.talk["claims"] == second.table.talk["claims"]
                assert first.table.talk["claims"], "no claim was made"
                assert claims.all_conflicts(first.table), "no conflict to show"
                seen_a, seen_b = transcript(bot_a.fake, first), transcript(bot_b.fake, second)
                assert any(json.dumps("🗣")[1:-1] in call for call in seen_a)  # claims shown
                assert seen_a == seen_b
                assert first.game.roles != second.game.roles, "the twin has other roles"
                await check_game(bot_b, second)
    finally:
        for store in stores:
            await store.close()


async def record_game(
    bot: Bot, group: FakeChat, users: list[FakeUser], claimer: Claimer
) -> Recorded:
    """Play at random with claims, noting the hands drawn before the first reshuffle."""
    start = await bot.table(group)
    assert start is not None and start.game is not None
    initial = start.game.clone()
    total = len(initial.draw)
    hands: list[tuple[int, list[int]]] = []
    state = {"last": total, "reshuffled": False, "step": -1}

    async def observe(turn: Turn) -> None:
        await claimer(turn)
        table = await bot.table(group)
        assert table is not None and table.game is not None
        game = table.game
        size = len(game.draw)
        state["reshuffled"] = bool(state["reshuffled"]) or size > int(state["last"])
        state["last"] = size
        if game.phase is Phase.PRESIDENT_DISCARD and turn.table.step != state["step"]:
            state["step"] = turn.table.step
            if not state["reshuffled"]:
                drawn = total - size
                hands.append((game.round, list(range(drawn - 3, drawn))))

    played = await play(bot, group, users, RandomPlay(3, fascist=True), before=observe)
    return Recorded(played, initial, hands)


# ------------------------------------------------------------------ in every language


@pytest.mark.parametrize("lang", ["ja", "fr"])
async def test_claims_in_the_groups_and_the_players_language(bot: Bot, lang: str) -> None:
    t = translator(lang)
    users = make_users(5, language_code=lang)
    group = bot.h.group(creator=users[0], members=users[1:])
    await bot.h.command(users[0], group, f"/lang {lang}")
    script = {(1, ClaimKind.DRAWN): "FFF", (1, ClaimKind.RECEIVED): "FL"}
    claimer = Claimer(bot, group.id, users, lambda r, k: script.get((r, k), ""), t=t)
    played = await play_planned(
        bot, users, ["F", "L", "L", "L", "L", "L"], group=group, before=claimer
    )
    table = played.table
    line = rc.claim_line(t, table, 1)
    assert line is not None and "⚠" in line
    parts = rc.claim_parts(t, table, 1)
    assert parts is not None
    shown_in = [m for m in bot.fake.messages(group.id) if parts in m.text]
    assert len(shown_in) == 1 and shown_in[0].history, "one round message, edited in place"
    names = [f"<b>{n}</b>" for n in table.names()]
    assert_language(line, lang, raw=["🗣", "⚠", *names])
    for user in users:
        for message in bot.fake.messages(user.id):
            if message.text.startswith("🗣"):
                assert_language(message.text, lang, raw=["🗣", *names])
    assert rc.truth_lines(t, table)[1] in bot.h.last(group).text
    check_group_keeps_secrets(bot.fake, group.id, t)
    check_calls_valid(bot.fake)
    bot.h.assert_no_errors()


async def test_claims_needing_more_tiles_than_the_pile_held_are_marked(bot: Bot) -> None:
    """Three Presidents in a row claim 🔵🔵🔵: nine Liberal tiles from a pile that held six
    (R4: 6 Liberal, 11 Fascist, no reshuffle yet), so the claims are marked ⚠ from public
    facts alone — all three, since no one of them alone is the lie."""
    users = make_users(5)
    group = bot.h.group(creator=users[0], members=users[1:])
    script = {(r, ClaimKind.DRAWN): "LLL" for r in (1, 2, 3)}
    script |= {(r, ClaimKind.RECEIVED): "LL" for r in (1, 2, 3)}
    claimer = Claimer(bot, group.id, users, lambda r, k: script.get((r, k), ""))
    played = await play_planned(
        bot, users, ["L", "L", "L", "F", "L", "L"], group=group, before=claimer
    )
    table = played.table
    lines = {rnd: rc.claim_line(EN, table, rnd) or "" for rnd in (1, 2, 3)}
    # Every claim that shares the blame is flagged (the deck flag names them all) ...
    for rnd in (1, 2, 3):
        assert lines[rnd].count("⚠ the pile held only 6 🔵 since it was last shuffled") == 1
    # ... and the claims are shown in one round message, the newest when they were made.
    shown_in = [m for m in bot.fake.messages(group.id) if lines[3][2:] in m.text]
    assert len(shown_in) == 1, "the claims are shown in one round message"
    await check_game(bot, played)
