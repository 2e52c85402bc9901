"""Playing from the Mini App (issue 34, part 2), through its API: each kind of step pressed
on the page shows in the group and the private chats exactly what the chat's button shows,
with the same answer; a forged, stale, out-of-turn or foreign press gets the button's
refusal and changes nothing; the view offers a viewer only their own buttons."""

from __future__ import annotations

import json
from typing import Any

import httpx

from shbot.bot import callbacks as cb
from shbot.bot import render as r
from shbot.engine import Phase
from shbot.i18n import translator
from shbot.storage import Store, open_store
from shbot.table import Table
from tests.botplay import Bot, RandomPlay, next_turn, open_game, press_move
from tests.fake_telegram import FakeChat
from tests.harness import FakeUser, make_user, make_users
from tests.webapp_bot import base_url, signed, state, webapp, webapp_bot
from tests.webapp_play import (
    api_press,
    group_transcript,
    holding,
    play_scripted,
    played_with_buttons,
    post_act,
    private_transcript,
    said,
)

EN = translator("en")
EVERY_KIND = {
    "role",
    "claim",
    "nominate",
    "vote",
    "president_discard",
    "chancellor_enact",
    "veto",
    "veto_answer",
    "investigate",
    "special_election",
    "execution",
}


async def test_a_whole_game_pressed_on_the_page_shows_what_the_buttons_show(
    store: Store, tmp_path: Any
) -> None:
    users = make_users(7)
    buttons, by_buttons, privately = await played_with_buttons(store, users)
    other = open_store(sqlite_path=str(tmp_path / "page.sqlite3"))
    try:
        async with webapp_bot(other) as bot:
            page = await play_scripted(bot, users, api_press(bot))
            assert group_transcript(bot, page) == by_buttons
            for user in users:
                assert private_transcript(bot, page, user) == privately[user.id], user
            # A private prompt done on the page was closed as for its button: no hand, veto
            # question or power prompt keeps a button of the game.
            for user in users:
                for message in bot.fake.messages(user.id):
                    ops = {
                        p.op
                        for b in message.buttons()
                        if isinstance(p := cb.parse(b.get("callback_data")), cb.GamePress)
                    }
                    assert not ops & {cb.DISCARD, cb.ENACT, cb.VETO, cb.VETO_ANSWER, cb.TARGET}
            bot.h.assert_no_errors()
    finally:
        await other.close()
    assert page.kinds == buttons.kinds == EVERY_KIND
    assert said(page) == said(buttons)  # every answer, word for word
    role = said(page)[0]
    assert role[2] and "You are" in str(role[1])  # "My role": the pop-up's text


async def chat_answer(bot: Bot, user: FakeUser, group: FakeChat, data: str) -> str | None:
    """What the chat's button with ``data`` (pressed under the group's newest message)
    answers ``user``."""
    query = await bot.h.press_raw(user, group.id, bot.fake.last(group.id).message_id, data)
    await bot.settle()
    return bot.h.answer(query).text


async def watched_game(bot: Bot) -> tuple[list[FakeUser], FakeUser, FakeChat, Table]:
    """A 5-player game whose group has a member who does not play (Wanda)."""
    users = make_users(5)
    watcher = make_user("Wanda")
    group = bot.h.group(creator=users[0], members=[*users[1:], watcher])
    await open_game(bot, users, group=group)
    table = await bot.table(group)
    assert table is not None and table.game is not None
    return users, watcher, group, table


async def test_a_refused_press_is_refused_alike_and_changes_nothing(store: Store) -> None:
    async with webapp_bot(store) as bot:
        users, watcher, group, table = await watched_game(bot)
        game = table.game
        president = next(u for u in users if table.seat_of(u.id) == game.president)
        other = next(u for u in users if u is not president)
        nominee = game.eligible_chancellors()[0]
        gid, step = table.gid, table.step
        cases = [
            (other, cb.game_data(gid, step, cb.NOMINATE, nominee)),  # out of turn
            (president, cb.game_data(gid, step + 5, cb.NOMINATE, nominee)),  # stale
            (president, cb.game_data("zzzz9", step, cb.NOMINATE, nominee)),  # another game
            (president, f"{gid}:{step}:n:99"),  # forged: no such seat
            (president, f"{gid}:{step}:v:7"),  # forged: no such ballot
            (watcher, cb.game_data(gid, step, cb.VOTE, 1)),  # foreign: a member not playing
            (president, cb.game_data(gid, step, cb.DISCARD, "L")),  # not this step's button
        ]
        before = await bot.record(group)
        assert before is not None
        for user, data in cases:
            response = await post_act(bot, user, data, group.id)
            assert response.status_code == 200
            answer = response.json()
            assert answer["ok"] is False, data
            assert answer["text"] == await chat_answer(bot, user, group, data), data
            assert answer["text"]
        forged = await post_act(bot, president, "not a button", group.id)
        assert forged.json() == {
            "ok": False,
            "text": EN._("This button is not valid."),
            "alert": True,
        }
        after = await bot.record(group)
        assert after is not None and after.version == before.version, "nothing changed"
        # A stranger to the group cannot press at all (nor learn anything from a refusal).
        stranger = make_user("Sam")
        response = await post_act(bot, stranger, cb.game_data(gid, step, cb.VOTE, 1), group.id)
        assert response.status_code == 403
        # The same press sent twice by the page (a retry) is applied once.
        data = cb.game_data(gid, step, cb.NOMINATE, nominee)
        first = await post_act(bot, president, data, group.id, "again")
        again = await post_act(bot, president, data, group.id, "again")
        assert first.json()["ok"] and again.json() == {"ok": True, "text": None, "alert": False}
        table = await bot.table(group)
        assert table is not None and table.game is not None and table.game.phase is Phase.VOTE
        assert table.step == step + 1


async def test_bad_bodies_and_floods_are_refused_before_any_work(store: Store) -> None:
    async with webapp_bot(store) as bot:
        users = make_users(5)
        group = await open_game(bot, users)
        init = signed(bot, users[0])
        url = f"{base_url(bot)}/api/act"
        async with httpx.AsyncClient() as client:
            for body in (b"", b"{", b'{"data": 5, "id": "a"}', b'{"data": "x", "id": "a b"}'):
                response = await client.post(
                    url,
                    params={"chat": str(group.id)},
                    headers={"Authorization": f"tma {init}"},
                    content=body,
                )
                assert response.status_code == 400, body
                assert response.json()["text"] == EN._("This button is not valid.")
            unsigned = await client.post(url, params={"chat": str(group.id)}, content=b"{}")
            assert unsigned.status_code == 401
        before = await bot.record(group)
        web = webapp(bot)
        web.presses.clock = lambda: 0.0  # no token comes back during the burst
        codes = []
        for i in range(int(web.presses.burst) + 3):
            response = await post_act(bot, users[1], "x:1:n:1", group.id, f"f{i}")
            codes.append(response.status_code)
        assert codes == [200] * int(web.presses.burst) + [429] * 3
        assert response.json()["text"] == EN._(
            "Too many presses at once: this one changed nothing."
        )
        assert response.headers["Retry-After"]
        after = await bot.record(group)
        assert before is not None and after is not None and after.version == before.version


async def test_the_view_offers_each_viewer_the_chats_buttons_for_them(store: Store) -> None:
    async with webapp_bot(store) as bot:
        users, watcher, group, table = await watched_game(bot)
        president = next(u for u in users if table.seat_of(u.id) == table.game.president)

        def offered(view: dict[str, Any]) -> list[str]:
            return [b["data"] for p in view["actions"] for row in p["rows"] for b in row]

        round_message = bot.fake.last(group.id)
        nominate = [b["callback_data"] for b in round_message.buttons()]
        role = cb.game_data(table.gid, 0, cb.MY_ROLE)
        assert offered(await state(bot, president, group.id)) == [*nominate, role]
        for user in users:
            if user is not president:
                assert offered(await state(bot, user, group.id)) == [role]
        assert (await state(bot, watcher, group.id))["actions"] == []
        # The President's hand: their private message's buttons, on their page only.
        strategy = RandomPlay(1, ja=1.0)
        for _ in range(10):
            turn = await next_turn(bot, group, {u.id: u for u in users})
            assert turn is not None
            if turn.phase is Phase.PRESIDENT_DISCARD:
                break
            await press_move(bot, turn, *strategy.choose(turn))
        table = await bot.table(group)
        assert table is not None and table.game is not None
        hand = [b["callback_data"] for b in turn.message.buttons() if b.get("callback_data")]
        mine = await state(bot, turn.user, group.id)
        panel = next(p for p in mine["actions"] if p["kind"] == "private")
        assert [b["data"] for row in panel["rows"] for b in row] == hand
        assert panel["text"] == [r.president_hand_text(EN, table, table.game.hand)]
        for user in [*users, watcher]:
            if user is not turn.user:
                assert hand[0] not in json.dumps(await state(bot, user, group.id))
        assert holding(bot, turn.user.id, hand[0]) is not None


def test_a_person_a_computer_plays_for_gets_no_private_prompt_on_the_page() -> None:
    """As in the chat (``Table.owe``): their hand goes to the computer playing for them."""
    from shbot.table import PRIVATE_PHASES, prompt_seat
    from shbot.webapp.actions import panels
    from tests.webapp_games import simulate

    theirs = 0
    for table in simulate(7, 71):
        game = table.game
        assert game is not None
        seat = table.seat_of(1)  # the person; a computer stands in (webapp_games)
        if game.is_over or seat is None:
            continue
        assert "private" not in [p["kind"] for p in panels(EN, table, seat)]
        if game.phase in PRIVATE_PHASES and prompt_seat(game) == seat:
            theirs += 1
            table.standins.clear()  # playing their seat themselves: the prompt is theirs
            assert "private" in [p["kind"] for p in panels(EN, table, seat)]
    assert theirs > 0
