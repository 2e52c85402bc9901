"""Playing through the real Application: the board, nominations, votes, private steps, and
every way a press can be wrong (stale, foreign, forged, out of turn, delivered twice).

Each refusal is checked twice: the presser gets a clear alert, and the stored game is
exactly what it was (version and data).
"""

from __future__ import annotations

import itertools
import random
import re
import time
from collections.abc import AsyncIterator, Sequence

import pytest

from shbot.bot import callbacks as cb
from shbot.bot import render as r
from shbot.bot.render import picture
from shbot.engine import Game, Phase
from shbot.i18n import translator
from shbot.players.agents import RandomAgent
from shbot.storage import Store
from shbot.table import lobby as table_lobby
from shbot.table import play as table_play
from shbot.table.model import Player, Table
from tests.botplay import (
    Bot,
    Turn,
    find_seed,
    next_turn,
    open_game,
    play_planned,
    press_move,
    running_bot,
)
from tests.fake_telegram import FakeChat, StoredMessage
from tests.harness import (
    LATE,
    NOT_TURN,
    FakeUser,
    in_capitals,
    make_user,
    make_users,
    refused,
)

FSI, PDI = "\u2068", "\u2069"
EN = translator("en")
_queries = itertools.count(1)


@pytest.fixture
async def bot(store: Store) -> AsyncIterator[Bot]:
    """The bot as ``run_polling`` starts it (``post_init`` learns its username)."""
    async with running_bot(store) as running:
        await running.app.post_init(running.app)
        yield running


async def snapshot(bot: Bot, group: FakeChat) -> tuple[int, object] | None:
    await bot.settle()  # delivery bookkeeping of earlier changes is part of them
    record = await bot.record(group)
    return None if record is None else (record.version, record.data)


async def turn_of(bot: Bot, group: FakeChat, users: Sequence[FakeUser]) -> Turn:
    turn = await next_turn(bot, group, {u.id: u for u in users})
    assert turn is not None
    return turn


async def callback(
    bot: Bot, user: FakeUser, chat_id: int, message_id: int, data: str, query_id: str
) -> None:
    """A callback query with a given id (Telegram may deliver the same one twice)."""
    chat = bot.fake.chats[chat_id]
    bot.fake.register_callback_query(query_id, user.id)
    await bot.h.feed(
        {
            "callback_query": {
                "id": query_id,
                "from": user.to_dict(),
                "message": bot.fake.message(chat_id, message_id).to_dict()
                if message_id
                else {"chat": chat.to_dict(), "message_id": 1, "date": 0},
                "chat_instance": "1",
                "data": data,
            }
        }
    )


# ------------------------------------------------------------------------------ the board

# The Fascist track as printed on the three boards (R9), independent of the engine's tables.
FASCIST_SLOTS = {
    5: "⬜⬜👁💀💀🏁",
    6: "⬜⬜👁💀💀🏁",
    7: "⬜🔍🗳💀💀🏁",
    8: "⬜🔍🗳💀💀🏁",
    9: "🔍🔍🗳💀💀🏁",
    10: "🔍🔍🗳💀💀🏁",
}
_SEAT_LINE = re.compile(r"^(\d+)\. \u2068(.*)\u2069 ?(\S*)$")


def board_seat_marks(board: StoredMessage) -> dict[int, str]:
    marks = {}
    for line in board.plain_text.splitlines():
        m = _SEAT_LINE.match(line)
        if m:
            marks[int(m.group(1)) - 1] = m.group(3)
    return marks


def expected_marks(game: Game) -> dict[int, str]:
    """The board marks the seats' fates only; who governs and term limits are in the round
    message (:func:`check_round`), which changes at every step anyway."""
    return {
        seat: "💀" if not game.alive[seat] else "✅" if game.confirmed[seat] else ""
        for seat in range(game.n)
    }


def check_board(board: StoredMessage, game: Game, names: Sequence[str] = ()) -> None:
    """The text board states the tracks and the seats' fates; the picture draws them (and
    the piles, who governs): its caption is only the key (issue 24)."""
    text = board.plain_text
    if board.photo is not None:
        assert board.image == picture.render(picture.facts(game.public_view(), names))
        assert "Liberal policies" not in text and "Draw pile" not in text, text
        assert "1 \u2068" in text, "the caption names the seats by number"
        return
    lib, fas = game.liberal, game.fascist
    assert f"Liberal policies: {'🔵' * lib}{'⬜' * (5 - lib)} {lib}/5" in text, text
    track = "🔴" * fas + FASCIST_SLOTS[game.n][fas:]
    assert f"Fascist policies: {track} {fas}/6" in text, text
    dots = "●" * game.tracker + "○" * (3 - game.tracker)
    assert f"Election tracker: {dots} {game.tracker}/3" in text, text
    assert "Draw pile" not in text, "the piles change at every session: the round shows them"
    assert board_seat_marks(board) == expected_marks(game), text


POWER_NAMES = {
    "🔍": "🔍 Investigate Loyalty",
    "🗳": "🗳 Special Election",
    "👁": "👁 Policy Peek",
    "💀": "💀 Execution",
    "⬜": "no power",
    "🏁": "🏁 Fascists win",
}


def round_message(bot: Bot, group: FakeChat, table: Table) -> StoredMessage:
    assert table.game is not None
    return bot.fake.message(group.id, table.shown[f"round:{table.game.round}"])


def check_round(message: StoredMessage, table: Table) -> None:
    """The round message carries the board at a glance and who governs: policies, tracker,
    the next Fascist power, the piles, the candidates, term limits during a nomination."""
    game = table.game
    assert game is not None
    text, names = message.plain_text, table.names()
    lib, fas = game.liberal, game.fascist
    glance = f"🔵 {lib}/5 · 🔴 {fas}/6 · Tracker: {game.tracker}/3 · "
    glance += f"Next 🔴: {POWER_NAMES[FASCIST_SLOTS[game.n][fas]]} · "
    glance += f"Draw pile: {len(game.draw)} · Discard pile: {len(game.discard)}"
    assert glance in text.splitlines(), text
    assert f"Presidential candidate: {FSI}{names[game.president]}{PDI}" in text, text
    # Never the presidential candidate herself (she already heads the round message).
    limited = [f"{FSI}{names[s]}{PDI}" for s in game.term_limited() if s != game.president]
    if game.phase is Phase.NOMINATE and limited:
        assert f"⛔ Term-limited: {', '.join(limited)}" in text.splitlines(), text
    else:
        assert "⛔" not in text, text
    if game.phase is not Phase.NOMINATE:
        assert f"{FSI}{names[game.chancellor]}{PDI}" in text, text


@pytest.mark.parametrize("players", [5, 7, 9])
async def test_new_board_shows_tracks_powers_and_seats(bot: Bot, players: int) -> None:
    users = make_users(players)
    group = await open_game(bot, users, seed=find_seed(players, first_president=1))
    table = await bot.table(group)
    assert table is not None and table.game is not None
    board = bot.fake.message(group.id, table.shown["board"])
    check_board(board, table.game, table.names())
    legends = {5: "👁 Policy Peek · 💀 Execution", 9: "🔍 Investigate Loyalty · 🗳 Special"}
    assert legends.get(players, "🔍 Investigate Loyalty · 🗳 Special Election") in board.plain_text
    assert [b["text"] for b in board.buttons()] == ["🂠 My role"]
    # The round message shows the rest: seat 1 is the candidate, the full piles.
    current = round_message(bot, group, table)
    check_round(current, table)
    assert f"Presidential candidate: {FSI}{users[1].first_name}{PDI}" in current.plain_text
    assert "Draw pile: 17 · Discard pile: 0" in current.plain_text


def board_view(game: Game) -> tuple[object, ...]:
    return (game.liberal, game.fascist, game.tracker, list(game.alive), list(game.confirmed))


async def test_board_is_kept_current_by_edits(bot: Bot) -> None:
    """A 9-player game with every mark: term limits, executions, confirmed not Hitler. The
    board is edited when what it shows changes while it is on screen (Round 1's message
    under it) and at the end; the round messages show the rest, and the changes."""
    users = make_users(9)
    group = bot.h.group(creator=users[0], members=users[1:])
    await bot.store.update_group(group.id, {"board": "text"})  # the picture: test_bot_picture
    seen: set[str] = set()
    board_ids: set[int] = set()
    views: list[tuple[object, ...]] = []
    rounds: set[str] = set()

    async def check(turn: Turn) -> None:
        board = bot.fake.message(group.id, turn.table.shown["board"])
        board_ids.add(board.message_id)
        if turn.game.round == 1:  # later a newer round's message stands under the board
            check_board(board, turn.game, turn.table.names())
        seen.update(board_seat_marks(board).values())
        current = round_message(bot, group, turn.table)
        check_round(current, turn.table)
        rounds.add(current.plain_text)
        views.append(board_view(turn.game))

    played = await play_planned(
        bot,
        users,
        ["F", "F", "F", "F", "L", "F"],
        targets=[1, 2, 3, 4, "H"],
        hitler=7,
        group=group,
        before=check,
    )
    assert played.game.is_over
    assert len(board_ids) == 1, "the board is one message, edited"
    board = bot.fake.message(played.group.id, played.table.shown["board"])
    seen.update(board_seat_marks(board).values())  # the final board
    marks = {c for m in seen for c in m}
    assert {"✅", "💀"} <= marks, seen
    assert any("⛔ Term-limited: " in text for text in rounds), "term limits were shown"
    board = bot.fake.message(played.group.id, played.table.shown["board"])
    views.append(board_view(played.game))
    changes = sum(a != b for a, b in itertools.pairwise(views))
    assert changes >= 8, views
    # Edited for a change while on screen (under Round 1's message only) and at the end;
    # meanwhile each round message's glance line shows the changes (check_round).
    assert 1 <= board.edit_count <= 2 < changes
    check_board(board, played.game, played.table.names())
    assert board.buttons() == [], "the final board has no live button"
    bot.h.assert_no_errors()


@pytest.mark.parametrize("players", [5, 7, 10])
def test_board_is_owed_exactly_when_its_text_changes(players: int) -> None:
    """The table layer owes the board for a change that shows on it, and for no other (so
    nominations, votes and hands never cost the group an edit); and at the end, when its
    "My role" button goes."""
    rng = random.Random(players)
    for seed in range(8):
        table = table_lobby.new_lobby(Player(1, "P1", ready=True))
        for uid in range(2, players + 1):
            table_lobby.join(table, Player(uid, f"P{uid}", ready=True))
        table_lobby.start(table, 1, False, seed, {})
        owed = changed = 0
        while table.game is not None and not table.game.is_over:
            game = table.game
            before = r.board_text(EN, table)
            table.owed.clear()
            action = RandomAgent(rng).act(game, game.to_act()[0])
            table_play.advance(table, action)
            is_owed = "board" in table.owed
            differs = r.board_text(EN, table) != before
            assert is_owed == (differs or game.is_over), (seed, game.round, game.phase)
            owed += is_owed
            changed += differs
        assert changed >= 3 and owed <= changed + 1


async def test_board_command_posts_it_again_and_edits_go_there(bot: Bot) -> None:
    users = make_users(5)
    group = bot.h.group(creator=users[0], members=users[1:])
    await bot.store.update_group(group.id, {"board": "text"})  # the picture: test_bot_picture
    group = await open_game(bot, users, group=group, seed=find_seed(5, start=5))
    table = await bot.table(group)
    assert table is not None
    old_board = bot.fake.message(group.id, table.shown["board"])
    await bot.h.command(users[3], group, "/board")
    await bot.settle()
    new_board = bot.h.last(group)
    assert new_board.message_id > old_board.message_id
    assert new_board.text == old_board.text and new_board.buttons() == old_board.buttons()
    turn = await turn_of(bot, group, users)
    await press_move(bot, turn, cb.NOMINATE, turn.args(cb.NOMINATE)[0])
    assert bot.fake.message(group.id, new_board.message_id).edit_count == 0, (
        "a nomination does not change the board"
    )
    while (turn := await turn_of(bot, group, users)).phase is Phase.VOTE:
        await press_move(bot, turn, cb.VOTE, "0")  # everybody says Nein!: the tracker moves
    new_board = bot.fake.message(group.id, new_board.message_id)
    table = await bot.table(group)
    assert table is not None and table.game is not None and table.game.tracker == 1
    assert table.shown["board"] == new_board.message_id
    check_board(new_board, table.game, table.names())
    assert "Election tracker: ●○○ 1/3" in new_board.plain_text
    assert "Election tracker: ○○○ 0/3" in old_board.plain_text, "the old board stays"
    assert old_board.edit_count == 0


def mentions(text: str) -> list[int]:
    """The user ids mentioned in an HTML text (text mentions notify the person)."""
    return [int(uid) for uid in re.findall(r'<a href="tg://user\?id=(\d+)">', text)]


async def test_only_the_person_who_must_act_is_mentioned_and_narration_is_silent(
    bot: Bot,
) -> None:
    users = make_users(5)
    group = await open_game(bot, users, seed=find_seed(5, first_president=2))
    turn = await turn_of(bot, group, users)
    president = turn.table.at(2).id
    assert mentions(turn.message.text) == [president], turn.message.text
    mention = f'<a href="tg://user?id={president}">{FSI}<b>{users[2].first_name}</b>{PDI}</a>'
    assert f"👉 {mention}, nominate a Chancellor:" in turn.message.text
    await press_move(bot, turn, cb.NOMINATE, turn.args(cb.NOMINATE)[0])
    table = await bot.table(group)
    assert table is not None and table.game is not None
    chancellor = table.at(table.game.chancellor).id
    # A vote waits for everybody: nobody is mentioned, the waiting line names them.
    assert mentions(round_message(bot, group, table).text) == []
    while (turn := await turn_of(bot, group, users)).phase is Phase.VOTE:
        await press_move(bot, turn, cb.VOTE, "1")
    table = turn.table
    assert turn.phase is Phase.PRESIDENT_DISCARD
    assert mentions(round_message(bot, group, table).text) == [president]
    await press_move(bot, turn, cb.DISCARD, turn.args(cb.DISCARD)[0])
    table = await bot.table(group)
    assert table is not None
    assert mentions(round_message(bot, group, table).text) == [chancellor]
    # Everything the group was sent is silent; private prompts ring the phone.
    sends = bot.fake.calls_to("sendMessage")
    group_sends = [c for c in sends if c.chat_id == group.id]
    assert group_sends and all(c.params.get("disable_notification") is True for c in group_sends)
    prompts = [
        c for c in sends if c.chat_id == president and "You are President" in c.params["text"]
    ]
    assert prompts and all(c.params.get("disable_notification") is False for c in prompts)
    bot.h.assert_no_errors()


async def test_round_message_shows_the_deadline_in_each_readers_time(store: Store) -> None:
    async with running_bot(store, timers="short") as bot:
        users = make_users(5)
        group = await open_game(bot, users, seed=find_seed(5, first_president=0))
        deadlines = []
        for step in range(2):  # the nomination, then the vote: each step its own deadline
            table = await bot.table(group)
            assert table is not None and table.deadline is not None
            message = round_message(bot, group, table)
            unix = int(table.deadline)
            utc = time.strftime("%H:%M:%S", time.gmtime(unix))
            assert f'⏰ until <tg-time unix="{unix}" format="T">{utc} UTC</tg-time>' in message.text
            assert f" · ⏰ until {utc} UTC\n" in message.plain_text, message.plain_text
            deadlines.append(table.deadline)
            if step == 0:
                turn = await turn_of(bot, group, users)
                await press_move(bot, turn, cb.NOMINATE, turn.args(cb.NOMINATE)[0])
        assert deadlines[1] > deadlines[0]
        bot.h.assert_no_errors()


# ------------------------------------------------------------------------------ nomination


async def test_nomination_by_someone_else_is_refused(bot: Bot) -> None:
    users = make_users(6)
    group = await open_game(bot, users, seed=find_seed(6, first_president=2))
    turn = await turn_of(bot, group, users)
    assert turn.seat == 2 and turn.phase is Phase.NOMINATE
    before = await snapshot(bot, group)
    edits = bot.fake.count(chat_id=group.id, ok=None)
    data = cb.game_data(turn.table.gid, turn.table.step, cb.NOMINATE, turn.args(cb.NOMINATE)[0])
    for user in (users[0], users[3], make_user("Stranger")):
        query = await bot.h.press(user, turn.message, data=data)
        answer = bot.h.answer(query)
        assert refused(answer) and answer.text in (
            f"It's {FSI}{users[2].full_name}{PDI}'s turn, not yours.",
            "You are not playing in this game.",
        )
        assert len(answer.text) <= 40 + len(users[2].full_name), "a short answer"
    await bot.settle()
    assert await snapshot(bot, group) == before
    assert bot.fake.count(chat_id=group.id, ok=None) == edits, "nothing changed in the group"


# ------------------------------------------------------------------------------ votes


async def test_votes_are_secret_until_the_last_one_and_can_change(bot: Bot) -> None:
    h = bot.h
    users = make_users(5)
    group = await open_game(bot, users, seed=find_seed(5, first_president=0))
    turn = await turn_of(bot, group, users)
    await press_move(bot, turn, cb.NOMINATE, "1")
    turn = await turn_of(bot, group, users)
    assert turn.phase is Phase.VOTE
    round_msg = turn.message
    gid, step = turn.table.gid, turn.table.step

    def vote(ja: bool) -> str:
        return cb.game_data(gid, step, cb.VOTE, 1 if ja else 0)

    async def press_vote(user: FakeUser, ja: bool) -> str:
        query = await h.press(user, round_msg, data=vote(ja))
        await bot.settle()
        return query

    query = await press_vote(users[0], True)
    answer = h.answer(query)
    assert not refused(answer)
    assert answer.text == "Your vote: Ja! You can change it until everyone has voted."
    names = [f"{FSI}{u.first_name}{PDI}" for u in users]
    message = bot.fake.message(group.id, round_msg.message_id)
    text_one = message.text
    # Who voted shows (never how): the voter, then everyone the vote still waits for.
    assert f"🗳 1/5: ☑️ {names[0]} · ⏳ {', '.join(names[1:])}" in message.plain_text.splitlines()
    # Changing the vote is confirmed and shows nothing new in the group.
    query = await press_vote(users[0], False)
    assert h.answer(query).text == "Your vote: Nein! You can change it until everyone has voted."
    assert bot.fake.message(group.id, round_msg.message_id).text == text_one
    before = await snapshot(bot, group)
    query = await press_vote(users[0], False)  # the same vote again: confirmed, no change
    assert not h.refused(query) and "Nein!" in (h.answer(query).text or "")
    assert await snapshot(bot, group) == before
    # A non-player cannot vote.
    query = await press_vote(make_user("Stranger"), True)
    assert h.answer(query).text == "You are not playing in this game."
    assert await snapshot(bot, group) == before

    for user, ja in zip(users[1:4], (True, False, True), strict=True):
        await press_vote(user, ja)
    message = bot.fake.message(group.id, round_msg.message_id)
    assert f"🗳 4/5: ☑️ {', '.join(names[:4])} · ⏳ {names[4]}" in message.plain_text.splitlines()
    for version in [*message.history, message.text]:
        assert "Ja! (" not in version and "Nein! (" not in version, version
    # The message says the same whoever voted what: one more change leaves it as it was.
    await press_vote(users[2], True)
    assert bot.fake.message(group.id, round_msg.message_id).text == message.text

    await press_vote(users[4], True)  # the last living player: the reveal
    message = bot.fake.message(group.id, round_msg.message_id)
    # Ballots now: 0 Nein, 1 Ja, 2 Ja (changed), 3 Ja, 4 Ja.
    assert f"Ja! (4): {', '.join(names[1:])}" in message.plain_text
    assert f"Nein! (1): {names[0]}" in message.plain_text
    assert "✅ The government is elected." in message.plain_text
    assert message.buttons() == [], "no vote buttons after the reveal"
    # A late press on the closed vote is refused with a clear alert.
    before = await snapshot(bot, group)
    query = await h.press_raw(users[0], group.id, round_msg.message_id, vote(True))
    text = h.answer(query).text or ""
    assert h.refused(query) and LATE.fullmatch(text) and text.endswith("are in session now."), text
    assert await snapshot(bot, group) == before
    h.assert_no_errors()


async def test_private_steps_are_edited_to_what_was_done(bot: Bot) -> None:
    users = make_users(5)
    played = await play_planned(bot, users, ["F", "L", "x", "F", "F", "F"], targets=["H"], hitler=3)
    prompts = 0
    for user in played.users:
        messages = bot.fake.messages(user.id)
        for message in messages:
            if not message.history:
                continue
            prompts += 1
            assert message.text != message.history[0]
            if message.buttons():  # a claim prompt nobody answered, scrolled away at the end
                assert message is not messages[-1], f"buttons left on {message.text!r}"
                assert all(
                    cb.parse(b["callback_data"]).op == cb.CLAIM  # type: ignore[union-attr]
                    for b in message.buttons()
                ), message.text
                assert "🗣 Round " in message.text and message.text.endswith("?")
            elif "🗣" in message.text:  # a claim prompt nobody answered, closed at the end
                assert message.text.endswith("the game ended before you made a claim.")
            if message.text.startswith("🗣"):  # a peek's claim prompt
                continue
            assert message.text.startswith(("🎩 You discarded", "👔 You enacted", "💀 You exec"))
    # Four elected governments (two prompts each) and one execution.
    assert prompts >= 2 * 4 + 1
    bot.h.assert_no_errors()


# ------------------------------------------------------------------------------ wrong presses

CLEAR_ALERTS = {
    "This button is not valid.",
    "This step is already over.",
    "This button belongs to a game that is over.",
    "It's not your turn.",
    "You are not playing in this game.",
}


async def denied(
    bot: Bot, groups: Sequence[FakeChat], user: FakeUser, chat_id: int, message_id: int, data: str
) -> str:
    """Press forged/stale ``data``: an alert, and no game or chat changes."""
    before = [await snapshot(bot, g) for g in groups]
    calls = len(bot.fake.calls)
    query = await bot.h.press_raw(user, chat_id, message_id, data)
    await bot.settle()
    answer = bot.h.answer(query)
    assert refused(answer), f"{data!r}: no alert ({answer.text!r})"
    text = answer.text or ""
    assert text in CLEAR_ALERTS or LATE.fullmatch(text) or NOT_TURN.fullmatch(text), (
        f"{data!r}: unclear answer {text!r}"
    )
    assert [await snapshot(bot, g) for g in groups] == before, f"{data!r} changed a game"
    others = [c.method for c in bot.fake.calls[calls:] if c.method != "answerCallbackQuery"]
    assert others == [], f"{data!r} made the bot call {others}"
    return answer.text


@pytest.fixture(params=["random", "digits"])
def game_ids(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Game ids as the bot makes them (random hex), and ids of digits only (about one game
    in 43 has one: the forged ids built from them must still be forged)."""
    if request.param == "digits":
        ids = (f"{n:08d}" for n in itertools.count(254340, 7))
        monkeypatch.setattr(table_lobby, "new_game_id", lambda: next(ids))


@pytest.mark.usefixtures("game_ids")
async def test_stale_foreign_forged_and_out_of_turn_presses_change_nothing(bot: Bot) -> None:
    users_a, users_b = make_users(5), make_users(5)
    group_a = await open_game(bot, users_a, seed=find_seed(5, first_president=0))
    group_b = await open_game(bot, users_b, seed=find_seed(5, first_president=0, start=99))
    groups = [group_a, group_b]
    # Game A: nominate and elect, so the President holds the hand in private.
    turn = await turn_of(bot, group_a, users_a)
    nomination = (turn.table.step, turn.message.message_id)
    await press_move(bot, turn, cb.NOMINATE, "1")
    vote_turn = await turn_of(bot, group_a, users_a)
    for _ in range(5):
        vote_turn = await turn_of(bot, group_a, users_a)
        if vote_turn.phase is not Phase.VOTE:
            break
        await press_move(bot, vote_turn, cb.VOTE, "1")
    hand = await turn_of(bot, group_a, users_a)
    assert hand.phase is Phase.PRESIDENT_DISCARD and hand.seat == 0
    gid, step = hand.table.gid, hand.table.step
    president, chancellor = users_a[0], users_a[1]
    pmsg = hand.message.message_id
    texts = set()

    # Stale: the nomination and vote buttons of earlier steps.
    stale = cb.game_data(gid, nomination[0], cb.NOMINATE, 2)
    texts.add(await denied(bot, groups, president, group_a.id, nomination[1], stale))
    stale_vote = cb.game_data(gid, step - 1, cb.VOTE, 0)
    texts.add(await denied(bot, groups, users_a[3], group_a.id, nomination[1], stale_vote))
    # A future step, and the right step with another player's hand.
    texts.add(await denied(bot, groups, president, president.id, pmsg, f"{gid}:{step + 1}:d:L"))
    texts.add(await denied(bot, groups, chancellor, chancellor.id, 0, f"{gid}:{step}:d:F"))
    texts.add(await denied(bot, groups, chancellor, chancellor.id, 0, f"{gid}:{step}:e:F"))
    # Foreign: game B's buttons pressed in game A's group, and A's in B's.
    turn_b = await turn_of(bot, group_b, users_b)
    data_b = cb.game_data(turn_b.table.gid, turn_b.table.step, cb.NOMINATE, 1)
    texts.add(await denied(bot, groups, users_a[0], group_a.id, nomination[1], data_b))
    texts.add(await denied(bot, groups, users_b[0], group_b.id, turn_b.message.message_id, stale))
    texts.add(await denied(bot, groups, president, president.id, pmsg, f"{turn_b.table.gid}:1:d:L"))
    # Forged or malformed data.
    for data in [
        "x",
        "0",
        "@rules:nope",
        "@lang:gzz",
        "@foo:bar",
        f"{gid}:{step}:zz",
        f"{gid}:{step}:d:Q",
        f"{gid}:{step}:d",
        f"{gid}:{step}:d:L:extra",
        f"{gid}:abc:d:L",
        f"{in_capitals(gid)}:{step}:d:L",
        "ü" * 30,
        "a" * 65,
        f"{gid}:{step}:p:7",
        f"{gid}:{step}:vp",
    ]:
        texts.add(await denied(bot, groups, president, president.id, pmsg, data))
    for data in [f"{gid}:{step}:v:7", f"{gid}:{step}:n:99", f"{gid}:{step}:n:-1", "@rules:"]:
        texts.add(await denied(bot, groups, users_a[2], group_a.id, nomination[1], data))
    # Out of turn: a player who is not in this game, and the Chancellor pressing the hand.
    stranger = make_user("Stranger")
    texts.add(await denied(bot, groups, stranger, group_a.id, nomination[1], stale_vote))
    texts.add(await denied(bot, groups, chancellor, chancellor.id, 0, f"{gid}:{step}:d:L"))
    assert "This button is not valid." in texts
    assert any(LATE.fullmatch(text) for text in texts), texts
    assert "This button belongs to a game that is over." in texts
    assert any(NOT_TURN.fullmatch(text) for text in texts), texts

    # The genuine button still works after all that.
    hand = await turn_of(bot, group_a, users_a)
    await press_move(bot, hand, cb.DISCARD, hand.args(cb.DISCARD)[0])
    after = await bot.table(group_a)
    assert after is not None and after.game is not None
    assert after.game.phase is Phase.CHANCELLOR_ENACT
    bot.h.assert_no_errors()


async def test_the_same_callback_delivered_twice_is_applied_once(bot: Bot) -> None:
    users = make_users(5)
    group = await open_game(bot, users, seed=find_seed(5, first_president=0))
    turn = await turn_of(bot, group, users)
    await press_move(bot, turn, cb.NOMINATE, "1")
    turn = await turn_of(bot, group, users)
    gid, step, mid = turn.table.gid, turn.table.step, turn.message.message_id
    ja, nein = cb.game_data(gid, step, cb.VOTE, 1), cb.game_data(gid, step, cb.VOTE, 0)
    first = f"dup{next(_queries)}"
    await callback(bot, users[3], group.id, mid, ja, first)
    await callback(bot, users[3], group.id, mid, nein, f"dup{next(_queries)}")
    before = await snapshot(bot, group)
    await callback(bot, users[3], group.id, mid, ja, first)  # Telegram redelivers the Ja!
    await bot.settle()
    assert await snapshot(bot, group) == before, "a redelivered press was applied again"
    table = await bot.table(group)
    assert table is not None and table.game is not None
    assert table.game.votes[3] == 0, "the later Nein! stands"
    assert len([a for a in bot.fake.answers if a.query_id == first]) == 1
    bot.h.assert_no_errors()
