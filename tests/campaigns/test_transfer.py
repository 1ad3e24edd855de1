"""Exporting a whole campaign as JSON and importing it into a fresh install, and the
Markdown chronicle, table chat included."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.urls import reverse

from campaigns import services
from campaigns.access import ArchiveViewer
from campaigns.demo import demo_campaign_create
from campaigns.models import Campaign, Role
from campaigns.transfer import campaign_chronicle, campaign_export, campaign_import
from characters import services as character_services
from characters.models import Ability, Character, Condition, LedgerStep
from community import services as community_services
from community.models import AnswerMode, Community, DrawStatus, IntervalRecord, Resource
from community.selectors import questionnaire_scores
from contests.core.rules import fixed_rolls
from contests.models import ChatMessage, Contest, ContestParticipant, ContestStatus
from contests.services import chat_post

from .conftest import act, committed_at_once, frame, play_rounds

# The module's tests share one played campaign, built once on one worker.
pytestmark = pytest.mark.xdist_group("transfer")


def played_campaign_create() -> Campaign:
    """The demo campaign after two sessions, with contests, conditions and NPCs.

    In session 2 ("Flood") Tamsin loses a scored contest against the Grey River (the
    GM's rolls hidden, a hero point spent) and the GM confirms an impairment and a wound
    on her River Guide; then she and Brannoc drive off raiders whom Captain Voss joins.
    """
    campaign = demo_campaign_create()
    gm = campaign.gm
    services.campaign_options_update(
        campaign=campaign,
        actor=gm,
        better_roll="low",
        resistance_progression=3,
        roll_visibility="gm_hidden",
    )
    voss = services.npc_create(
        campaign=campaign, actor=gm, name="Captain Voss", rating="5M", notes="Bribed"
    )
    river = services.npc_create(campaign=campaign, actor=gm, name="The Grey River", rating=14)
    tamsin = Character.objects.get(name="Tamsin Reedwalker")
    brannoc = Character.objects.get(name="Brannoc Ironmouth")
    alice = tamsin.player
    guide = Ability.objects.get(character=tamsin, name="River Guide")
    session = services.session_start(campaign=campaign, actor=gm, title="Flood")

    crossing = frame(
        campaign,
        gm,
        "scored",
        prize="Cross the river",
        pc={"character_id": tamsin.pk},
        opponent={"npc_id": river.pk},
    )
    act(crossing, alice, "choose_ability", side="pc", ability_id=guide.pk)  # 3M
    act(crossing, alice, "set_tactic", side="pc", tactic="Pole")
    # 12 fails against 3, her mastery makes it a success; the river's secret 9 succeeds
    # too and the lower roll wins (campaign option); her hero point makes a critical.
    act(crossing, gm, "roll", rolls=(12, 9))
    act(crossing, alice, "hero_point", side="pc")
    act(crossing, gm, "resolve")
    play_rounds(crossing, gm, 20, 5)  # a fumble, bumped to a failure, round after round
    act(
        crossing,
        gm,
        "apply_consequences",
        consequences=[{"side": "pc", "state": "impaired"}, {"side": "pc", "state": "hurt"}],
    )
    # No table action writes a contest's GM notes yet (an imported archive brings them).
    Contest.objects.filter(pk=crossing.pk).update(gm_notes="Voss paid the river.")

    raid = frame(
        campaign,
        gm,
        "group_scored",
        prize="Drive off the raiders",
        participants=[
            {"character_id": tamsin.pk},
            {"character_id": brannoc.pk, "ability_id": brannoc.abilities.get(name="Proud").pk},
            {"name": "Raiders", "rating": 14},
        ],
    )
    knife = Ability.objects.get(character=tamsin, name="Knife Fighting")
    act(raid, alice, "choose_ability", participant="Tamsin Reedwalker", ability_id=knife.pk)
    act(raid, gm, "join", npc_id=voss.pk, side="opponent")  # from the library
    act(raid, gm, "engage", pc="Tamsin Reedwalker", opponent="Raiders")
    act(raid, gm, "engage", pc="Brannoc Ironmouth", opponent="Captain Voss")
    # A critical against a fumble: 5 RP, the raiders are out at once; Voss's mastery
    # makes his fumble a failure, so he takes 3 RP a round.
    act(raid, gm, "play_round", rolls=(1, 20), pairing=1)
    act(raid, gm, "resolve")
    while raid.status == ContestStatus.RUNNING:
        act(raid, gm, "play_round", rolls=(1, 20), pairing=2)
        act(raid, gm, "resolve")
    act(raid, gm, "apply_consequences")

    services.session_end(session=session, actor=gm, recap="The *flood* came.")
    services.session_recap_publish(session=session, actor=gm)
    services.season_start(campaign=campaign, actor=gm, name="High Water")
    services.session_start(campaign=campaign, actor=gm, title="Still going")
    return campaign


@pytest.fixture(scope="module")
def played_once(django_db_setup, django_db_blocker):
    """The played campaign, committed once for this module: playing it takes seconds.
    Each test runs in a transaction rolled back at its end, so what a test changes (a
    wipe, an import) no other test sees."""
    with django_db_blocker.unblock(), committed_at_once():
        pk = played_campaign_create().pk
    yield pk
    with django_db_blocker.unblock():
        wipe(Campaign.objects.get(pk=pk))


@pytest.fixture
def played_campaign(db, played_once):
    return Campaign.objects.get(pk=played_once)


def wipe(campaign: Campaign, *, keep_users: tuple[str, ...] = ()) -> None:
    """Everything of the campaign gone, as on a fresh install."""
    Contest.objects.filter(campaign=campaign).delete()
    Character.objects.filter(campaign=campaign).delete()
    campaign.delete()
    get_user_model().objects.exclude(username__in=keep_users).delete()


def test_the_json_export_imports_into_a_fresh_install_with_the_same_result(played_campaign):
    exported = json.loads(json.dumps(campaign_export(played_campaign)))
    wipe(played_campaign)
    imported = campaign_import(data=exported)
    again = json.loads(json.dumps(campaign_export(imported)))
    assert again == exported


def test_a_recap_keeps_its_state_and_a_file_from_before_drafts_keeps_it_shown(played_campaign):
    """Published or a draft, a recap comes back as it left (issue 30); a file written
    before drafts existed has no such field, and its recaps were everyone's."""
    exported = json.loads(json.dumps(campaign_export(played_campaign)))
    flood = next(s for s in exported["sessions"] if s["title"] == "Flood")
    assert flood["recap"] == "The *flood* came." and flood["recap_published_at"]
    flood["recap_published_at"] = None
    wipe(played_campaign)
    imported = campaign_import(data=exported)
    assert imported.sessions.get(title="Flood").recap_published_at is None
    del flood["recap_published_at"]
    wipe(imported)
    older = campaign_import(data=exported).sessions.get(title="Flood")
    assert older.recap == "The *flood* came." and older.recap_published_at == older.ended_at


@pytest.fixture
def community_campaign(played_campaign):
    """The played campaign whose Ashfen answered its questionnaire, then played two
    seasons in session 3: background events, a draw settled by contest 1, a penalty,
    crisis tests and a narrated crisis, the first season's end, then more events and a
    bolstering in the second."""
    campaign, gm = played_campaign, played_campaign.gm
    alice, bob = (get_user_model().objects.get(username=n) for n in ("alice", "bob"))
    community = Community.objects.get(campaign=campaign)
    community_services.community_update(
        community=community, actor=gm, name="Ashfen", answer_mode=AnswerMode.PER_PLAYER
    )
    r = {res.name: res for res in community.resources.all()}
    feeds = community_services.question_add(
        community=community,
        actor=gm,
        text="What feeds Ashfen?",
        choices=[
            ("Trade", {r["Wealth"].pk: 3, r["Diplomacy"].pk: 1}),
            ("The drowned gods", {r["Magic"].pk: 3}),
            ("The guard", {r["Military"].pk: 2, r["Morale"].pk: -1}),
        ],
    )
    fear = community_services.question_add(
        community=community,
        actor=gm,
        text="What does Ashfen fear?",
        choices=[("Floods", {r["Magic"].pk: 2}), ("Raiders", {r["Military"].pk: 3})],
    )
    answers = [(feeds, alice, 0), (feeds, bob, 1), (fear, alice, 1), (fear, bob, 1)]
    for question, player, index in answers:
        community_services.questionnaire_answer(
            question=question, actor=player, choice=list(question.choices.all())[index]
        )
    community_services.community_spread_from_questionnaire(community=community, actor=gm)
    community_services.required_use_add(
        community=community, actor=gm, resource=r["Magic"], action="Calm the river"
    )
    # ---- Season 1 (session 3 is open).
    community_services.community_background_events(
        community=community, actor=gm, roller=fixed_rolls(1, 10, 5, 5, 10, 2, 15, 19, 12, 20)
    )
    tamsin = Character.objects.get(name="Tamsin Reedwalker")
    contest = campaign.contests.get(number=1)
    draw = community_services.community_draw_start(
        community=community,
        actor=alice,
        resource=Resource.objects.get(pk=r["Wealth"].pk),
        character=tamsin,
        ability=Ability.objects.get(character=tamsin, name="Ferrymen's Guild"),
        purpose="a barge for the crossing",
        roller=fixed_rolls(1, 20),
    )
    community_services.community_draw_settle(
        draw=draw, actor=gm, outcome_level=-2, contest_id=contest.pk
    )
    community_services.community_penalty_from_defeat(
        community=community, actor=gm, resource=r["Morale"], outcome_level=-3, reason="Routed"
    )
    # The penalised resources face crisis tests (§8.2.5), and lose them.
    community_services.community_crisis_tests(
        community=community, actor=gm, roller=fixed_rolls(*[20, 1] * 5)
    )
    in_crisis = community.resources.filter(crisis__gt=0).first()
    community_services.community_crisis_narrate(
        community=community, actor=gm, resource=in_crisis, text="The market stalls stand empty."
    )
    community_services.community_interval_end(community=community, actor=gm, interval=1)
    # ---- Season 2.
    community_services.community_background_events(
        community=community, actor=gm, roller=fixed_rolls(20, 1, 2, 3, 1, 20, 1, 1, 11, 20)
    )
    community_services.community_bolster(
        community=community,
        actor=gm,
        resource=r["Diplomacy"],
        outcome_level=2,
        contest_id=contest.pk,
    )
    return Campaign.objects.get(pk=campaign.pk)


def test_the_whole_community_survives_the_round_trip(community_campaign):
    exported = json.loads(json.dumps(campaign_export(community_campaign)))
    community = exported["community"]
    assert [r["name"] for r in community["resources"]] == [
        "Wealth",
        "Diplomacy",
        "Magic",
        "Morale",
        "Military",
    ]
    assert community["interval_number"] == 2 and community["answer_mode"] == "per_player"
    assert {s["interval"] for s in community["steps"]} == {1, 2}
    assert sum(len(s["changes"]) for s in community["steps"]) > 10
    [draw] = community["draws"]
    assert (draw["status"], draw["contest"], draw["resource"]) == ("settled", 1, "Wealth")
    tamsin_key = next(
        c["key"] for c in exported["characters"] if c["sheet"]["name"] == "Tamsin Reedwalker"
    )
    assert draw["character"] == tamsin_key and draw["actor"] == "alice"
    assert [s["kind"] for s in community["steps"] if s["draw"] == 1] == ["lobbying", "depletion"]
    assert {r["id"] for r in community["intervals"][0]["rows"]} == {
        r["name"] for r in community["resources"]
    }
    assert community["questions"][0]["choices"][0]["scores"] == {"Wealth": 3, "Diplomacy": 1}
    assert [a["user"] for a in community["questions"][1]["answers"]] == ["alice", "bob"]
    assert community["crisis_tests_session"] == 3
    assert community["required_uses"] == [{"resource": "Magic", "action": "Calm the river"}]

    wipe(community_campaign)
    imported = campaign_import(data=exported)
    again = json.loads(json.dumps(campaign_export(imported)))
    assert again == exported

    # The imported rows point at the new characters, contests, sessions and resources.
    community = Community.objects.get(campaign=imported)
    draw = community.draws.get()
    assert draw.status == DrawStatus.SETTLED
    assert draw.character == Character.objects.get(name="Tamsin Reedwalker")
    assert draw.contest == imported.contests.get(number=1)
    assert draw.steps.count() == 2
    assert community.crisis_tests_session == imported.sessions.get(number=3)
    resource_ids = set(community.resources.values_list("pk", flat=True))
    record = IntervalRecord.objects.get(community=community, number=1)
    assert {row["id"] for row in record.rows} == resource_ids
    scores = community.questions.first().choices.first().scores
    assert {int(pk) for pk in scores} <= resource_ids
    assert questionnaire_scores(community) != dict.fromkeys(resource_ids, 0)


def test_the_export_holds_the_whole_campaign(played_campaign):
    data = campaign_export(played_campaign)
    assert data["campaign"]["gm"] == "gm"
    assert data["campaign"]["rules"]["better_roll"] == "low"
    assert data["campaign"]["resistance_progression"] == 3
    assert {m["username"] for m in data["members"]} == {"alice", "bob"}
    tamsin = next(c for c in data["characters"] if c["sheet"]["name"] == "Tamsin Reedwalker")
    assert tamsin["player"] == "alice"
    assert tamsin["sheet"]["followers"][0]["name"] == "Oro"
    assert [c["state"] for c in tamsin["conditions"]] == ["impaired", "hurt", "invigorated"]
    assert tamsin["conditions"][0]["abilities"] == [f"{tamsin['key']}:River Guide"]
    assert [c["contest"] for c in tamsin["conditions"]] == [1, 1, 2]
    reasons = [step["reason"] for step in tamsin["ledger"]]
    assert reasons[-4:] == ["session_start", "hp_spend", "session_end", "session_start"]
    assert [s["number"] for s in data["seasons"]] == [1, 2]
    assert [s["base_resistance"] for s in data["seasons"]] == [14, 17]
    assert [s["recap"] != "" for s in data["sessions"]] == [True, True, False]
    assert {n["name"] for n in data["npcs"]} == {"Captain Voss", "The Grey River"}
    assert data["community"]["name"] == "Ashfen"
    crossing, raid = data["contests"]
    assert crossing["gm_notes"] == "Voss paid the river."
    assert [e["type"] for e in crossing["events"]] == [
        "framed",
        "choose_ability",
        "set_tactic",
        "roll",
        "hero_point",
        *["resolve", "roll"] * 3,
        "resolve",
        "apply_consequences",
    ]
    # Ids inside JSON become keys that survive a move to another database.
    pc = crossing["framing"]["pc"]
    assert (pc["character_id"], pc["player_id"]) == (tamsin["key"], "alice")
    events = {e["type"]: e["payload"] for e in crossing["events"]}
    assert events["hero_point"]["hero_point"] == {"side": "pc", "character_id": tamsin["key"]}
    assert {a["character_id"] for a in events["apply_consequences"]["applied"]} == {tamsin["key"]}
    events = {e["type"]: e["payload"] for e in raid["events"]}
    assert events["join"]["data"]["npc_id"] == "Captain Voss"
    assert events["choose_ability"]["data"]["ability_id"] == f"{tamsin['key']}:Knife Fighting"
    text = json.dumps(data)
    assert "public_token" not in text and "token" not in data["campaign"]


def test_imported_ids_point_at_the_new_rows(played_campaign):
    exported = campaign_export(played_campaign)
    wipe(played_campaign)
    campaign = campaign_import(data=exported)
    tamsin = Character.objects.get(name="Tamsin Reedwalker")
    guide = Ability.objects.get(character=tamsin, name="River Guide")
    contest = campaign.contests.get(number=1)
    assert contest.framing["pc"]["character_id"] == tamsin.pk
    assert contest.framing["pc"]["player_id"] == tamsin.player_id
    assert contest.events.get(type="hero_point").payload["hero_point"]["character_id"] == (
        tamsin.pk
    )
    assert contest.participants.get(side="pc").character == tamsin
    raid = campaign.contests.get(number=2)
    voss = campaign.npcs.get(name="Captain Voss")
    assert raid.events.get(type="join").payload["data"]["npc_id"] == voss.pk
    knife = Ability.objects.get(character=tamsin, name="Knife Fighting")
    assert raid.events.get(type="choose_ability").payload["data"]["ability_id"] == knife.pk
    impaired = Condition.objects.get(character=tamsin, state="impaired")
    assert impaired.contest_id == contest.pk and list(impaired.abilities.all()) == [guide]
    assert tamsin.in_session  # the second session is still open
    assert campaign.sessions.get(number=3).is_open
    assert Community.objects.get(campaign=campaign).name == "Ashfen"
    # Undo still works on the restored ledger: its snapshot points at the new abilities.
    step = LedgerStep.objects.filter(character=tamsin).order_by("-created_at", "-id").first()
    assert step.reason == "session_start"
    assert all(
        int(pk) in {a.pk for a in tamsin.abilities.all()} for pk in step.state_before["abilities"]
    )


def test_undo_in_an_imported_campaign_reverses_the_imported_rows(played_campaign):
    """What an undo reverses is named by id in event payloads (the conditions a
    confirmation applied, the participant a join added) and in ledger snapshots (the
    follower a sidekick step changed): after an import they are the imported rows."""
    campaign, gm = played_campaign, played_campaign.gm
    tamsin = Character.objects.get(name="Tamsin Reedwalker")
    brannoc = Character.objects.get(name="Brannoc Ironmouth")
    ford = frame(
        campaign,
        gm,
        "group_scored",
        prize="Hold the ford",
        participants=[{"character_id": brannoc.pk}, {"name": "Reavers", "rating": 14}],
    )
    act(ford, gm, "join", npc_id=campaign.npcs.get(name="Captain Voss").pk, side="opponent")
    oro = tamsin.followers.get(name="Oro")
    character_services.character_sidekick_lose(
        character=tamsin, actor=gm, follower=oro, reason="Swept away"
    )
    exported = json.loads(json.dumps(campaign_export(campaign)))
    crossing, raid, ford = exported["contests"]
    tamsin_key = next(
        c["key"] for c in exported["characters"] if c["sheet"]["name"] == "Tamsin Reedwalker"
    )
    # By key in the file, as every other id.
    [confirmed] = [e for e in crossing["events"] if e["type"] == "apply_consequences"]
    assert confirmed["payload"]["conditions"] == [f"{tamsin_key}:1", f"{tamsin_key}:2"]
    [joined] = [e for e in ford["events"] if e["type"] == "join"]
    assert joined["payload"]["participant_row"] == "3:3"
    lost = next(c for c in exported["characters"] if c["key"] == tamsin_key)["ledger"][-1]
    assert lost["state_before"]["follower"]["id"] == f"{tamsin_key}:Oro"

    wipe(campaign, keep_users=("gm", "alice", "bob"))
    imported = campaign_import(data=exported)
    tamsin = Character.objects.get(name="Tamsin Reedwalker")
    oro = tamsin.followers.get(name="Oro")
    # The sidekick's loss is undone on the imported Oro.
    assert oro.lost
    character_services.character_step_undo(character=tamsin, actor=gm)
    oro.refresh_from_db()
    assert not oro.lost and oro.abilities.count() == 3

    crossing = imported.contests.get(number=1)
    applied = list(Condition.objects.filter(contest_id=crossing.pk))
    assert [c.state for c in applied] == ["impaired", "hurt"]
    event = crossing.events.get(type="apply_consequences")
    assert event.payload["conditions"] == [c.pk for c in applied]
    raid = imported.contests.get(number=2)
    invigorated = {c.pk for c in Condition.objects.filter(contest_id=raid.pk)}
    assert set(raid.events.get(type="apply_consequences").payload["conditions"]) == invigorated
    act(raid, gm, "undo")  # the GM's confirmation of the benefits
    ended = Condition.objects.filter(pk__in=invigorated, end_reason="the GM undid the consequences")
    assert ended.count() == 2
    assert Condition.objects.get(state="impaired").ended_at is None

    ford = imported.contests.get(number=3)
    voss = ford.participants.get(name="Captain Voss")
    assert ford.events.get(type="join").payload["participant_row"] == voss.pk
    others = ContestParticipant.objects.exclude(contest=ford).count()
    act(ford, gm, "undo")
    assert sorted(ford.participants.values_list("name", flat=True)) == [
        "Brannoc Ironmouth",
        "Reavers",
    ]
    assert ContestParticipant.objects.exclude(contest=ford).count() == others


def test_an_export_from_before_the_payload_keys_still_imports(played_campaign):
    """Files exported before event payloads and ledger snapshots had their ids turned
    into keys hold the old database's ids there: they import, and those ids name no
    row (an undo then reverses nothing rather than someone else's row)."""
    exported = json.loads(json.dumps(campaign_export(played_campaign)))
    for contest in exported["contests"]:
        for event in contest["events"]:
            payload = event["payload"]
            if "conditions" in payload:
                payload["conditions"] = [1, 2]
            if "participant_row" in payload:
                payload["participant_row"] = 6
    wipe(played_campaign)
    campaign = campaign_import(data=exported)
    raid = campaign.contests.get(number=2)
    assert raid.events.get(type="join").payload["participant_row"] is None
    assert raid.events.get(type="apply_consequences").payload["conditions"] == [None, None]


def test_people_are_matched_by_username_or_created_inactive(played_campaign):
    exported = campaign_export(played_campaign)
    wipe(played_campaign, keep_users=("alice",))
    alice = get_user_model().objects.get(username="alice")
    campaign = campaign_import(data=exported)
    assert campaign.memberships.get(role=Role.PLAYER, user__username="alice").user == alice
    bob = get_user_model().objects.get(username="bob")
    assert not bob.is_active and not bob.has_usable_password()
    assert bob.display_name == "Bob"
    assert campaign.gm.username == "gm" and not campaign.gm.is_active


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (lambda d: {**d, "format": "something else"}, "This is not a campaign export"),
        (lambda d: {**d, "version": 99}, "this site reads version 1"),
        (
            lambda d: {**d, "contests": [{**d["contests"][0], "session": 42}]},
            "contest 1: session 42 is not in the file",
        ),
        (
            lambda d: {**d, "campaign": {**d["campaign"], "rules": {"better_roll": "x"}}},
            "better_roll must be one of",
        ),
        (
            lambda d: {
                **d,
                "contests": [
                    {
                        **d["contests"][0],
                        "events": [
                            {**e, "payload": {**e["payload"], "mood": "tense"}}
                            for e in d["contests"][0]["events"]
                        ],
                    }
                ],
            },
            "contest 1, event 1: a 'framed' event's payload",
        ),
    ],
)
def test_a_bad_file_imports_nothing(played_campaign, spoil, message):
    exported = campaign_export(played_campaign)
    wipe(played_campaign)
    with pytest.raises(ValidationError) as raised:
        campaign_import(data=spoil(exported))
    assert message in " ".join(raised.value.messages)
    assert not Campaign.objects.exists() and not Character.objects.exists()
    assert not get_user_model().objects.exists()


def test_the_management_commands_round_trip(played_campaign, tmp_path):
    path = tmp_path / "campaign.json"
    call_command("export_campaign", played_campaign.pk, output=str(path))
    exported = json.loads(path.read_text())
    wipe(played_campaign)
    call_command("import_campaign", str(path))
    assert campaign_export(Campaign.objects.get()) == exported


def test_the_import_command_refuses_a_file_of_another_shape(played_campaign, tmp_path):
    exported = campaign_export(played_campaign)
    exported["members"] = [1]  # a number where a member's object belongs
    wipe(played_campaign)
    path = tmp_path / "campaign.json"
    path.write_text(json.dumps(exported))
    with pytest.raises(CommandError, match="does not have the shape of a campaign export"):
        call_command("import_campaign", str(path))
    assert not Campaign.objects.exists() and not Character.objects.exists()


def test_the_gm_downloads_the_json_and_players_cannot(client, played_campaign):
    client.force_login(played_campaign.gm)
    response = client.get(reverse("campaign_export_json", args=[played_campaign.pk]))
    assert response["Content-Disposition"] == 'attachment; filename="the-sunken-crown.json"'
    assert json.loads(response.content)["campaign"]["name"] == "The Sunken Crown"
    client.force_login(get_user_model().objects.get(username="alice"))
    assert client.get(reverse("campaign_export_json", args=[played_campaign.pk])).status_code == (
        403
    )


# --------------------------------------------------------------------- the chronicle


def test_the_chronicle_reads_as_a_story(played_campaign):
    text = campaign_chronicle(ArchiveViewer(played_campaign, Role.PLAYER))
    assert text.startswith("# The Sunken Crown\n")
    for line in (
        "## The Low Water",
        "## High Water",
        "### Session 2: Flood",
        "The *flood* came.",
        "#### Contest 1: Scored contest — Cross the river",
        "- Resistance: The Grey River (14)",
        "1. The GM frames a scored contest: Cross the river",
        "4. Tamsin Reedwalker rolled 12 (success); the GM rolled for The Grey River in secret",
        "13. Consequences: Tamsin Reedwalker impaired; Tamsin Reedwalker hurt",
        # Who took which consequence, on which ability, as a list in the event's item.
        "    - Tamsin Reedwalker: impaired (River Guide)\n"
        "    - Tamsin Reedwalker: hurt (River Guide)\n",
        "**Outcome:** minor defeat.",
        "#### Contest 2: Group scored contest — Drive off the raiders",
        "    - Tamsin Reedwalker: invigorated (Knife Fighting)\n"
        "    - Brannoc Ironmouth: invigorated (Proud)\n",
        "**Outcome:** major victory.",
    ):
        assert line in text, line
    assert text.index("## The Low Water") < text.index("## High Water")
    assert "The Grey River rolled 9" not in text and "Voss paid the river." not in text


def test_the_gms_chronicle_has_the_gm_notes(played_campaign):
    text = campaign_chronicle(ArchiveViewer(played_campaign, Role.GM))
    assert "*GM notes:* Voss paid the river." in text
    assert "4. Tamsin Reedwalker rolled 12 (success); The Grey River rolled 9 (success)" in text


def test_members_download_the_chronicle(client, played_campaign):
    client.force_login(get_user_model().objects.get(username="bob"))
    response = client.get(reverse("campaign_export_markdown", args=[played_campaign.pk]))
    assert response["Content-Type"] == "text/markdown; charset=utf-8"
    assert "### Session 2: Flood" in response.content.decode()


def test_a_doomed_characters_final_action_survives_the_round_trip(played_campaign):
    """§2.11.1.5: doomed, and roused by a contest of wherewithal: both come back."""
    tamsin = Character.objects.get(name="Tamsin Reedwalker")
    gm = played_campaign.gm
    dying = character_services.character_condition_apply(
        character=tamsin,
        actor=gm,
        state="dying",
        abilities=[Ability.objects.get(character=tamsin, name="Knife Fighting")],
    )
    doomed = character_services.character_condition_heal(
        character=tamsin, actor=gm, condition=dying, outcome=-2
    )
    character_services.character_wherewithal(
        character=tamsin, actor=gm, condition=doomed, outcome=3, waive_bump=True
    )
    exported = campaign_export(played_campaign)
    wipe(played_campaign)
    campaign_import(data=exported)
    restored = Condition.objects.get(
        character__name="Tamsin Reedwalker", state="dying", ended_at__isnull=True
    )
    assert (restored.doomed, restored.final_action) == (True, Condition.FinalAction.CLEAN)


def test_the_chronicle_strips_raw_html_as_the_archive_page_does(played_campaign):
    """Markdown allows raw HTML; the archive page sanitises a recap (nh3) and so does the
    chronicle; a prize is plain text, shown as typed (its markup escaped), as on the page."""
    session = played_campaign.sessions.get(title="Flood")
    session.recap = 'The <script>alert("x")</script>*flood* <img src=x onerror="alert(1)">came.'
    session.save(update_fields=["recap"])
    contest = session.contests.order_by("number").first()
    contest.prize = "Cross the <b>river</b>"
    contest.save(update_fields=["prize"])
    text = campaign_chronicle(ArchiveViewer(played_campaign, Role.PLAYER))
    for markup in ("<script", "alert(", "<img", "onerror", "<b>"):
        assert markup not in text, markup
    assert "The *flood* came." in text
    assert "#### Contest 1: Scored contest — Cross the &lt;b&gt;river&lt;/b&gt;" in text
    # Sides read as words, not codes.
    assert "(the PCs' side, River Guide" in text and "(pc," not in text


# --------------------------------------------------------------------- the table chat

WHISPER = "I pocket the ring"


def test_chat_survives_the_campaign_files_round_trip(played_campaign):
    """The played campaign's open session gets a line of each kind; the file carries
    them (authors by username, characters by key) and imports them as they were."""
    campaign = played_campaign
    gm = campaign.gm
    tamsin = Character.objects.get(name="Tamsin Reedwalker")
    alice = tamsin.player
    chat_post(
        campaign=campaign, user=alice, kind="in_character", text="Hold!", character_id=tamsin.pk
    )
    chat_post(campaign=campaign, user=alice, kind="whisper", text=WHISPER)
    chat_post(campaign=campaign, user=gm, kind="emote", text="smiles")
    exported = json.loads(json.dumps(campaign_export(campaign)))
    keys = {c["sheet"]["name"]: c["key"] for c in exported["characters"]}
    assert [(line["author"], line["kind"], line["character"]) for line in exported["chat"]] == [
        ("alice", "in_character", keys["Tamsin Reedwalker"]),
        ("alice", "whisper", None),
        ("gm", "emote", None),
    ]
    wipe(campaign)
    imported = campaign_import(data=exported)
    assert json.loads(json.dumps(campaign_export(imported))) == exported
    lines = list(ChatMessage.objects.filter(campaign=imported).order_by("created_at", "id"))
    assert [line.as_text() for line in lines][0] == "Tamsin Reedwalker: “Hold!”"
    assert {line.session.number for line in lines} == {imported.open_session().number}


def test_an_export_without_chat_still_imports(played_campaign):
    exported = json.loads(json.dumps(campaign_export(played_campaign)))
    del exported["chat"]
    wipe(played_campaign)
    assert not ChatMessage.objects.filter(campaign=campaign_import(data=exported)).exists()


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        ({"kind": "shout"}, "chat line 1: Value 'shout' is not a valid choice."),
        ({"text": ""}, "chat line 1: This field cannot be blank."),
        ({"text": "x" * 501}, "chat line 1: Ensure this value has at most 500 characters"),
        ({"session": 99}, "chat line 1"),
    ],
)
def test_a_bad_chat_line_imports_nothing(played_campaign, spoil, message):
    chat_post(campaign=played_campaign, user=played_campaign.gm, kind="emote", text="smiles")
    exported = json.loads(json.dumps(campaign_export(played_campaign)))
    exported["chat"][0].update(spoil)
    wipe(played_campaign)
    count = Campaign.objects.count()
    with pytest.raises(ValidationError) as refused:
        campaign_import(data=exported)
    assert message in str(refused.value)
    assert Campaign.objects.count() == count
