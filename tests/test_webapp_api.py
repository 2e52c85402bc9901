"""The Mini App's API through the real Application and the fake Bot API: who is signed
in, what each viewer gets (their own secret, never another's), the live stream, and the
Table buttons."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from shbot.bot import callbacks as cb
from shbot.i18n import translator
from shbot.storage import Store
from shbot.webapp import views
from shbot.webapp.auth import MAX_AGE, init_data
from tests.botplay import Bot, RandomPlay, Turn, next_turn, open_game, play, rewrite_game
from tests.harness import FakeUser, make_user, make_users
from tests.webapp_bot import (
    PUBLIC_URL,
    base_url,
    get_state,
    signed,
    state,
    text_of,
    webapp,
    webapp_bot,
)

EN = translator("en")


def flat(blocks: list[list[str]]) -> list[str]:
    return list(itertools.chain.from_iterable(blocks))


VIEW_KEYS = {"seats", "record", "secret", "board", "now"}


@pytest.fixture
async def wbot(store: Store) -> AsyncIterator[Bot]:
    async with webapp_bot(store) as running:
        yield running


def refusals(bot: Bot, user: FakeUser, other: FakeUser) -> dict[str, str | None]:
    """Every kind of initData the API must refuse (see tests/test_webapp_auth.py)."""
    good = signed(bot, user)
    fields = dict(httpx.QueryParams(good))
    forged = {**fields, "hash": "f" * 64}
    tampered = {**fields, "auth_date": str(int(time.time()) - 5)}
    replayed = {**fields, "user": json.dumps(other.to_dict())}
    no_hash = {k: v for k, v in fields.items() if k != "hash"}
    return {
        "missing": None,
        "empty": "",
        "forged hash": str(httpx.QueryParams(forged)),
        "tampered auth_date": str(httpx.QueryParams(tampered)),
        "replayed for another user": str(httpx.QueryParams(replayed)),
        "missing hash": str(httpx.QueryParams(no_hash)),
        "wrong token": init_data("999:" + "Z" * 35, user.to_dict()),
        "expired": signed(bot, user, auth_date=time.time() - MAX_AGE - 60),
        "from the future": signed(bot, user, auth_date=time.time() + 3600),
    }


async def test_refused_init_data_gets_a_reason_and_no_view(wbot: Bot) -> None:
    users = make_users(5)
    group = await open_game(wbot, users)
    for case, init in refusals(wbot, users[0], users[1]).items():
        response = await get_state(wbot, init, group.id, lang="fr")
        assert response.status_code == 401, case
        body = response.json()
        assert set(body) == {"error", "reason"}, case
        assert not VIEW_KEYS & set(body)
        assert "Telegram" in body["error"] or "expir" in body["error"], (case, body)
    assert (await get_state(wbot, signed(wbot, users[0]), group.id)).status_code == 200


async def test_each_player_gets_their_own_secret_and_nobody_elses(wbot: Bot) -> None:
    users = make_users(7)
    watcher, outsider = make_user("Watcher"), make_user("Outsider")
    group = wbot.h.group(creator=users[0], members=[*users[1:], watcher])
    await open_game(wbot, users, group=group)
    table = await wbot.table(group)
    assert table is not None and table.game is not None
    panels = {u.id: views.secret(EN, table, table.seat_of(u.id) or 0) for u in users}
    for user in users:
        seat = table.seat_of(user.id)
        got = await state(wbot, user, group.id)
        assert got["you"] == seat and got["status"] == "running"
        assert got["secret"] == panels[user.id]
        own = set(flat(panels[user.id]))
        for other in users:
            theirs = set(flat(panels[other.id])) - own
            assert not [line for line in theirs if line in text_of(got)], (user, other)
        assert not any("role" in s for s in got["seats"]), "a role before the end"
    watching = await state(wbot, watcher, group.id)
    assert watching["you"] is None and watching["secret"] is None
    assert watching["labels"]["watching"] == EN._(
        "You are watching this game: you do not play in it."
    )
    assert "secret role" not in text_of(watching)
    refused = await get_state(wbot, signed(wbot, outsider), group.id)
    assert refused.status_code == 403 and not VIEW_KEYS & set(refused.json())


async def test_a_player_of_one_game_cannot_see_another_groups_game(wbot: Bot) -> None:
    first, second = make_users(5), make_users(5)
    group_a = await open_game(wbot, first)
    group_b = await open_game(wbot, second)
    response = await get_state(wbot, signed(wbot, first[0]), group_b.id)
    assert response.status_code == 403
    assert response.json()["reason"] == "forbidden"
    own = await state(wbot, first[0], group_a.id)
    assert own["gid"] != (await state(wbot, second[0], group_b.id))["gid"]
    # ...nor by the start parameter of a link to that group.
    link = await get_state(wbot, signed(wbot, first[0], start_param=f"c{group_b.id}"))
    assert link.status_code == 403


async def test_the_game_is_found_from_the_link_or_the_players_own_game(wbot: Bot) -> None:
    users = make_users(5)
    watcher = make_user("Watcher")
    group = wbot.h.group(creator=users[0], members=[*users[1:], watcher])
    await open_game(wbot, users, group=group)
    mine = await state(wbot, users[2])  # no chat given: the game they play
    assert mine["you"] is not None and mine["secret"]
    via_link = await get_state(wbot, signed(wbot, watcher, start_param=f"c{group.id}"))
    assert via_link.status_code == 200 and via_link.json()["secret"] is None
    lost = await get_state(wbot, signed(wbot, make_user("Nobody", language_code="ja")))
    assert lost.status_code == 404
    assert lost.json()["error"] == translator("ja")._(
        "No game to show: open the table from a game's board or from your role message."
    )


async def test_a_practice_game_is_its_players_alone(wbot: Bot) -> None:
    player, other = make_user("Solo"), make_user("Other")
    await wbot.h.command(player, player, "/practice 5")
    await wbot.settle()
    got = await state(wbot, player, player.id)
    assert got["status"] == "running" and got["secret"]
    assert (await get_state(wbot, signed(wbot, other), player.id)).status_code == 403


async def test_the_board_and_the_role_message_carry_the_table_button(wbot: Bot) -> None:
    users = make_users(5)
    group = await open_game(wbot, users)
    username = wbot.fake.bot_username
    group_buttons = [b for m in wbot.fake.messages(group.id) for b in m.buttons()]
    assert not [b for b in group_buttons if "web_app" in b], "web_app buttons are private only"
    links = [b for b in group_buttons if b.get("url", "").startswith("https://t.me/")]
    assert {b["url"] for b in links} == {f"https://t.me/{username}?startapp=c{group.id}"}
    assert {b["text"] for b in links} == {EN._("📋 Table")}
    for user in users:
        role = [m for m in wbot.fake.messages(user.id) if m.text.startswith("🤫")]
        apps = [b["web_app"]["url"] for b in role[0].buttons() if "web_app" in b]
        assert apps == [f"{PUBLIC_URL}?chat={group.id}"]


async def test_no_table_button_without_the_setting(bot: Bot) -> None:
    users = make_users(5)
    group = await open_game(bot, users)
    shown = [m for chat in (group.id, users[0].id) for m in bot.fake.messages(chat)]
    assert not [
        b for m in shown for b in m.buttons() if "web_app" in b or "startapp" in b.get("url", "")
    ]
    assert "webapp" not in bot.app.bot_data


class Stream:
    """The server-sent events of one viewer, read as they come."""

    def __init__(self, response: httpx.Response) -> None:
        self.lines = response.aiter_lines()

    async def next(self, timeout: float = 5.0) -> dict[str, Any]:
        async with asyncio.timeout(timeout):
            async for line in self.lines:
                if line.startswith("data: "):
                    found: dict[str, Any] = json.loads(line[6:])
                    return found
        raise AssertionError("the stream ended")


async def test_the_stream_shows_each_press_within_a_second(wbot: Bot) -> None:
    users = make_users(5)
    group = await open_game(wbot, users)
    params = {"chat": str(group.id)}  # the signed data in a header, as the page sends it
    headers = {"Authorization": f"tma {signed(wbot, users[1])}"}
    by_id = {u.id: u for u in users}
    async with (
        httpx.AsyncClient(timeout=30) as client,
        client.stream(
            "GET", f"{base_url(wbot)}/api/events", params=params, headers=headers
        ) as response,
    ):
        assert response.headers["content-type"].startswith("text/event-stream")
        stream = Stream(response)
        first = await stream.next()
        assert first["phase"] == "nominate" and first["you"] is not None
        turn = await next_turn(wbot, group, by_id)
        assert turn is not None
        chancellor = turn.args(cb.NOMINATE)[0]
        started = time.monotonic()
        await wbot.h.press(turn.user, turn.message, data=button_data_for(turn, chancellor))
        shown = await stream.next(timeout=1.0)
        assert time.monotonic() - started < 1.0
        assert shown["phase"] == "vote"
        nominee = [s for s in shown["seats"] if s["gov"] == "nominee"]
        assert [s["n"] - 1 for s in nominee] == [int(chancellor or 0)]
        turn = await next_turn(wbot, group, by_id)
        assert turn is not None
        await wbot.h.press(turn.user, turn.message, data=vote_data(turn, "0"))
        voted = await stream.next(timeout=1.0)
        assert [s["voted"] for s in voted["seats"]].count(True) == 1
        assert "Nein" not in text_of(voted["now"]), "how someone voted shows before the reveal"


def button_data_for(turn: Turn, arg: str | None) -> str:
    return cb.game_data(turn.table.gid, turn.table.step, cb.NOMINATE, arg)


def vote_data(turn: Turn, arg: str) -> str:
    return cb.game_data(turn.table.gid, turn.table.step, cb.VOTE, arg)


async def test_a_whole_game_leaks_nothing_through_the_api(wbot: Bot) -> None:
    """At every step: each player's panel is theirs (as views.secret computes it from the
    stored table), a member who does not play gets no panel and no role; at the end every
    role is on the seats."""
    players = 7
    users = make_users(players)
    watcher = make_user("Watcher")
    group = wbot.h.group(creator=users[0], members=[*users[1:], watcher])
    await open_game(wbot, users, group=group)
    checked = 0
    turns = 0

    async def look(turn: Turn) -> None:
        nonlocal checked, turns
        turns += 1
        if turns % 2 and turn.phase.value == "vote":
            return  # every other ballot: the views change little within a vote
        table = turn.table
        for user in users:
            got = await state(wbot, user, group.id)
            seat = table.seat_of(user.id)
            assert got["secret"] == views.secret(EN, table, seat or 0)
        watching = await state(wbot, watcher, group.id)
        assert watching["secret"] is None
        assert not any("role" in s or "side" in s for s in watching["seats"])
        checked += 1

    played = await play(wbot, group, users, RandomPlay(players), before=look)
    assert checked > 5
    final = await state(wbot, watcher, group.id)
    assert final["status"] == "over"
    assert [s["side"] for s in final["seats"]].count("hitler") == 1
    assert played.table.gid == final["gid"]


async def test_the_page_and_its_files_are_served(wbot: Bot) -> None:
    async with httpx.AsyncClient() as client:
        page = await client.get(f"{base_url(wbot)}/")
        assert page.status_code == 200 and "static/app.js" in page.text
        for name in ("app.js", "app.css"):
            assert (await client.get(f"{base_url(wbot)}/static/{name}")).status_code == 200
        assert (await client.get(f"{base_url(wbot)}/static/../server.py")).status_code in (403, 404)
        assert (
            await client.get(f"http://127.0.0.1:{base_url(wbot).split(':')[2].split('/')[0]}/other")
        ).status_code == 404


async def test_the_lobby_shows_its_players_and_no_secret(wbot: Bot) -> None:
    users = make_users(5)
    group = await open_game(wbot, users, start=False)
    lobby = await state(wbot, users[1], group.id)
    assert lobby["status"] == "lobby" and lobby["secret"] is None and "board" not in lobby
    assert [s["name"] for s in lobby["seats"]] == [u.first_name for u in users]
    # An EventSource cannot send a header: the signed data may come as init= too.
    params = {"chat": str(group.id), "init": signed(wbot, users[1])}
    async with (
        httpx.AsyncClient(timeout=30) as client,
        client.stream("GET", f"{base_url(wbot)}/api/events", params=params) as response,
    ):
        assert (await Stream(response).next())["status"] == "lobby"


async def test_a_change_another_process_committed_reaches_the_stream(
    wbot: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Several bot processes (Redis): a commit elsewhere does not pass through this
    process's hook; the stream reads the store again each PING_SECONDS and shows it."""
    from shbot.webapp import server

    monkeypatch.setattr(server, "PING_SECONDS", 0.2)
    users = make_users(5)
    group = await open_game(wbot, users)
    headers = {"Authorization": f"tma {signed(wbot, users[0])}"}
    async with (
        httpx.AsyncClient(timeout=30) as client,
        client.stream(
            "GET", f"{base_url(wbot)}/api/events", params={"chat": str(group.id)}, headers=headers
        ) as response,
    ):
        stream = Stream(response)
        await stream.next()
        turn = await next_turn(wbot, group, {u.id: u for u in users})
        assert turn is not None
        await wbot.h.press(
            turn.user, turn.message, data=button_data_for(turn, turn.args(cb.NOMINATE)[0])
        )
        first = await stream.next()  # this process's commit: the hub holds its table now
        assert first["phase"] == "vote"
        await rewrite_game(wbot, group, lambda game: setattr(game, "tracker", 2))
        shown = await stream.next(timeout=3.0)
        assert shown["board"] != first["board"], "the tracker drawn anew"
        assert shown["board"] == (await state(wbot, users[1], group.id))["board"]


async def test_the_hub_forgets_a_chat_nobody_watches(wbot: Bot) -> None:
    users = make_users(5)
    group = await open_game(wbot, users)
    headers = {"Authorization": f"tma {signed(wbot, users[0])}"}
    hub = webapp(wbot).hub
    async with (
        httpx.AsyncClient(timeout=30) as client,
        client.stream(
            "GET", f"{base_url(wbot)}/api/events", params={"chat": str(group.id)}, headers=headers
        ) as response,
    ):
        await Stream(response).next()
        assert group.id in hub._watchers
    table = await wbot.table(group)
    assert table is not None
    for _ in range(100):  # the server sees the client gone at its next write or wake-up
        if group.id not in hub._watchers:
            break
        hub.changed(group.id, table)
        await asyncio.sleep(0.05)
    assert group.id not in hub._watchers and group.id not in hub.tables
