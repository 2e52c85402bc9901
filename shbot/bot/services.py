"""What every handler needs: the store, the commit path, the outbox, languages, admin rights."""

from __future__ import annotations

import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from telegram import MaybeInaccessibleMessage, Message, User
from telegram.constants import ChatMemberStatus
from telegram.error import BadRequest, Forbidden, RetryAfter, TelegramError

from shbot.i18n import DEFAULT, Translator, normalize, translator
from shbot.storage import GameExists, GameRecord, NoGame, Store, StoreError
from shbot.table import Outcome, Refusal, Table, lobby

from . import logs
from .config import Config
from .delivery.answers import AnswerOrder, Presses
from .delivery.commit import Commit
from .delivery.outbox import Outbox
from .delivery.sender import retry_seconds
from .delivery.slots import SlotRenderer

log = logging.getLogger(__name__)

LANG_CACHE_SECONDS = 60.0
ADMIN_CACHE_SECONDS = 120.0
#: How long a "yes, member" answer is trusted (a leave or a ban we hear of forgets it sooner).
MEMBER_CACHE_SECONDS = 300.0
MEMBER_STATUSES = (
    ChatMemberStatus.OWNER,
    ChatMemberStatus.ADMINISTRATOR,
    ChatMemberStatus.MEMBER,
)
LOST_TTL = 30 * 24 * 3600.0  # a lost game is announced once in this time


@dataclass
class Services:
    config: Config
    store: Store
    outbox: Outbox
    bot: Any = None
    bot_username: str = ""
    new_seed: Callable[[], int] = field(default=lambda: secrets.randbits(63))
    clock: Callable[[], float] = field(default=time.monotonic)  # the membership cache's
    commit: Commit = field(init=False)
    _user_lang: dict[int, tuple[str, float]] = field(default_factory=dict)
    _group_lang: dict[int, tuple[str, float]] = field(default_factory=dict)
    _admins: dict[tuple[int, int], tuple[bool, float]] = field(default_factory=dict)
    _members: dict[tuple[int, int], tuple[bool, float]] = field(default_factory=dict)
    _pinged: dict[int, float] = field(default_factory=dict)
    _lang_era: int = 0  # counts the languages changed (a cached read must not predate one)
    #: Presses an earlier process committed (the newest of each game it left, read at
    #: recovery): if one comes again, that process may have died before answering it.
    inherited: set[str] = field(default_factory=set)
    answers: AnswerOrder = field(default_factory=AnswerOrder)  # one player's, in order
    presses: Presses = field(default_factory=Presses)  # every press answered (flood too)

    def __post_init__(self) -> None:
        self.commit = Commit(self.store, self.outbox)
        self.outbox.svc = self

    def ping_wait(self, chat_id: int, every: float) -> float:
        """Seconds before the group may /ping again (0: now, and the clock restarts)."""
        now = time.monotonic()
        last = self._pinged.get(chat_id)
        if last is not None and now - last < every:
            return every - (now - last)
        self._pinged[chat_id] = now
        return 0.0

    # ------------------------------------------------------------------ admin rights

    async def is_admin(self, chat_id: int, user_id: int, *, fresh: bool = False) -> bool:
        """Cached for two minutes (``fresh``: ask anyway, as a settings change does); asked
        directly, never behind the group's messages."""
        key = (chat_id, user_id)
        cached = self._admins.get(key)
        if not fresh and cached and time.monotonic() - cached[1] < ADMIN_CACHE_SECONDS:
            return cached[0]
        try:
            member = await self.bot.get_chat_member(chat_id, user_id)
        except Exception:  # an API error must not grant rights
            log.warning("could not check admin rights in %s", chat_id)
            return False
        admin = member.status in (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)
        if len(self._admins) > 100_000:
            self._admins.clear()
        self._admins[key] = (admin, time.monotonic())
        return admin

    async def is_member(self, chat_id: int, user_id: int) -> bool | None:
        """Whether ``user_id`` belongs to the group (only members may join its games: a
        forwarded join link must not seat a stranger who would get a role for a game they
        cannot see): True, False (Telegram said no: left, banned, or a 400/403 answer), or
        None when Telegram could not tell (a 5xx, a 429, a timeout): the caller asks the
        user to try again and seats nobody. A "yes" is trusted for
        :data:`MEMBER_CACHE_SECONDS` (a leave or ban we hear of forgets it at once), a "no"
        not at all (they may join the group a moment later). Asked directly, never behind
        the group's messages."""
        if self.knows_member(chat_id, user_id):
            return True
        try:
            member = await self.bot.get_chat_member(chat_id, user_id)
        except (BadRequest, Forbidden) as exc:  # Telegram's definite answer: not one of us
            log.info("membership in %s refused: %s", chat_id, exc)
            return False
        except Exception as exc:  # RetryAfter, TimedOut, a 5xx: no answer, no seat
            log.warning("could not check membership in %s: %r", chat_id, exc)
            return None
        status = member.status
        inside = status in MEMBER_STATUSES or (
            status == ChatMemberStatus.RESTRICTED and bool(getattr(member, "is_member", False))
        )
        if inside:
            self.note_member(chat_id, user_id)
        return inside

    def knows_member(self, chat_id: int, user_id: int) -> bool:
        """A "yes, member" seen less than :data:`MEMBER_CACHE_SECONDS` ago."""
        seen = self._members.get((chat_id, user_id))
        return seen is not None and self.clock() - seen[1] < MEMBER_CACHE_SECONDS

    def note_member(self, chat_id: int, user_id: int) -> None:
        """Remember a member (asked, or seen writing in the group) for a few minutes."""
        if len(self._members) > 100_000:
            self._members.clear()
        self._members[(chat_id, user_id)] = (True, self.clock())

    def forget_member(self, chat_id: int, user_id: int) -> None:
        """They left the group or were banned from it: the next join asks Telegram."""
        self._members.pop((chat_id, user_id), None)

    def forget_admin(self, chat_id: int) -> None:
        for key in [k for k in self._admins if k[0] == chat_id]:
            del self._admins[key]

    # ------------------------------------------------------------------ languages

    async def user_lang(self, user_id: int, tg_code: str | None = None) -> str:
        """The user's chosen language, else their Telegram app language if ours, else en."""
        cached = self._user_lang.get(user_id)
        if cached and time.monotonic() - cached[1] < LANG_CACHE_SECONDS:
            return cached[0]
        era = self._lang_era
        settings = await self.store.get_user(user_id)
        lang = settings.get("lang") or normalize(tg_code) or settings.get("tg_lang") or DEFAULT
        if era == self._lang_era:  # else a language changed while we read: maybe not this
            self._user_lang[user_id] = (lang, time.monotonic())
        return str(lang)

    def forget_user_lang(self, user_id: int) -> None:
        self._lang_era += 1
        self._user_lang.pop(user_id, None)

    async def group_lang(self, chat_id: int, sender: User | None = None) -> str:
        """The group's chosen language; a group that never chose one (no /lang, no lobby
        yet) answers each ``sender`` in theirs, as a private chat would, else English."""
        cached = self._group_lang.get(chat_id)
        if cached and time.monotonic() - cached[1] < LANG_CACHE_SECONDS:
            chosen = cached[0]
        else:
            era = self._lang_era
            settings = await self.store.get_group(chat_id)
            chosen = str(settings.get("lang") or "")
            if era == self._lang_era:  # a read from before a /lang is not kept
                self._group_lang[chat_id] = (chosen, time.monotonic())
        if chosen:
            return chosen
        if sender is not None:
            return await self.user_lang(sender.id, sender.language_code)
        return DEFAULT

    def forget_group_lang(self, chat_id: int) -> None:
        self._lang_era += 1
        self._group_lang.pop(chat_id, None)

    async def t_user(self, user: User | int) -> Translator:
        if isinstance(user, User):
            return translator(await self.user_lang(user.id, user.language_code))
        return translator(await self.user_lang(user))

    async def t_group(self, chat_id: int, sender: User | None = None) -> Translator:
        return translator(await self.group_lang(chat_id, sender))

    async def slot_renderer(self, chat_id: int, table: Table) -> SlotRenderer:
        logs.bind(chat=chat_id, game=table.gid)
        langs = {p.id: p.lang for p in table.players}

        async def user_t(user_id: int) -> Translator:
            return translator(await self.user_lang(user_id, langs.get(user_id)))

        return SlotRenderer(
            await self.t_group(chat_id), user_t, self.bot_username, self.config.webapp_url
        )

    # ------------------------------------------------------------------ delivery failures

    async def lost_group(self, chat_id: int) -> None:
        """The bot was removed from the group (or it is gone): its game ends, players free."""
        with contextlib.suppress(NoGame, Refusal):
            await self.commit.run(chat_id, lobby.lost_access)
        log.warning("lost access to chat %s: its game is cancelled", chat_id)

    async def unreachable(self, group_id: int, user_id: int) -> None:
        """A player blocked the bot: tell the group once (no secret), the game goes on."""
        await self.store.update_user(user_id, {"dm": False})

        def warn(table: Table) -> Any:
            marker = f"warned:{user_id}"
            if table.player(user_id) is None or marker in table.shown:
                raise Refusal("nothing")
            table.owe(f"warn:{user_id}")
            table.shown[marker] = 0  # one warning per player and game
            return Outcome(table)

        with contextlib.suppress(NoGame, Refusal):
            await self.commit.run(group_id, warn)

    async def migrate(self, old_id: int, new_id: int) -> None:
        """The group became a supergroup: the game, its players and the settings move to the
        new id; the board and the round (or the lobby) are posted there again and the
        deadline is armed there. Called again (the service message after a refused send,
        or the other way round), it changes nothing."""
        async with self.commit.lock(old_id):
            record = await self.store.get_game(old_id)
            self.outbox.tables.pop(old_id)
            await self._move_settings(old_id, new_id)
            await self.store.move_records(old_id, new_id)  # /stats and /history go along
            if record is None:
                return
            table = Table.from_dict(record.data)
            for slot in [s for s in table.shown if not s.startswith(("prompt", "warn", "claim"))]:
                del table.shown[slot]  # those messages stay behind in the old chat
            for slot in (
                ("lobby",) if table.game is None else ("board", f"round:{table.game.round}")
            ):
                table.owe(slot)
            moved = await self._create_moved(old_id, new_id, record, table)
            try:  # the old chat takes no message any more: its copy goes in any case
                await self.store.delete_game(old_id, record.version)
            except StoreError:
                log.warning("could not remove the migrated game of %s", old_id)
            players = [p.id for p in table.players]
            await self.store.release_players(old_id, players)
            if moved:
                for uid in players:
                    await self.store.claim_player(uid, new_id)
                    if uid > 0:  # /mylog finds the game under its new chat id
                        await self.store.update_user(uid, {"last_game": [new_id, table.gid]})
        if not moved:
            return
        log.info("chat %s migrated to %s: game %s moved", old_id, new_id, table.gid)
        self.outbox.committed(new_id, await self.store.get_game(new_id))
        if self.commit.after is not None:
            await self.commit.after(new_id, Outcome(table))  # the deadline, in the new chat

    async def _create_moved(
        self, old_id: int, new_id: int, record: GameRecord, table: Table
    ) -> bool:
        """Save the migrated game under the new id; False if the new chat has a game of
        its own (ours then ends). A game moved before a crash counts as moved."""
        try:
            await self.store.create_game(new_id, record.status, table.to_dict())
        except GameExists:
            existing = await self.store.get_game(new_id)
            if existing is None or existing.data.get("gid") != table.gid:
                log.warning("%s migrated to %s, which has a game: ours ends", old_id, new_id)
                return False
        return True

    async def _move_settings(self, old_id: int, new_id: int) -> None:
        """The old group's settings, under any the new chat has already."""
        settings = await self.store.get_group(old_id)
        if not settings:
            return
        await self.store.change_group(
            new_id, lambda current: {k: v for k, v in settings.items() if k not in current}
        )
        self.forget_group_lang(new_id)

    async def lost_game(
        self,
        chat_id: int | None,
        gid: str,
        message: MaybeInaccessibleMessage | None,
        last_known: GameRecord | None = None,
    ) -> None:
        """A press on game ``gid``, which the store does not have. If it did not end (it is
        not in the group's archive), the store lost it (Redis restarted empty): the group is
        told once per game, and the pressed message loses its buttons. ``chat_id`` is the
        group, or None for a press in private (then the group is known only if this process
        served the game)."""
        if chat_id is None:
            chat_id = self.outbox.tables.chat_of(gid)
        if chat_id is not None and not await self._store_lost(chat_id, gid):
            return
        await self._unbutton_pressed(message)
        if chat_id is not None and await self.store.first_seen(f"lost:{chat_id}:{gid}", LOST_TTL):
            log.warning("game %s of chat %s is not in the store any more: lost", gid, chat_id)
            await self._unbutton(chat_id, gid, last_known, message)
            t = await self.t_group(chat_id)
            text = t._(
                "⚠️ This game was lost: my storage was reset and its state is gone. Sorry! "
                "/newgame opens a new one."
            )
            self.outbox.post(chat_id, text, key=f"lost:{gid}")

    async def _store_lost(self, chat_id: int, gid: str) -> bool:
        """Game ``gid`` of the group is neither in the store (ending) nor archived: the
        store lost it. A cached copy of it is forgotten."""
        record = await self.store.get_game(chat_id)
        if record is not None and record.data.get("gid") == gid:
            return False  # it is there (ending): not lost
        cached = self.outbox.tables.get(chat_id)
        if cached is not None and cached.data.get("gid") == gid:
            self.outbox.tables.pop(chat_id)  # a copy of what the store lost
        # Ended and archived: the usual answer says it all.
        return not any(g.data.get("gid") == gid for g in await self.store.finished_games(chat_id))

    async def _unbutton_pressed(self, message: MaybeInaccessibleMessage | None) -> None:
        """The pressed message of a lost game loses its buttons (a photo keeps its caption)."""
        if not isinstance(message, Message) or message.reply_markup is None:
            return
        if message.text:
            self.outbox.post(
                message.chat.id,
                message.text_html,
                edit_id=message.message_id,
                key=f"unbutton:{message.message_id}",
            )
        elif message.photo:
            await self._drop_buttons(message.chat.id, message.message_id)  # the board picture

    async def _unbutton(
        self,
        chat_id: int,
        gid: str,
        last_known: GameRecord | None,
        pressed: MaybeInaccessibleMessage | None,
    ) -> None:
        """A lost game's group messages this process knew lose their buttons (live buttons
        on a game that is gone would only earn "over" answers)."""
        if last_known is None or last_known.data.get("gid") != gid:
            return
        table = Table.from_dict(last_known.data)
        skip = pressed.message_id if pressed is not None else None
        for slot, mid in table.shown.items():
            if slot.split(":")[0] in ("lobby", "board", "round") and mid != skip:
                await self._drop_buttons(chat_id, mid)

    async def _drop_buttons(self, chat_id: int, message_id: int) -> None:
        """Take a lost game's buttons off one message at once (a rare call, made outside the
        worker) but counted in the chat's window, so the next sends still keep the limits:
        skipped when the window is full (a press on them is answered "over" anyway), and a
        429 pauses the chat as the outbox's own would."""
        pacer = self.outbox.pacer
        if pacer.ready_at(chat_id) > pacer.clock():
            return
        pacer.take(chat_id)
        try:
            await self.bot.edit_message_reply_markup(chat_id, message_id)
        except RetryAfter as exc:
            pacer.block(chat_id, retry_seconds(exc))
        except TelegramError:
            log.debug("could not take the buttons off %s in %s", message_id, chat_id)
