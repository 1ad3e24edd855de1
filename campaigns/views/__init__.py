"""Campaign pages. Thin views: check access (campaigns.access), call a service or a
selector, render.

By page: `campaign.py` (the campaign, its options and members, invitations, NPCs,
its exports and import), `sessions.py` (seasons and sessions, the recap), `archive.py`
(the archive, for members and on the public link) and `webhook.py` (the GM's Discord
relay).
"""

from .archive import (
    archive_contest,
    archive_contests,
    archive_search,
    archive_session,
    archive_timeline,
    public_contest,
    public_contests,
    public_search,
    public_session,
    public_timeline,
)
from .campaign import (
    campaign_create,
    campaign_detail,
    campaign_edit,
    campaign_export_json,
    campaign_export_markdown,
    campaign_hand_over,
    campaign_import_json,
    campaign_leave,
    campaign_members,
    campaign_options,
    campaign_publish,
    campaign_unpublish,
    home,
    invitation_accept,
    invitation_create,
    invitation_revoke,
    landing,
    membership_remove,
    npc_delete,
    npc_edit,
    npc_list,
)
from .sessions import season_start, session_edit, session_end, session_start
from .webhook import campaign_webhook, campaign_webhook_remove, campaign_webhook_test

__all__ = [
    "archive_contest",
    "archive_contests",
    "archive_search",
    "archive_session",
    "archive_timeline",
    "campaign_create",
    "campaign_detail",
    "campaign_edit",
    "campaign_export_json",
    "campaign_export_markdown",
    "campaign_hand_over",
    "campaign_import_json",
    "campaign_leave",
    "campaign_members",
    "campaign_options",
    "campaign_publish",
    "campaign_unpublish",
    "campaign_webhook",
    "campaign_webhook_remove",
    "campaign_webhook_test",
    "home",
    "invitation_accept",
    "invitation_create",
    "invitation_revoke",
    "landing",
    "membership_remove",
    "npc_delete",
    "npc_edit",
    "npc_list",
    "public_contest",
    "public_contests",
    "public_search",
    "public_session",
    "public_timeline",
    "season_start",
    "session_edit",
    "session_end",
    "session_start",
]
