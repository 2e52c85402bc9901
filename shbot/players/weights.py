"""How much each public fact moves a seat's suspicion (the reader's weights, shared by
every seat so a Fascist can read the score as "what the Liberals think")."""

from __future__ import annotations

KNOWN = 10.0
"""Score of a seat whose party this seat knows: +KNOWN Fascist, -KNOWN trusted."""
ENACT_F = 0.8
"""Suspicion for each member of a government that enacted a Fascist policy."""
ENACT_L = 0.6
"""Trust earned by each member of a government that enacted a Liberal policy."""
VOTE_F = 0.3
"""Suspicion for a Ja vote on a government that then enacted a Fascist policy."""
VOTE_L = 0.5
"""Suspicion for a Nein vote on a government that then enacted a Liberal policy."""
VOTE_BAD = 0.4
"""Suspicion for a Ja vote on a government with a seat this one knows is Fascist."""
CONFLICT = 2.0
"""Suspicion for both sides of claims that cannot both be true."""
LIE = 5.0
"""Suspicion for a claim that contradicts the public record by itself."""
ADMIT = 3.0
"""Suspicion for a claim that admits a Fascist play (discarded or skipped a Liberal)."""
LUCK = 0.5
"""Suspicion taken back from a government whose claims say it had only Fascist tiles."""
SILENT = 0.5
"""Suspicion for saying nothing after a Fascist policy."""
ACCUSED = 4.0
"""Suspicion for a seat a trusted President says is Fascist (scaled by that trust)."""
CLEARED = 3.0
"""Trust for a seat a trusted President says is Liberal (scaled by that trust)."""
DISPUTE = 1.5
"""Suspicion for each side when the President claims a Liberal the Chancellor says they
never got, and a Fascist policy passed: people split such disputes about half and half."""
DECK_BLAME = 4.0
"""Suspicion shared by the claims that need more tiles of a kind than the pile held."""
BACKED = 0.4
"""Hitler evidence for a chancellor nominated, once Hitler can win, per point a suspect
President is distrusted (up to 3)."""
BACKED_VOTE = 0.15
"""The same for each suspect's Ja vote on that chancellor."""
