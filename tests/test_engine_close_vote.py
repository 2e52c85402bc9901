"""Closing a vote at the bot's deadline: missing ballots count as Nein!, or are not counted."""

from __future__ import annotations

import pytest

from shbot.engine import IllegalAction, Kind, Phase, Reason, Vote
from tests.engine_helpers import make, nominate, the


def test_missing_ballots_count_as_nein() -> None:
    g, _ = make(5)
    nominate(g, 1)
    g.apply(Vote(0, True))
    g.apply(Vote(1, True))
    events = g.close_vote(missing_count_as_nein=True)
    result = the(events, Kind.VOTE_RESULT).data
    assert result["votes"] == [1, 1, 0, 0, 0]
    assert (result["ja"], result["nein"], result["elected"]) == (2, 3, False)
    assert g.tracker == 1 and g.phase is Phase.NOMINATE
    assert g.history[-1][-1] == "jjnnn"


def test_missing_ballots_not_counted_needs_a_majority_of_ballots_cast() -> None:
    g, _ = make(5)
    nominate(g, 1)
    g.apply(Vote(0, True))
    g.apply(Vote(1, True))
    g.apply(Vote(2, False))
    events = g.close_vote(missing_count_as_nein=False)
    result = the(events, Kind.VOTE_RESULT).data
    assert result["votes"] == [1, 1, 0, None, None]
    assert (result["ja"], result["nein"], result["elected"]) == (2, 1, True)
    assert g.phase is Phase.PRESIDENT_DISCARD and g.history[-1][-1] == "jjn--"


def test_no_ballot_at_all_is_a_rejection_in_either_mode() -> None:
    for counted in (True, False):
        g, _ = make(5)
        nominate(g, 1)
        the(g.close_vote(missing_count_as_nein=counted), Kind.VOTE_RESULT)
        assert g.tracker == 1 and g.phase is Phase.NOMINATE


def test_closing_outside_a_vote_is_refused_and_changes_nothing() -> None:
    g, _ = make(5)
    before = g.to_json()
    with pytest.raises(IllegalAction) as exc:
        g.close_vote()
    assert exc.value.reason is Reason.WRONG_PHASE and g.to_json() == before
