"""Secrets never reach the group, and private messages reach only the entitled player.

Two complementary proofs over full games for 5 to 10 players:

* structural: every group text, edit, button label and callback data before the game-over
  message is free of party names, hand listings, role words outside public phrases and
  private buttons; every private message went to the one seat entitled to it, with the
  right content (``check_game`` in tests/botplay.py);
* the strongest: the same public game is played twice with different hidden information
  (other Fascists, the President's hands in another order, so peeks and investigation
  results differ) and the two groups must see exactly the same thing, call by call, up to
  the game-over message. Whatever the bot shows the group is then a function of public
  information only.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from shbot.engine import FASCIST, HITLER, Game, Phase
from shbot.storage import Store, open_store
from tests.botplay import (
    EN,
    Bot,
    Played,
    RandomPlay,
    Replay,
    Turn,
    check_game,
    find_seed,
    group_calls,
    history_tags,
    open_game,
    play,
    rewrite_game,
    running_bot,
    split_at_game_over,
)
from tests.fake_telegram import FakeBotAPI, FakeChat
from tests.harness import FakeUser, make_users

PLAYER_COUNTS = [5, 6, 7, 8, 9, 10]
#: The board picture is the default; the text board is checked at the smallest and largest
#: tables too.
STYLED = [(n, "picture") for n in PLAYER_COUNTS] + [(5, "text"), (10, "text")]


async def styled_group(bot: Bot, users: list[FakeUser], style: str) -> FakeChat:
    group = bot.h.group(creator=users[0], members=users[1:])
    await bot.store.update_group(group.id, {"board": style})
    return group


@pytest.mark.parametrize(("players", "style"), STYLED)
async def test_random_games_keep_secrets(bot: Bot, players: int, style: str) -> None:
    """Random (Fascist-leaning) games: all structural checks of ``check_game`` (captions
    of the board picture included)."""
    users = make_users(players)
    group = await styled_group(bot, users, style)
    group = await open_game(bot, users, group=group, seed=1000 + players)
    played = await play(bot, group, users, RandomPlay(players, fascist=True))
    await check_game(bot, played)
    tags = history_tags(played.game)
    powers = {"peek"} if players <= 6 else {"i"}
    assert powers & set(tags), f"no power was used: {played.game.history}"


# ------------------------------------------------------------------------ the twin games


@dataclass
class Recorded:
    played: Played
    initial: Game  # the engine state right after the start
    hands: list[tuple[int, list[int]]]  # (round, deck positions top-first) before a reshuffle


_MOMENT = re.compile(r'<tg-time unix=\\"\d+\\" format=\\"T\\">[^<]*</tg-time>')


def transcript(fake: FakeBotAPI, played: Played) -> list[str]:
    """The group's calls up to the game-over message, with the random game id masked and
    the user ids of mentions ("tg://user?id=...") replaced by their seats."""
    before, _ = split_at_game_over(group_calls(fake, played.group.id), EN)
    photos = iter([p for p in fake.photos if p.chat_id == played.group.id])
    out = []
    for call in before:
        keys = ("message_id", "text", "caption", "media", "reply_markup", "parse_mode")
        params = {k: call.params.get(k) for k in keys}
        if isinstance(params["media"], dict):  # the attach:// name is random: the image counts
            params["media"] = {k: v for k, v in params["media"].items() if k != "media"}
        if call.method.lower() in ("sendphoto", "editmessagemedia"):
            params["image"] = hashlib.sha256(next(photos).data).hexdigest()
        text = json.dumps(params, sort_keys=True).replace(played.table.gid, "<gid>")
        for seat, user in enumerate(played.users):
            text = text.replace(f'tg://user?id={user.id}\\"', f'tg://user?id=<seat {seat}>\\"')
        text = _MOMENT.sub("<time>", text)  # the lobby's join deadline: when it opened
        out.append(f"{call.method} {text}")
    return out


def private_texts(bot: Bot, played: Played) -> list[list[str]]:
    """Every private message (each version of it) by seat."""
    return [
        [v for m in bot.fake.messages(u.id) for v in [*m.history, m.text]] for u in played.users
    ]


async def play_first(bot: Bot, players: int, seed: int, style: str) -> Recorded:
    users = make_users(players)
    group = await styled_group(bot, users, style)
    group = await open_game(bot, users, group=group, seed=find_seed(players, start=seed))
    start = await bot.table(group)
    assert start is not None and start.game is not None
    initial = start.game.clone()
    total = len(initial.draw)
    hands: list[tuple[int, list[int]]] = []
    state = {"last": total, "reshuffled": False, "step": -1}

    async def observe(turn: Turn) -> None:
        size = len(turn.game.draw)
        if size > state["last"]:
            state["reshuffled"] = True
        state["last"] = size
        if turn.phase is Phase.PRESIDENT_DISCARD and turn.table.step != state["step"]:
            state["step"] = turn.table.step
            if not state["reshuffled"]:
                drawn = total - size
                hands.append((turn.game.round, list(range(drawn - 3, drawn))))

    played = await play(bot, group, users, RandomPlay(seed, fascist=True), before=observe)
    return Recorded(played, initial, hands)


def twin_deck(first: Recorded) -> str:
    """The first game's deck (top first) with each hand drawn before the first reshuffle
    rotated, except hands whose veto was accepted (their discard order is public-neutral
    only if the hand order is kept)."""
    deck = list(reversed(first.initial.draw))
    vetoed = {m.round for m in first.played.moves if (m.op, m.arg) == ("va", "1")}
    for rnd, positions in first.hands:
        if rnd in vetoed:
            continue
        a, b, c = positions
        deck[a], deck[b], deck[c] = deck[b], deck[c], deck[a]
    return "".join(deck)


def fascists(game: Game) -> set[int]:
    return {s for s, role in enumerate(game.roles) if role == FASCIST}


@pytest.mark.parametrize(("players", "style"), STYLED)
async def test_group_sees_the_same_with_other_hidden_information(
    tmp_path: Path, players: int, style: str
) -> None:
    stores: list[Store] = [open_store(sqlite_path=str(tmp_path / f"{i}.sqlite3")) for i in (1, 2)]
    try:
        async with running_bot(stores[0]) as bot_a:
            first = await play_first(bot_a, players, seed=7 * players, style=style)
            game_a = first.initial
            hitler = game_a.roles.index(HITLER)
            seed_b = find_seed(
                players,
                hitler=hitler,
                first_president=game_a.president,
                accept=lambda g: fascists(g).isdisjoint(fascists(game_a)),
            )
            deck_b = twin_deck(first)

            async with running_bot(stores[1]) as bot_b:
                users_b = make_users(players)
                group_b = await styled_group(bot_b, users_b, style)
                group_b = await open_game(bot_b, users_b, group=group_b, seed=seed_b)

                def rig(game: Game) -> None:
                    assert game.roles.index(HITLER) == hitler
                    game.draw = list(reversed(deck_b))
                    game.rng = game_a.rng  # the same reshuffles

                await rewrite_game(bot_b, group_b, rig)
                replay = Replay(first.played.moves)
                second = await play(bot_b, group_b, users_b, replay)
                assert replay.i == len(first.played.moves), "the twin game ended early"
                await check_game(bot_b, second)

                # The public story is identical, call by call, until the roles are revealed.
                seen_a = transcript(bot_a.fake, first.played)
                seen_b = transcript(bot_b.fake, second)
                assert any("tg://user?id=<seat " in call for call in seen_a), "mentions masked"
                # (the board's picture: sent at the start; edited again only while no newer
                # round's message stands under it, then at the end, after the roles)
                photos = any(call.startswith(("sendPhoto", "editMessageMedia")) for call in seen_a)
                assert photos == (style == "picture"), "the picture's images are compared"
                assert len(seen_a) == len(seen_b)
                for i, (a, b) in enumerate(zip(seen_a, seen_b, strict=True)):
                    assert a == b, f"group call {i} differs:\n{a}\n{b}"
                assert bot_a.h.last(first.played.group).text != bot_b.h.last(group_b).text

                # ...although the players knew different things.
                priv_a = private_texts(bot_a, first.played)
                priv_b = private_texts(bot_b, second)
                roles_differ = [
                    s for s in range(players) if _role_line(priv_a[s]) != _role_line(priv_b[s])
                ]
                assert roles_differ, "the twin game dealt the same roles"
                others_a = [[t for t in texts if not t.startswith("🤫")] for texts in priv_a]
                others_b = [[t for t in texts if not t.startswith("🤫")] for texts in priv_b]
                assert others_a != others_b, "the twin game's hands and results were the same"
    finally:
        for store in stores:
            await store.close()


def _role_line(texts: list[str]) -> str:
    return next(t for t in texts if t.startswith("🤫"))
