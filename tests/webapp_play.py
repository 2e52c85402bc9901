"""One seeded 7-player game, scripted so that it has every kind of step, played by presses
delivered one way or another: the chat's buttons (callback queries), the Mini App's API,
or the page in Chromium. Its group transcript (and each player's private one) can then be
compared between the ways: a press from the page must show exactly what the button shows.

The plan (:class:`tests.botplay.Plan`): Fascist policies bring investigate, special
election, execution and (with the fifth) a second execution and the veto; then a veto
proposed and accepted, then one proposed and refused; the sixth Fascist policy ends it.
Before the first move the first player presses "My role"; every claim prompt of the first
two rounds is answered with its first offer (the President's, the Chancellor's).
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from shbot.bot import callbacks as cb
from shbot.bot.render import claims as rc
from shbot.devtools.fake_records import StoredMessage
from shbot.engine import Phase
from shbot.i18n import translator
from shbot.storage import Store
from shbot.table import Table, claims
from tests.botplay import (
    Bot,
    Plan,
    _copy_hidden,
    find_seed,
    group_calls,
    next_turn,
    open_game,
    rewrite_game,
)
from tests.fake_telegram import FakeChat
from tests.harness import FakeUser, refused
from tests.webapp_bot import base_url, signed, webapp_bot

PLAYERS = 7
TOKENS = ("F", "F", "F", "F", "L", "F", "V", "RF")
CLAIM_ROUNDS = 2
EN = translator("en")

#: A press: (user, callback data, the message its button is under, the group) -> the
#: answer as the page shows it: {"ok", "text", "alert"}.
Press = Callable[[FakeUser, str, StoredMessage | None, FakeChat], Awaitable[dict[str, Any]]]


@dataclass
class Game:
    group: FakeChat
    table: Table
    answers: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (data, answer)
    kinds: set[str] = field(default_factory=set)  # the kinds of step pressed


def deal() -> int:
    return find_seed(PLAYERS, hitler=4, first_president=0, start=1)


def claim_data(table: Table, seat: int) -> str | None:
    """The first offer of the seat's oldest unanswered claim prompt of the first rounds."""
    for k, sight in claims.offered(table).items():
        rnd = claims.parse_key(k)[0]
        if int(sight[0]) != seat or rnd > CLAIM_ROUNDS:
            continue
        if claims.claim_of(table, k) or claims.held(table, k):
            continue
        keyboard = rc.prompt_keyboard(EN, table, k)
        assert keyboard is not None
        data = keyboard.inline_keyboard[0][0].callback_data
        assert isinstance(data, str)
        return data
    return None


def holding(bot: Bot, chat_id: int, data: str) -> StoredMessage | None:
    """The newest message in ``chat_id`` with a button of ``data``."""
    for message in reversed(bot.fake.messages(chat_id)):
        if any(b.get("callback_data") == data for b in message.buttons()):
            return message
    return None


def kind_of(phase: Phase, op: str) -> str:
    if op == cb.TARGET:
        return phase.value
    return {cb.VETO: "veto", cb.VETO_ANSWER: "veto_answer"}.get(op, phase.value)


async def play_scripted(bot: Bot, users: list[FakeUser], press: Press) -> Game:
    """Open, start and play the game to its end, every press through ``press``."""
    group = await open_game(bot, users, seed=deal())
    by_id = {u.id: u for u in users}
    strategy = Plan(TOKENS, seed=3)
    table = await bot.table(group)
    assert table is not None
    game = Game(group, table)
    role = cb.game_data(table.gid, 0, cb.MY_ROLE)
    game.answers.append((role, await press(users[0], role, holding(bot, group.id, role), group)))
    game.kinds.add("role")
    for _ in range(400):
        await bot.settle()
        table = await bot.table(group)
        if table is None:
            break
        assert table.game is not None
        for seat in range(PLAYERS):
            data = claim_data(table, seat)
            if data is None:
                continue
            user = by_id[table.at(seat).id]
            answer = await press(user, data, holding(bot, user.id, data), group)
            game.answers.append((data, answer))
            game.kinds.add("claim")
            await bot.settle()
        hidden = table.game.clone()
        if strategy.prepare(hidden):
            await rewrite_game(bot, group, lambda g, hidden=hidden: _copy_hidden(hidden, g))
        turn = await next_turn(bot, group, by_id)
        if turn is None:
            break
        op, arg = strategy.choose(turn)
        data = cb.game_data(turn.table.gid, turn.table.step, op, arg)
        game.kinds.add(kind_of(turn.phase, op))
        answer = await press(turn.user, data, turn.message, group)
        assert answer["ok"], (data, answer)
        game.answers.append((data, answer))
    else:
        raise AssertionError("the game did not end")
    await bot.settle()
    game.table = await bot.finished(group)
    return game


# ----------------------------------------------------------------------------- the presses


def chat_press(bot: Bot) -> Press:
    """Presses of the chat's buttons (callback queries)."""

    async def press(
        user: FakeUser, data: str, message: StoredMessage | None, group: FakeChat
    ) -> dict[str, Any]:
        assert message is not None, f"no message with the button {data}"
        query = await bot.h.press(user, message, data=data)
        await bot.settle()
        answer = bot.h.answer(query)
        return {"ok": not refused(answer), "text": answer.text, "alert": answer.show_alert}

    return press


async def post_act(
    bot: Bot, user: FakeUser, data: str, chat: int, press_id: str = "p1", **headers: str
) -> httpx.Response:
    async with httpx.AsyncClient() as client:
        return await client.post(
            f"{base_url(bot)}/api/act",
            params={"chat": str(chat)},
            headers={"Authorization": f"tma {signed(bot, user)}", **headers},
            content=json.dumps({"data": data, "id": press_id}),
        )


def api_press(bot: Bot) -> Press:
    """Presses from the page, through its API (what the page's script posts)."""
    count = iter(range(1, 1_000_000))

    async def press(
        user: FakeUser, data: str, message: StoredMessage | None, group: FakeChat
    ) -> dict[str, Any]:
        response = await post_act(bot, user, data, group.id, f"n{next(count)}")
        assert response.status_code == 200, response.text
        await bot.settle()
        found: dict[str, Any] = response.json()
        return found

    return press


# ----------------------------------------------------------------------------- transcripts


TIME = re.compile(r'<tg-time unix=\\?"\d+\\?" format=\\?"T\\?">[^<]*</tg-time>')


def _norm(text: str, table: Table, group: FakeChat) -> str:
    """Without what differs between two runs of one game: its id, the group's, the clock."""
    text = text.replace(table.gid, "GID").replace(str(group.id), "GROUP")
    text = re.sub(r"t\.me/c/\d+", "t.me/c/GROUP", text.replace(str(abs(group.id)), "GROUP"))
    return TIME.sub("TIME", text)


def _call(call: Any, table: Table, group: FakeChat) -> str:
    params = {k: v for k, v in call.params.items() if k not in ("chat_id", "message_id", "photo")}
    media = params.get("media")
    if isinstance(media, str):
        params["media"] = {k: v for k, v in json.loads(media).items() if k != "media"}
    elif isinstance(media, dict):
        params["media"] = {k: v for k, v in media.items() if k != "media"}
    return _norm(f"{call.method} {json.dumps(params, sort_keys=True, default=str)}", table, group)


def group_transcript(bot: Bot, game: Game) -> list[str]:
    return [_call(c, game.table, game.group) for c in group_calls(bot.fake, game.group.id)]


def private_transcript(bot: Bot, game: Game, user: FakeUser) -> list[str]:
    return [_call(c, game.table, game.group) for c in group_calls(bot.fake, user.id)]


async def played_with_buttons(
    store: Store, users: list[FakeUser]
) -> tuple[Game, list[str], dict[int, list[str]]]:
    """The scripted game played with the chat's buttons, with its group transcript and each
    player's private one: what the same game played on the page must equal."""
    async with webapp_bot(store) as bot:
        game = await play_scripted(bot, users, chat_press(bot))
        privately = {u.id: private_transcript(bot, game, u) for u in users}
        return game, group_transcript(bot, game), privately


def said(game: Game) -> list[tuple[str, str | None, bool]]:
    """Each press's answer: its button (without the game's id), text and pop-up."""
    return [(d.split(":", 1)[1], a["text"], a["alert"]) for d, a in game.answers]
