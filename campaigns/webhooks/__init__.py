"""The Discord relay (issue 30): a campaign's news (a session starts or ends, a contest
is framed or decided, a recap is published) posted to the GM's webhook.

For the rest of the app, one call: `announce(campaign, kind, text)` (outbox.py), with
the words from `texts`. The GM's page uses `services`; the URL's guard is `addresses`,
one POST is `delivery`.
"""

from .outbox import announce

__all__ = ["announce"]
