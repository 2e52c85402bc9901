"""The stored table (shbot.table.model) without the bot: what survives a save, what is owed
and delivered, duplicate updates, and display names that are safe to show anywhere."""

from __future__ import annotations

import json

import pytest

from shbot.engine import Nominate, Vote
from shbot.table import FSI, GROUP, MAX_NAME, PDI, Player, Table, clean_name
from shbot.table.model import MAX_CALLS, MAX_SEEN

from .table_helpers import fascist_round, game_of, lobby, person, press, scripted, started

# ---------------------------------------------------------------------- serialization


def busy_table() -> Table:
    """A game mid-way with every delivery field in use."""
    table = scripted(timer=60)
    fascist_round(table)
    press(table, game_of(table).president, Nominate(game_of(table).president, 3))
    table.shown = {"board": 11, "round:1": 12, "prompt:4": 13}
    table.record_calls([1.5, 2.5])
    table.duplicate("cq-1")
    table.duplicate("cq-2")
    table.missed = {"103": 2}
    table.reminded = True
    table.ending = None
    table.players[2].lang = "ja"
    return table


def test_a_table_survives_a_json_round_trip() -> None:
    table = busy_table()
    data = json.loads(json.dumps(table.to_dict()))
    again = Table.from_dict(data)
    assert again.to_dict() == table.to_dict()
    assert again.game == table.game and again.players == table.players
    assert again.owed == table.owed and again.shown == table.shown
    assert again.calls == [1.5, 2.5] and again.seen == ["cq-1", "cq-2"]
    assert again.missed == {"103": 2} and again.reminded and again.deadline == table.deadline


def test_a_copy_is_the_round_trip_without_parsing() -> None:
    """The commit path copies the table it holds instead of parsing the record: the copy
    must equal a round trip and share nothing that a change of either side touches."""
    table = busy_table()
    table.talk = {"claims": {"1": ["LLF"]}}
    table.owe("prompt:9", 101, {"seat": 2})
    before = json.dumps(table.to_dict(), sort_keys=True)
    twin = table.copy()
    assert twin.to_dict() == Table.from_dict(json.loads(before)).to_dict()
    press(twin, 0, Vote(0, True))
    twin.owe("board")
    twin.delivered("prompt:9", twin.owed["prompt:9"][0], 55, keep=True)
    twin.players[0].ready = not twin.players[0].ready
    twin.talk["claims"]["2"] = ["FFF"]
    twin.record_calls([9.0])
    twin.duplicate("cq-9")
    twin.missed["104"] = 1
    assert json.dumps(table.to_dict(), sort_keys=True) == before
    assert twin.to_dict() != table.to_dict()


def test_a_snapshot_keeps_the_game_as_it_was() -> None:
    table = busy_table()
    game_before = game_of(table).to_json()
    snap = table.snapshot()
    press(table, 0, Vote(0, True))
    assert game_of(snap).to_json() == game_before != game_of(table).to_json()


def test_an_ending_and_a_lobby_survive_the_round_trip() -> None:
    table = lobby(3)
    table.ending = "cancelled"
    again = Table.from_dict(json.loads(json.dumps(table.to_dict())))
    assert again.to_dict() == table.to_dict()
    assert again.ending == "cancelled" and again.game is None and again.deadline is None


def test_a_record_from_before_slots_keeps_its_message_ids() -> None:
    data = lobby(2).to_dict()
    del data["shown"]
    data["msgs"] = {"round3": 30, "prompt14": 40, "board": 50}
    assert Table.from_dict(data).shown == {"round:3": 30, "prompt:14": 40, "board": 50}
    minimal = Table.from_dict({"gid": "g", "host": 7})
    assert minimal.players == [] and minimal.owed == {} and minimal.missed == {}


def test_a_player_survives_the_round_trip() -> None:
    p = Player(5, "Zoë", "fr", True)
    assert Player.from_dict(json.loads(json.dumps(p.to_dict()))) == p
    assert Player.from_dict({"id": "6", "name": "X"}) == Player(6, "X", None, False)


# ---------------------------------------------------------------------- delivery


def test_owe_replaces_the_entry_and_keeps_the_payload() -> None:
    table = lobby(1)
    table.owe("round:2", payload={"log": [1]})
    seq = table.seq
    table.owe("round:2")
    assert table.owed["round:2"] == [seq + 1, GROUP, {"log": [1]}]
    table.owe("round:2", 42, {"log": [2]})
    assert table.owed["round:2"] == [seq + 2, 42, {"log": [2]}]


def test_delivered_forgets_the_slot_and_remembers_its_message() -> None:
    table = lobby(1)
    seq = table.owed["lobby"][0]
    table.delivered("lobby", seq, 77, keep=True)
    assert "lobby" not in table.owed and table.shown == {"lobby": 77}


def test_delivered_keeps_a_slot_owed_again_since() -> None:
    table = lobby(1)
    old = table.owed["lobby"][0]
    table.owe("lobby")
    table.delivered("lobby", old, 77, keep=True)
    assert table.owed["lobby"][0] == old + 1 and table.shown == {"lobby": 77}


def test_delivered_edit_keeps_and_final_message_forgets_the_message_id() -> None:
    table = lobby(1)
    table.shown["board"] = 5
    table.owe("board")
    table.delivered("board", table.seq, None, keep=True)  # an edit: the id is unchanged
    assert table.shown == {"board": 5} and table.owed == {"lobby": table.owed["lobby"]}
    table.owe("board")
    table.delivered("board", table.seq, 9, keep=False)  # never edited again
    assert "board" not in table.shown and "board" not in table.owed
    table.delivered("nothing", 999, 3, keep=False)  # unknown slot: harmless
    assert "nothing" not in table.shown


def test_duplicate_remembers_the_last_update_ids() -> None:
    table = lobby(1)
    assert not table.duplicate("a") and table.duplicate("a") and table.seen == ["a"]
    for i in range(MAX_SEEN):
        assert not table.duplicate(f"k{i}")
    assert len(table.seen) == MAX_SEEN and table.seen[-1] == f"k{MAX_SEEN - 1}"
    assert not table.duplicate("a")  # forgotten after MAX_SEEN newer ones
    assert table.duplicate(f"k{MAX_SEEN - 1}") and len(table.seen) == MAX_SEEN


def test_record_calls_keeps_the_latest_sorted() -> None:
    table = lobby(1)
    table.record_calls([float(x) for x in range(30, 0, -1)])
    assert table.calls == [float(x) for x in range(11, 31)] and len(table.calls) == MAX_CALLS


def test_restart_clock_follows_the_timer_option() -> None:
    table = scripted(timer=45)
    table.reminded = True
    table.restart_clock(now=100.0)
    assert table.deadline == 145.0 and not table.reminded
    table.options["timer"] = None
    table.restart_clock(now=100.0)
    assert table.deadline is None


# ---------------------------------------------------------------------- people


def test_names_are_made_unique_and_follow_the_seats() -> None:
    table = Table(gid="g", host=1, created=0.0, players=[Player(i, "Ann") for i in range(3)])
    table.players.append(Player(9, "Bob"))
    assert table.names() == ["Ann #1", "Ann #2", "Ann #3", "Bob"]
    game, _ = started(6, seed=4, shuffle_seats=True)
    assert game.names() == [game.at(s).name for s in range(6)]
    assert game.seat_of(999) is None and lobby(2).seat_of(100) is None
    assert game.player(101) == person(1) and game.player(999) is None
    assert game.key("board") == f"{game.gid}:board"


def test_result_only_once_finished() -> None:
    assert scripted().result() is None and lobby(2).result() is None


# ---------------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("<b>Bob</b> & <i>co", "<b>Bob</b> & <i>co"),  # escaped by the renderers, not here
        ("\u202eevil\u202c", "evil"),
        ("\u200fעלי\u200e", "עלי"),
        ("\u2067x\u2069 \u2066y\u2069", "x y"),
        ("Ali\u061c", "Ali"),
        ("a\u200bb\u00adc", "abc"),  # zero-width space, soft hyphen
        ("nul\x00bell\x07", "nulbell"),
        ("  lots   of\u3000space  ", "lots of space"),
        ("👨\u200d👩\u200d👧 family", "👨\u200d👩\u200d👧 family"),  # joiners kept
        ("🇫🇷 ❤️", "🇫🇷 ❤️"),
        ("Zoë 東京", "Zoë 東京"),
    ],
)
def test_clean_name(raw: str, shown: str) -> None:
    assert clean_name(raw, "fallback") == shown


@pytest.mark.parametrize("raw", [None, "", "   ", "\u200f\u200e", "\u202e", FSI + PDI, "\x00\n"])
def test_an_empty_name_falls_back(raw: str | None) -> None:
    assert clean_name(raw, "Player 3") == "Player 3"


def test_a_long_name_is_cut_to_max_name() -> None:
    assert clean_name("a" * MAX_NAME, "f") == "a" * MAX_NAME
    cut = clean_name("b" * (MAX_NAME + 1), "f")
    assert cut == "b" * (MAX_NAME - 1) + "…" and len(cut) == MAX_NAME
    assert clean_name("x" * 30 + " " + "y" * 10, "f") == "x" * 30 + "…"  # no space before …
    emoji = clean_name("😀" * 50, "f")
    assert len(emoji) == MAX_NAME and emoji.encode("utf-8").decode("utf-8") == emoji


def test_whitespace_controls_separate_words() -> None:
    assert clean_name("Anna\nMaria\tRosa", "f") == "Anna Maria Rosa"


def test_a_name_of_only_joiners_falls_back() -> None:
    assert clean_name("\u200d\u200d", "Player 1") == "Player 1"


def test_names_stay_unique_when_a_name_looks_numbered() -> None:
    people = [Player(1, "Ann"), Player(2, "Ann"), Player(3, "Ann #1")]
    names = Table(gid="g", host=1, created=0.0, players=people).names()
    assert len(set(names)) == 3, names


def test_a_lone_surrogate_in_a_name_is_dropped() -> None:
    """A forged update can carry "\\ud800" (valid JSON, not valid UTF-8): the stored game
    must still encode, so the name keeps only real characters."""
    assert clean_name("A\ud800B", "f") == "AB"
    assert clean_name("\udfff", "Player 1") == "Player 1"
