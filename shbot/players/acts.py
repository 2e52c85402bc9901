"""What each act of a computer player tells about its side: the knobs matched to people's
rates (``../shared/players/human-reference.md``, 7 players; measured by ``shbot.likeness``).

No act of a computer should be a tell a group can farm (``shbot.exploits``): these rates
are set so that each act carries about as much information about the side as the same act
by a person. The heuristic (:mod:`.heuristic`) reads them at decision time.
"""

from __future__ import annotations

from shbot.engine import HITLER, LIBERAL

MATE_PICK = {False: 0.35, True: 0.3}
"""How often a Fascist President picks a teammate other than Hitler as chancellor, before
(False) and from (True) three Fascist policies (people: nominee Fascist-team 29 %, 37 %)."""
HITLER_PICK = 0.1
"""How often a Fascist President nominates Hitler once he can win (people: 26 %)."""
WILD_PICK = {LIBERAL: 0.15, HITLER: 0.5}
"""How often a Liberal (Hitler) President nominates any eligible seat, at random."""
BACK_MATE = 0.05
"""How often a Fascist turns a Nein into Ja on a government with a teammate."""
DOUBT = {False: 0.15, True: 0.2}
"""How often a Fascist-team voter turns a Ja into Nein (before, from 3 Fascist policies),
as Liberals do with what they alone know."""
BACK_HITLER = 0.5
"""How often a Fascist votes Ja on Hitler as chancellor once he can win, whatever the
table thinks of him (otherwise it votes as a Liberal reading the table would)."""
LOOK_TRUSTED = 0.3
"""How often a Liberal investigates the seat it trusts most, to confirm a chancellor
(people's investigations hit the Fascist team 43 % of the time, below an even guess)."""
WILD_LOOK = 0.65
"""How often a Liberal investigates any seat it does not know, at random."""
WILD_SHOT = 0.55
"""How often a Liberal shoots any seat it does not know, at random (people's shots hit the
Fascist team 65 % of the time)."""
DROP_LIBERAL = 0.07
"""How often a Liberal President discards a Liberal over a Fascist (people do: a misread,
a test of the Chancellor)."""
BURN = {5: 0.0, 6: 0.0, 7: 0.4, 8: 0.0, 9: 0.0, 10: 0.0}
"""How often a Fascist-team President who drew one Fascist discards a Liberal when the
Chancellor is no teammate, by player count: the Liberal tile leaves the deck and the claim
covers it (🔴🔴🔵), as people do (their Fascist Presidents discard a Liberal in 45 % of
their sessions, 🔴🔵🔵 claims are Fascist-team only 34 % of the time)."""
