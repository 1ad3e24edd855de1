"""R2 and R18.3: no modifier on a GM resistance, in every machine: situational and round
modifiers apply to a PC's (or a PC opponent's) target number only; the GM gives a
resistance another class or rating instead. The engine refuses, changing nothing."""

from __future__ import annotations

import copy

import pytest

from contests.core.rules import SideInput
from contests.core.rules.chained import ChainedContest
from contests.core.rules.errors import RulesError
from contests.core.rules.scored import ScoredContest

from .test_scored_group import two_on_two

REFUSED = "a resistance takes no modifier"


def refused(machine, attempt) -> None:
    before = copy.deepcopy(machine.to_json())
    with pytest.raises(RulesError, match=REFUSED):
        attempt()
    assert machine.to_json() == before


@pytest.mark.parametrize("modifier", [-6, -3, 3, 6])
def test_a_scored_contest_refuses_a_modifier_on_the_resistance(modifier):
    machine = ScoredContest(pc=17, opponent=14)
    refused(
        machine, lambda: machine.play_round(pc_roll=5, opponent_roll=5, opponent_modifier=modifier)
    )
    machine.play_round(pc_roll=5, opponent_roll=5, pc_modifier=modifier)  # the PC's is fine


def test_a_scored_contest_between_two_pcs_takes_the_opponents_modifier():
    machine = ScoredContest(pc=17, opponent=SideInput(14, is_pc=True))
    machine.play_round(pc_roll=15, opponent_roll=15, opponent_modifier=3)
    assert machine.state()["rounds"][-1]["opponent_rating"] == "17"  # 14 + 3


@pytest.mark.parametrize("modifier", [-3, 3])
def test_a_chained_contest_refuses_a_modifier_on_the_resistance(modifier):
    machine = ChainedContest(pc=17, opponent=14)
    refused(
        machine, lambda: machine.play_round(pc_roll=5, opponent_roll=5, opponent_modifier=modifier)
    )
    pc_machine = ChainedContest(pc=17, opponent=SideInput(14, is_pc=True))
    pc_machine.play_round(pc_roll=5, opponent_roll=5, opponent_modifier=modifier)


def test_a_group_scored_pairing_refuses_a_modifier_on_the_resistance():
    machine = two_on_two()
    refused(
        machine,
        lambda: machine.play_round(pairing=1, pc_roll=5, opponent_roll=5, opponent_modifier=3),
    )
    machine.play_round(pairing=1, pc_roll=5, opponent_roll=5, pc_modifier=3)
