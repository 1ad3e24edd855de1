"""The demo campaign `make run` loads into an empty database."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from characters import services as characters
from characters.models import AbilityKind, Character, CreationMethod, CreationRole
from community.models import Community
from community.services import community_found
from questworlds_site.accounts.models import User

from .models import Campaign, Membership, Role, Session
from .services import season_start

DEMO_PASSWORD = "questworlds"
DEMO_LOGINS = (
    ("gm", "Gwen the GM", "game master"),
    ("alice", "Alice", "player"),
    ("bob", "Bob", "player"),
)


def database_is_empty() -> bool:
    return not get_user_model().objects.exists()


@transaction.atomic
def demo_campaign_create() -> Campaign:
    """A GM, two players, their characters (Tamsin with her sidekick Oro, and Brannoc)
    and one community, ready to play."""
    User = get_user_model()
    users = {
        username: User.objects.create_user(
            username=username, password=DEMO_PASSWORD, display_name=display
        )
        for username, display, _ in DEMO_LOGINS
    }
    return demo_campaign_for(users)


def demo_campaign_for(users: dict[str, User], name: str = "The Sunken Crown") -> Campaign:
    """The demo campaign for demo users who exist already (`gm`, `alice`, `bob`), under
    `name`: the browser tests play in copies of it on one server."""
    campaign = Campaign.objects.create(
        name=name,
        genre="Bronze-age fantasy",
        description="The river city of Ashfen bargains with drowned gods for one more harvest.",
        gm=users["gm"],
    )
    for username in ("alice", "bob"):
        Membership.objects.create(campaign=campaign, user=users[username], role=Role.PLAYER)
    tamsin_create(users["alice"], campaign)
    brannoc_create(users["bob"], campaign)
    Community.objects.create(
        campaign=campaign,
        name="Ashfen",
        description="A city of stilts and ferries on the Grey River.",
        interval_name="season",
    )
    demo_archive_create(campaign)
    demo_community_resources(campaign)
    return campaign


def tamsin_create(player, campaign: Campaign) -> Character:
    """Alice's river guide, made with the list method (§3.5): 12 abilities counting her
    sidekick Oro (the free Ashfen keyword aside), all 20 points spent, two flaws."""
    tamsin = characters.character_create(
        player=player,
        name="Tamsin Reedwalker",
        concept="Stubborn river guide",
        creation_method=CreationMethod.LIST,
        campaign=campaign,
        traits=["Sun-browned and wiry", "A heron feather in her braid", "Mud to the knees"],
        portrait="A small, sharp-eyed woman with a punt pole she never puts down.",
    )

    def add(name: str, rating: int | None, kind: str = AbilityKind.STANDALONE, **kw) -> object:
        return characters.character_ability_add(
            character=tamsin, actor=player, name=name, kind=kind, rating=rating, **kw
        )

    guide = add("River Guide", 23, AbilityKind.KEYWORD, creation_role=CreationRole.DEFINING)
    add("Stubborn", 20, creation_role=CreationRole.DISTINGUISHING)
    add("Poling a Ferry", 3, AbilityKind.BREAKOUT, keyword=guide)
    add("Reading the Water", 2, AbilityKind.BREAKOUT, keyword=guide)
    add("Ashfen Born", 13, AbilityKind.KEYWORD, creation_role=CreationRole.FREE_KEYWORD)
    add("Swimming", 15)
    add("Knife Fighting", 14)
    add("Haggling with Bargemen", 14)
    add("Old Songs of the Drowned Gods", 14)
    add("Ferrymen's Guild", 14, AbilityKind.RELATIONSHIP, relationship="patron")
    add("Mother Ama", 13, AbilityKind.RELATIONSHIP, relationship="dependent")
    add("Patient", 13)
    characters.character_sidekick_set(
        character=tamsin,
        actor=player,
        name="Oro",
        description="A grey heron who fishes from Tamsin's ferry and warns of snags.",
        abilities=[
            ("Heron", 22, AbilityKind.KEYWORD),
            ("Keen Eyes", 18, AbilityKind.STANDALONE),
            ("Loyal to Tamsin", 17, AbilityKind.STANDALONE),
        ],
    )
    add("Can't Refuse a Plea for Help", None, AbilityKind.FLAW)
    add("Fears Deep Water at Night", None, AbilityKind.FLAW)
    return characters.character_creation_finish(character=tamsin, actor=player)


BRANNOC_PROSE = (
    "Brannoc Ironmouth was the finest singer of the Temple of the Drowned Gods until he "
    "sang a forbidden hymn at the spring rites. Disgraced and cast out, he now sings for "
    "coin in the taverns of Ashfen, where his voice can still hush a brawling crowd. He is "
    "proud, quick-tongued and hard to frighten. He reads the old temple script, knows every "
    "bargeman's drinking song, and keeps a battered lyre that once belonged to his teacher, "
    "Mother Sefa, who still sends him secret letters. The High Priest Corvane wants him "
    "silenced, and Brannoc drinks more than he should."
)


def brannoc_create(player, campaign: Campaign) -> Character:
    """Bob's disgraced singer, made with the prose method (§3.6): a paragraph of about
    100 words and the abilities underlined in it."""
    brannoc = characters.character_create(
        player=player,
        name="Brannoc Ironmouth",
        concept="Disgraced temple singer",
        creation_method=CreationMethod.PROSE,
        campaign=campaign,
        traits=["A voice like a temple bell", "Ink-stained fingers", "A battered lyre"],
    )
    characters.character_prose_set(character=brannoc, actor=player, prose=BRANNOC_PROSE)

    def add(
        phrase: str, name: str, rating: int | None, kind: str = AbilityKind.STANDALONE, **kw
    ) -> object:
        return characters.character_ability_add(
            character=brannoc,
            actor=player,
            name=name,
            kind=kind,
            rating=rating,
            phrase=phrase,
            **kw,
        )

    singer = add(
        "singer of the Temple",
        "Temple Singer",
        23,
        AbilityKind.KEYWORD,
        creation_role=CreationRole.DEFINING,
    )
    add("Disgraced", "Disgraced", 19, creation_role=CreationRole.DISTINGUISHING)
    add("hush a brawling crowd", "Hush a Brawling Crowd", 3, AbilityKind.BREAKOUT, keyword=singer)
    add("proud", "Proud", 14)
    add("quick-tongued", "Quick-Tongued", 15)
    add("hard to frighten", "Hard to Frighten", 15)
    add("old temple script", "Old Temple Script", 14)
    add("bargeman's drinking song", "Drinking Songs", 14)
    add("battered lyre", "Battered Lyre", 14)
    add("Mother Sefa", "Mother Sefa", 14, AbilityKind.RELATIONSHIP, relationship="patron")
    add("forbidden hymn", "The Forbidden Hymn", 13)
    add("drinks more than he should", "Drinks Too Much", None, AbilityKind.FLAW)
    add("High Priest Corvane", "High Priest Corvane", None, AbilityKind.FLAW)
    return characters.character_creation_finish(character=brannoc, actor=player)


# --- The archive's first page (issue 5) ------------------------------------------------


def demo_archive_create(campaign: Campaign) -> None:
    """Season 1 and one finished session with a recap, so the archive is not empty.

    The session is written as history, not played through `session_start`/`session_end`:
    the demo sheets keep the hero points a new character starts with.
    """
    season = season_start(campaign=campaign, actor=campaign.gm, name="The Low Water")
    ended = timezone.now() - timedelta(days=7)
    session = Session.objects.create(
        campaign=campaign,
        season=season,
        number=1,
        title="The ferry that would not sink",
        started_at=ended - timedelta(hours=3),
        ended_at=ended,
        recap_published_at=ended,
        recap=(
            "Tamsin poled the last ferry across the **Grey River** while Brannoc sang the "
            "drowned gods to sleep.\n\n"
            "- Oro spotted the sandbar in time.\n"
            "- Mother Sefa wants to know who taught Brannoc *that* hymn."
        ),
    )
    session.attendees.set(campaign.characters.all())


# --- Ashfen's resources (issue 7) -----------------------------------------------------


def demo_community_resources(campaign: Campaign) -> None:
    """Ashfen's five resources with the §8.1.3 spread: a trading city that talks its way
    out of trouble, keeps faith with its drowned gods and has few soldiers."""
    community_found(
        community=Community.objects.get(campaign=campaign),
        actor=campaign.gm,
        ranked_names=["Wealth", "Diplomacy", "Magic", "Morale", "Military"],
    )
