"""Every button label and callback alert the bot can produce fits Telegram, in every language.

Telegram refuses a callback answer over 200 characters and callback data over 64 bytes;
the handlers cut answers at 200 characters, so an over-long translation would not fail a
call, it would silently lose its end. Labels have no hard limit, but a label wider than a
phone's button is cut with "…", so they are kept short.

The texts are found in the source, not listed by hand: every ``query.answer(...)`` and
``answer(context, query, message, text)`` site and every ``InlineKeyboardButton(...)`` label
of ``shbot/bot`` is read with :mod:`ast`, following helper functions' returns and parameters
and module-level msgids (``refusals._PLAIN[code]``), and each message found there is rendered
in every language with its longest possible values. A table ``Refusal`` or an ``Outcome``
carries a code, not words: ``refusals.refusal_text`` and ``answer_text`` word them, and their
every return is followed from where it is answered. ``answer(...)`` with no query (``None``)
is a reply in the chat, not an alert. A new kind of alert or label that this test cannot
follow fails it, so it never goes unchecked.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import shbot.bot
from shbot.bot import callbacks as cb
from shbot.bot import refusals
from shbot.bot import render as r
from shbot.bot.handlers import rules_keyboard
from shbot.bot.refusals import refusal_text, vote_answer
from shbot.bot.render.common import party_short
from shbot.bot.render.settings import settings_keyboard
from shbot.engine import FASCIST, HITLER, LIBERAL, Game, Reason
from shbot.i18n import LANGUAGE_NAMES, LANGUAGES, Translator, placeholders, translator
from shbot.table import Refusal
from shbot.table import lobby as table_lobby
from shbot.table.model import MAX_NAME, Player, Table

MAX_ALERT = 200  # characters in an answerCallbackQuery text
MAX_LABEL = 32  # characters: wider labels are cut on a phone
BOT_DIR = Path(shbot.bot.__file__).parent
BOT_SOURCES = sorted(BOT_DIR.rglob("*.py"))
# Functions whose result is shown as an alert or a label; they are rendered here directly.
# "again": a press beyond the flood budget is told what an earlier answer said (checked there).
ALERT_FUNCTIONS = {"reason_text", "vote_answer", "role_alert", "again"}
LABEL_FUNCTIONS = {"button_name", "section_title", "party_short"}


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


# ------------------------------------------------------------------------------ reading code


@dataclass
class Found:
    """What the source shows as alerts or labels."""

    messages: set[tuple[str, ...]] = field(default_factory=set)  # (msgid,) or (sing, plural)
    constants: set[str] = field(default_factory=set)
    functions: set[str] = field(default_factory=set)
    unknown: list[str] = field(default_factory=list)


def _callee(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass
class Source:
    """Every module of ``shbot/bot``: its functions by name and each node's function."""

    trees: dict[str, ast.Module] = field(default_factory=dict)  # by path: "handlers/common.py"
    defs: dict[str, list[Function]] = field(default_factory=dict)
    owner: dict[int, Function] = field(default_factory=dict)  # id(node) -> innermost function
    module: dict[int, str] = field(default_factory=dict)  # id(function) -> its module's path

    @classmethod
    def read(cls) -> Source:
        src = cls()
        for path in BOT_SOURCES:
            tree = ast.parse(path.read_text(encoding="utf-8"))
            name = path.relative_to(BOT_DIR).as_posix()
            src.trees[name] = tree
            src._index(name, tree, None)
        return src

    def _index(self, module: str, node: ast.AST, function: Function | None) -> None:
        for child in ast.iter_child_nodes(node):
            inner = function
            if isinstance(child, Function):
                self.defs.setdefault(child.name, []).append(child)
                self.module[id(child)] = module
                inner = child
            if inner is not None:
                self.owner[id(child)] = inner
            self._index(module, child, inner)

    def values(self, name: str, scope: Function) -> list[ast.expr]:
        """What ``name`` is bound to in ``scope``, else at the top level of its module."""
        local = _assignments(scope).get(name)
        if local:
            return local
        return _assignments(self.trees[self.module[id(scope)]], top_level=True).get(name, [])

    def where(self, node: ast.expr) -> str:
        function = self.owner.get(id(node))
        module = self.module[id(function)] if function is not None else "?"
        return f"{module}:{getattr(node, 'lineno', '?')}"

    def calls_to(self, name: str) -> Iterator[ast.Call]:
        for tree in self.trees.values():
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and _callee(node) == name:
                    yield node


def _assignments(scope: ast.AST, top_level: bool = False) -> dict[str, list[ast.expr]]:
    out: dict[str, list[ast.expr]] = {}
    nodes = ast.iter_child_nodes(scope) if top_level else ast.walk(scope)
    for node in nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out.setdefault(target.id, []).append(node.value)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
            out.setdefault(node.target.id, []).append(node.value)
    return out


def _argument(call: ast.Call, function: Function, name: str) -> ast.expr | None:
    """What ``call`` passes for ``function``'s parameter ``name`` (None: nothing)."""
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    params = _params(function)
    if name not in params:
        return None
    position = params.index(name)
    for arg in call.args[: position + 1]:
        if isinstance(arg, ast.Starred):
            return arg  # *args: cannot be bound, so it is reported, never skipped
    return call.args[position] if position < len(call.args) else None


def _is_none(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _msgids(src: Source, node: ast.expr, scope: Function) -> list[str] | None:
    """The msgids a translator call can get: a literal, a name bound to ``N_("...")``
    (in the function or at the top of its module), or ``TABLE[key]`` of a dict of those
    (every value). None when one of them cannot be read."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Call) and _callee(node) == "N_" and len(node.args) == 1:
        return _msgids(src, node.args[0], scope)
    if isinstance(node, ast.Name):
        values = src.values(node.id, scope)
        if len(values) == 1 and not isinstance(values[0], ast.Dict):
            return _msgids(src, values[0], scope)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        tables = src.values(node.value.id, scope)
        if len(tables) == 1 and isinstance(table := tables[0], ast.Dict) and table.values:
            ids = [_msgids(src, value, scope) for value in table.values]
            if all(ids):
                return [i for alternatives in ids if alternatives for i in alternatives]
    return None


@dataclass
class Follower:
    """Follows a text shown to users back to the messages it can be made of."""

    src: Source
    found: Found
    seen: set[int] = field(default_factory=set)

    def follow(self, node: ast.expr | None, scope: Function, where: str) -> None:
        if node is None or id(node) in self.seen:
            return
        self.seen.add(id(node))
        found = self.found
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                found.constants.add(node.value)
            elif node.value is not None:
                found.unknown.append(f"{where}: {ast.unparse(node)}")
        elif isinstance(node, ast.Call) and _callee(node) in ("_", "gettext", "ngettext"):
            plural = _callee(node) == "ngettext"
            ids = [_msgids(self.src, a, scope) for a in node.args[: 2 if plural else 1]]
            if node.args and all(ids) and (not plural or all(len(i or ()) == 1 for i in ids)):
                if plural:
                    found.messages.add(tuple(i[0] for i in ids if i))
                else:
                    found.messages.update((i,) for i in ids[0] or ())
            else:
                found.unknown.append(f"{where}: {ast.unparse(node)}")
        elif isinstance(node, ast.Call) and _callee(node) in ALERT_FUNCTIONS | LABEL_FUNCTIONS:
            found.functions.add(_callee(node))
        elif isinstance(node, ast.Call) and _callee(node) in self.src.defs:
            for function in self.src.defs[_callee(node)]:  # what the function returns
                for inner in ast.walk(function):
                    if isinstance(inner, ast.Return) and self.src.owner.get(id(inner)) is function:
                        self.follow(inner.value, function, f"{where} -> {self.src.where(inner)}")
        elif isinstance(node, ast.Subscript):
            if isinstance(node.value, ast.Name) and node.value.id == "LANGUAGE_NAMES":
                found.functions.add("LANGUAGE_NAMES")
            else:
                self.follow(node.value, scope, where)  # text[:200] is text; {...}[key] too
        elif isinstance(node, ast.Await):
            self.follow(node.value, scope, where)
        elif (
            isinstance(node, ast.Attribute)
            and node.attr == "text"
            and isinstance(node.value, ast.Name)
            and node.value.id == "reply"
        ):  # a judged press's answer (bot/presses.py): the text of every Reply(...) built
            for call in self.src.calls_to("Reply"):
                text = {k.arg: k.value for k in call.keywords}.get("text")
                arg = call.args[1] if len(call.args) > 1 else text
                caller = self.src.owner.get(id(call))
                if arg is not None and caller is not None:
                    self.follow(arg, caller, f"{where} <- {self.src.where(call)}")
        elif isinstance(node, ast.Dict | ast.BoolOp):
            for value in node.values:
                self.follow(value, scope, where)
        elif isinstance(node, ast.IfExp):
            self.follow(node.body, scope, where)
            self.follow(node.orelse, scope, where)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            self.follow(node.left, scope, where)
            self.follow(node.right, scope, where)
        elif isinstance(node, ast.JoinedStr):
            for part in node.values:
                if isinstance(part, ast.FormattedValue):
                    self.follow(part.value, scope, where)
        elif isinstance(node, ast.Name) and node.id in (assigned := _assignments(scope)):
            for value in assigned[node.id]:
                self.follow(value, scope, where)
        elif isinstance(node, ast.Name) and node.id in _params(scope):
            for call in self.src.calls_to(scope.name):  # a parameter: what its callers pass
                if _is_none(_argument(call, scope, "query")):
                    continue  # no callback query: a reply in the chat, not an alert
                arg = _argument(call, scope, node.id)
                caller = self.src.owner.get(id(call))
                if arg is not None and caller is not None:
                    self.follow(arg, caller, f"{where} <- {self.src.where(call)}")
        else:
            found.unknown.append(f"{where}: {ast.unparse(node)}")


def _params(function: Function) -> list[str]:
    return [a.arg for a in [*function.args.posonlyargs, *function.args.args]]


@functools.cache
def scan() -> tuple[Found, Found]:
    """(alerts, labels) of every module of ``shbot/bot``."""
    src = Source.read()
    alerts, labels = Follower(src, Found()), Follower(src, Found())
    for tree in src.trees.values():
        for node in ast.walk(tree):
            scope = src.owner.get(id(node))
            if scope is None:
                continue
            where = src.where(node)
            if isinstance(node, ast.Call):
                name, args = _callee(node), node.args
                keywords = {k.arg: k.value for k in node.keywords}
                if name == "answer" and isinstance(node.func, ast.Attribute):  # query.answer
                    alerts.follow(args[0] if args else keywords.get("text"), scope, where)
                elif name == "answer":  # handlers.common.answer(context, query, message, text)
                    helpers = src.defs.get("answer", [])
                    if not helpers:
                        alerts.found.unknown.append(f"{where}: {ast.unparse(node)}")
                    for helper in helpers:
                        if not _is_none(_argument(node, helper, "query")):  # else a reply
                            alerts.follow(_argument(node, helper, "text"), scope, where)
                elif name == "InlineKeyboardButton":
                    labels.follow(args[0] if args else keywords.get("text"), scope, where)
    return alerts.found, labels.found


def test_the_scan_finds_the_alerts_and_labels_it_must() -> None:
    alerts, labels = scan()
    assert not alerts.unknown, f"alerts this test cannot follow: {alerts.unknown}"
    assert not labels.unknown, f"labels this test cannot follow: {labels.unknown}"
    assert ("It's not your turn.",) in alerts.messages and (WAITING,) in alerts.messages
    assert ("You joined the game.",) in alerts.messages
    assert ("This button is not valid.",) in alerts.messages
    # Every refusal code is worded by refusal_text: its dict of msgids and its other branches.
    assert {(msgid,) for msgid in refusals._PLAIN.values()} <= alerts.messages
    assert any(len(ids) == 2 and "{n}" in ids[0] for ids in alerts.messages), "too_few"
    assert {"reason_text", "vote_answer", "role_alert"} <= alerts.functions
    assert {("✋ Join",), ("Discard {policy}",), ("Enact {policy}",)} <= labels.messages
    assert {"button_name", "section_title", "party_short", "LANGUAGE_NAMES"} <= labels.functions
    assert len(alerts.messages) >= 15 and len(labels.messages) >= 10


# ------------------------------------------------------------------------------ worst cases


# Messages whose placeholder values the code shortens to fit: rendered by the code itself.
WAITING = (
    "Waiting for {names} to open a private chat with me (button “Open private chat”), so "
    "that I can send their secret roles."
)
RENDERED_BY_THE_CODE = {(WAITING,)}


def worst_values(t: Translator) -> dict[str, str]:
    """The longest value each placeholder of an alert or a label can take."""
    return {
        "n": "10",
        "policy": max((r.policy_short(t, p) for p in (LIBERAL, FASCIST)), key=len),
        "role": max((r.role_name(t, x) for x in (LIBERAL, FASCIST, HITLER)), key=len),
        "hitler": "W" * 16,
        # A player's name: MAX_NAME characters, isolated (FSI ... PDI) against bidi reordering.
        "name": "W" * (MAX_NAME + 2),
        "president": "W" * (MAX_NAME + 2),
        "chancellor": "W" * (MAX_NAME + 2),
        "group": "W" * 16,  # a basic group's title, as the role message's button cuts it
    }


def rendered(t: Translator, ids: tuple[str, ...]) -> list[str]:
    if ids in RENDERED_BY_THE_CODE:
        return []
    values = worst_values(t)
    wanted = set().union(*(placeholders(i) for i in ids))
    missing = wanted - set(values)
    assert not missing, f"no worst case for {sorted(missing)} in {ids}: add it to worst_values"
    kwargs = {k: values[k] for k in wanted}
    if len(ids) == 1:
        return [t._(ids[0], **kwargs)]
    kwargs.pop("n", None)
    return [t.ngettext(ids[0], ids[1], n, **kwargs) for n in (1, 2, 10)]


def worst_table(players: int = 10) -> Table:
    """A table of long names; seat 0 is a Fascist who knows the most names (10 players)."""
    game, _ = Game.new(players, 1)
    people = [Player(100 + i, f"{chr(65 + i)}{'名' * (MAX_NAME - 1)}") for i in range(players)]
    table = Table(gid="a" * 12, host=100, created=0.0, players=people, game=game, step=999_999)
    fascist = game.roles.index(FASCIST)
    game.roles[0], game.roles[fascist] = game.roles[fascist], game.roles[0]
    return table


def waiting_alert(t: Translator) -> str:
    """The start refusal while nine players of 32-character names have no private chat."""
    table = worst_table()
    table.game, table.step = None, 0
    for player in table.players[1:]:
        player.ready = False
    with pytest.raises(Refusal) as refusal:
        table_lobby.start(table, table.host, False, 1, {})
    text = refusal_text(t, refusal.value)
    tail = t._(WAITING, names="\0").partition("\0")[2]
    assert text.endswith(tail), f"the sentence was cut: {text!r}"
    assert table.players[1].name[:8] in text, f"no name left: {text!r}"
    return text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_alert_fits(lang: str) -> None:
    t = translator(lang)
    alerts, _ = scan()
    texts = [text for ids in alerts.messages for text in rendered(t, ids)]
    texts += list(alerts.constants)
    texts += [r.reason_text(t, reason) for reason in Reason]
    texts += [vote_answer(t, ja) for ja in (True, False)]
    table = worst_table()
    for seat in range(10):
        alert = r.role_alert(t, table, seat)
        # role_alert cuts at 200 characters: shorter proves it never had to.
        assert len(alert) < MAX_ALERT, f"role alert cut in {lang}: {alert!r}"
        texts.append(alert)
    texts.append(waiting_alert(t))
    too_long = [(utf16_len(x), x) for x in texts if utf16_len(x) > MAX_ALERT]
    assert not too_long, f"alerts over {MAX_ALERT} characters in {lang}: {too_long}"
    assert all(x.strip() for x in texts if x), "an empty alert"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_label_fits(lang: str) -> None:
    t = translator(lang)
    _, labels = scan()
    texts = [text for ids in labels.messages for text in rendered(t, ids)]
    texts += [c for c in labels.constants if c]  # "" and "• " prefix the rules titles
    table = worst_table()
    texts += [r.button_name(table.names(), seat) for seat in range(10)]
    texts += [party_short(t, p) for p in (LIBERAL, FASCIST)]
    texts += [b.text for row in rules_keyboard(t, "overview").inline_keyboard for b in row]
    texts += [b.text for row in rules_keyboard(t).inline_keyboard for b in row]
    texts += list(LANGUAGE_NAMES.values())
    for group in ({}, {"lang": lang, "timers": "off", "shuffle_seats": True, "rebalanced": True}):
        keyboard = settings_keyboard(t, -1_000_000_000_000, group, "normal")
        texts += [b.text for row in keyboard.inline_keyboard for b in row]  # with its ✅
    for text in texts:
        assert text.strip() and "\n" not in text, f"bad label {text!r}"
        assert "<" not in text and "&" not in text, f"labels are not HTML: {text!r}"
        assert len(text) <= MAX_LABEL, f"label over {MAX_LABEL} characters in {lang}: {text!r}"


def test_every_callback_data_fits_64_bytes() -> None:
    """The longest ids the formats allow, with every operation: within 64 bytes, parseable."""
    for op in cb.GAME_OPS:
        data = cb.game_data("z" * 12, 999_999, op, "9" * 16)
        assert len(data.encode()) <= cb.MAX_BYTES and cb.parse(data) is not None
    for op in cb.FREE_OPS:
        data = cb.free_data(op, "z" * 24)
        assert len(data.encode()) <= cb.MAX_BYTES and cb.parse(data) is not None
    table = worst_table()
    assert table.game is not None
    keyboards = [
        r.round_keyboard(translator("fr"), table),
        r.power_keyboard(translator("ja"), table),
        rules_keyboard(translator("fr")),
        r.language_keyboard("g"),
    ]
    for keyboard in keyboards:
        for row in keyboard.inline_keyboard if keyboard else []:
            for button in row:
                assert button.callback_data and len(str(button.callback_data).encode()) <= 64
