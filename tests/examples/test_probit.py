"""Probit (``examples/probit``) end to end through the command line, small.

The correct sampler agrees with NUTS and passes SBC; the planted bug is caught by
both.
"""

from tests.examples import end_to_end


def test_correct_sampler_agrees(tmp_path):
    end_to_end.correct_sampler_agrees("probit", tmp_path)


def test_planted_bug_disagrees(tmp_path):
    end_to_end.planted_bug_disagrees("probit", tmp_path)


def test_correct_sampler_passes_sbc_and_the_bug_fails(tmp_path):
    end_to_end.sbc_passes_correct_and_fails_the_bug("probit", tmp_path)
