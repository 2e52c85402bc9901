"""What the trial measured, read from the fake Bot API's log once the games are over.

Per group: every callback query's answer latency (from the moment ``getUpdates`` handed the
update to a bot process to the ``answerCallbackQuery`` call), the 429 answers, the busiest
minute in the group, the time from Start to the Round 1 message, whether a winner was
announced, which game buttons are still live at the end and whether a secret (a party, a
policy hand) reached the group before the game-over message. Overall: the busiest second,
the 429s, and the Traceback and ERROR lines of the bot's stderr.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field

from shbot.bot import callbacks as cb
from shbot.bot import render as r
from shbot.engine import FASCIST, LIBERAL
from shbot.i18n import Translator, translator

from .fake_records import GROUP_LIMITED_METHODS, Call
from .trial_api import TrialAPI
from .trial_play import GroupPlay

SHOWN_METHODS = ("sendmessage", "editmessagetext", "sendphoto", "editmessagemedia")
SLOW = 1.0  # seconds: an answer later than this is reported one by one
#: Game buttons that may stay under a finished game's messages.
AFTER_GAME_OPS = frozenset({cb.REMATCH, cb.MYLOG, cb.MY_ROLE, cb.CLAIM})
_PUBLIC_ROLE_WORDS = re.compile(
    r"Secret Hitler|(Liberal|Fascist) polic(y|ies)|not Hitler|(Liberals|Fascists) win"
    r"|\u2068[^\u2069]*\u2069"
)
_ROLE_WORD = re.compile(r"Liberal|Fascist|Hitler")


def winners(t: Translator) -> tuple[str, str]:
    return t._("🏁 <b>The Liberals win!</b>"), t._("🏁 <b>The Fascists win!</b>")


def round_one_prefix(t: Translator) -> str:
    text = t._(
        "<b>Round {round}</b> · Presidential candidate: {president}", round=1, president="\0"
    )
    return text.split("\0", 1)[0]


def command_reply(t: Translator, command: str) -> str | None:
    """The start of the reply a bad command gets in a group (None: not a bad command)."""
    if command.startswith("/frobnicate"):
        return t._("I don't know that command. /help lists what I understand.")
    if command == "/lang xx":
        return t._("Unknown language. Available: {codes}.", codes="\0").split("\0", 1)[0]
    return None


def secrets_in_group(calls: list[Call], t: Translator) -> list[str]:
    """What the group was shown before the game-over message that gives a secret away."""
    hands = [
        r.hand_text(t, [LIBERAL if k >> i & 1 else FASCIST for i in range(size)])
        for size in (2, 3)
        for k in range(2**size)
    ]
    forbidden = [t._("Liberal party"), t._("Fascist party"), *hands]
    policies = [t._(m).split(" ", 1)[-1] for m in ("🔵 Liberal policy", "🔴 Fascist policy")]
    found = []
    for call in calls:
        if call.shown_text().startswith(winners(t)):
            break
        text = "\n".join(ln for ln in call.shown_text().splitlines() if not ln.startswith("🗣"))
        for shown in [text, *(str(b.get("text", "")) for b in call.buttons())]:
            for word in policies:
                shown = shown.replace(word, "")
            found += [f"{s!r} in {shown[:120]!r}" for s in forbidden if s in shown]
            if t.locale == "en" and _ROLE_WORD.search(_PUBLIC_ROLE_WORDS.sub("", shown)):
                found.append(f"role word in {shown[:120]!r}")
        for b in call.buttons():
            press = cb.parse(b.get("callback_data"))
            if isinstance(press, cb.GamePress) and press.op not in GROUP_BUTTON_OPS:
                found.append(f"private button in the group: {b.get('callback_data')!r}")
    return found


GROUP_BUTTON_OPS = frozenset(
    {cb.JOIN, cb.LEAVE, cb.START, cb.NOMINATE, cb.VOTE, cb.MY_ROLE, cb.CANCEL_YES, cb.CANCEL_NO}
    | {cb.ADD_BOT, cb.REMOVE_BOT, cb.REMATCH, cb.CLAIM, cb.MYLOG}
)


@dataclass
class GroupReport:
    name: str
    latencies: list[float] = field(default_factory=list)
    slow: list[str] = field(default_factory=list)
    unanswered: list[str] = field(default_factory=list)
    across_restart: list[str] = field(default_factory=list)
    refusals: dict[str, list[str]] = field(default_factory=dict)
    group_429: int = 0
    private_429: int = 0
    max_group_minute: int = 0
    start_to_round1: float | None = None
    winner: str | None = None
    live_buttons: list[str] = field(default_factory=list)
    final_messages: list[str] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)
    sent_twice: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        lat = sorted(self.latencies)
        stats = "no answers"
        if lat:
            p95 = lat[min(len(lat) - 1, int(len(lat) * 0.95))]
            stats = (
                f"{len(lat)} answered: median {statistics.median(lat) * 1000:.0f} ms, "
                f"p95 {p95 * 1000:.0f} ms, max {lat[-1] * 1000:.0f} ms, "
                f"> {SLOW:.0f} s: {sum(x > SLOW for x in lat)}"
            )
        start = "never" if self.start_to_round1 is None else f"{self.start_to_round1:.2f} s"
        out = [
            f"== {self.name}",
            f"  callback answers: {stats}; unanswered: {len(self.unanswered)}",
            f"  429 answers: group {self.group_429}, players' private chats {self.private_429}",
            f"  max group calls in any 60 s: {self.max_group_minute}",
            f"  Start -> Round 1 message: {start}",
            f"  finished: {self.winner or 'NO winner message'}",
            f"  live game buttons left: {self.live_buttons or 'none'}",
            f"  secrets shown in the group: {self.secrets or 'none'}",
            f"  messages sent twice to the group: {self.sent_twice or 'none'}",
        ]
        out += [f"  slow: {s}" for s in self.slow]
        out += [f"  unanswered: {s}" for s in self.unanswered]
        out += [f"  across the restart: {s}" for s in self.across_restart]
        for kind, texts in self.refusals.items():
            out.append(f"  answers to {kind}: {texts}")
        out += [f"  final: {m}" for m in self.final_messages]
        return out


def group_report(api: TrialAPI, play: GroupPlay, down: tuple[float, float] | None) -> GroupReport:
    t = translator(play.lang)
    rep = GroupReport(f"{play.name} ({play.lang}, {len(play.people)} players)")
    answers = {a.query_id: a for a in api.answers}
    for press in play.presses:
        if press.query_id is None:
            continue
        answer = answers.get(press.query_id)
        # The last time it was handed out before the answer: one handed to a dead process
        # (its poll still open on our side) was handed again to the next one.
        times = api.served.get(press.query_id, [])
        served = max((s for s in times if answer is None or s <= answer.time), default=None)
        what = f"{press.kind} {press.data!r} by {press.user_id} pressed t={press.at:.1f}"
        if press.kind not in ("move", "lobby"):
            text = "UNANSWERED" if answer is None else repr(answer.text)
            rep.refusals.setdefault(press.kind, []).append(text)
        if served is None or answer is None:
            rep.unanswered.append(f"{what}, served at {[round(x, 3) for x in times]}")
            continue
        latency = answer.time - served
        if down is not None and served < down[0] <= answer.time:
            rep.across_restart.append(
                f"{what}: {latency:.2f} s (served before the kill, {len(times)} time(s))"
            )
            continue
        rep.latencies.append(latency)
        if latency > SLOW:
            rep.slow.append(f"{what}: {latency:.2f} s (answer {answer.text!r})")
    for press in play.presses:
        expected = command_reply(t, press.data) if press.query_id is None else None
        if expected is None or press.chat_id != play.chat_id:
            continue
        said = [
            c.time - press.at
            for c in api.calls
            if c.ok
            and c.method.lower() == "sendmessage"
            and c.chat_id == play.chat_id
            and c.time >= press.at
            and c.shown_text().startswith(expected)
        ]
        rep.refusals.setdefault(press.data, []).append(
            f"{len(said)} x {expected[:30]!r}... from then on, the first after {said[0]:.1f} s"
            if said
            else f"no {expected[:30]!r}"
        )
    players = {p["id"] for p in play.people}
    for call in api.calls:
        if call.status == 429:
            rep.group_429 += call.chat_id == play.chat_id
            rep.private_429 += call.chat_id in players
    rep.max_group_minute = api.max_calls_in_window(play.chat_id, 60.0, GROUP_LIMITED_METHODS)
    shown = [
        c
        for c in api.calls
        if c.ok and c.chat_id == play.chat_id and c.method.lower() in SHOWN_METHODS
    ]
    prefix = round_one_prefix(t)
    first = next((c for c in shown if c.shown_text().startswith(prefix)), None)
    if first is not None and play.start_pressed_at is not None:
        rep.start_to_round1 = first.time - play.start_pressed_at
    over = next((c for c in shown if c.shown_text().startswith(winners(t))), None)
    if over is not None:
        rep.winner = over.shown_text().splitlines()[0]
    rep.secrets = secrets_in_group(shown, t)
    sent = [c.shown_text() for c in shown if c.method.lower() in ("sendmessage", "sendphoto")]
    rep.sent_twice = sorted({text.splitlines()[0][:80] for text in sent if sent.count(text) > 1})
    for message in api.messages(play.chat_id):
        for b in message.buttons():
            parsed = cb.parse(b.get("callback_data"))
            if isinstance(parsed, cb.GamePress) and parsed.op not in AFTER_GAME_OPS:
                rep.live_buttons.append(f"message {message.message_id}: {b.get('text')!r}")
    for message in api.messages(play.chat_id)[-3:]:
        lines = message.plain_text.splitlines()
        keys = [b.get("text") for b in message.buttons()]
        head = " / ".join(lines[:2])
        tail = " / ".join(lines[-2:]) if len(lines) > 2 else ""
        rep.final_messages.append(f"#{message.message_id} {head} ... {tail} buttons={keys}")
    return rep


def overall_lines(api: TrialAPI, plays: Iterable[GroupPlay], stderr: str) -> list[str]:
    chats = {p.chat_id for p in plays}
    refused = [c for c in api.calls if c.status == 429]
    no_chat = sum(c.chat_id is None for c in refused)
    bad = [ln for ln in stderr.splitlines() if "Traceback" in ln or "ERROR" in ln]
    warnings = [ln for ln in stderr.splitlines() if "WARNING" in ln]
    failed = [
        f"t={c.time:.2f} {c.method} chat={c.chat_id} {c.status} {(c.description or '')[:60]!r}"
        for c in api.calls
        if not c.ok and c.status != 429
    ]
    out = [
        "== overall",
        f"  calls: {len(api.calls)}; updates re-served after the restart: {api.served_again}",
        f"  429 answers: {len(refused)} (in the groups {sum(c.chat_id in chats for c in refused)},"
        f" elsewhere {len(refused) - no_chat - sum(c.chat_id in chats for c in refused)},"
        f" without a chat {no_chat})",
        f"  max calls to chats in any 1 s: {api.max_calls_overall(1.0)};"
        f" all calls in any 1 s: {api.max_calls_overall(1.0, chats=False)}",
        f"  other failed calls: {len(failed)}",
        *(f"    {line}" for line in failed[:20]),
        f"  stderr Traceback/ERROR lines: {len(bad)}; WARNING lines: {len(warnings)}",
    ]
    out += [f"    {ln}" for ln in bad[:20]]
    out += [f"    {ln}" for ln in warnings[:10]]
    return out
