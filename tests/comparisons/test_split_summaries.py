"""The summaries split over this process and a child interpreter: the frames of one call."""

import pandas as pd
import pytest

from mcmc_pairs.comparisons import split_summaries
from mcmc_pairs.comparisons.execution import ChildInterpreter
from mcmc_pairs.comparisons.stats.summaries import summarize
from tests.comparisons.test_agreement import gibbs, quantities


def test_summaries_in_a_second_process_are_the_same_bit_for_bit(monkeypatch):
    """summarize_sides: the last quantities of every side in a child, the frames of one call."""
    sides = {f"side{i}": quantities(gibbs(seed=20 + i, draws=300)) for i in range(3)}
    sides["one quantity"] = sides["side0"].isel(quantity=[0])
    here = {label: summarize(da) for label, da in sides.items()}
    monkeypatch.setattr(split_summaries, "PARALLEL_MIN_VALUES", 0)
    calls = []
    real = ChildInterpreter.__enter__

    def enter(self):
        calls.append({label: da.sizes["quantity"] for label, da in self.payload.items()})
        return real(self)

    monkeypatch.setattr(ChildInterpreter, "__enter__", enter)
    both = split_summaries.summarize_sides(sides, cores=2)
    n = sides["side0"].sizes["quantity"]
    away = n - round(split_summaries.HERE_SHARE * n)
    assert calls == [{"side0": away, "side1": away, "side2": away}]  # one quantity: here
    assert list(both) == list(sides)
    for label in sides:
        pd.testing.assert_frame_equal(both[label], here[label], check_exact=True)


def test_a_failing_summary_child_is_replaced_by_this_process(monkeypatch, tmp_path):
    """A child that cannot run (here: no interpreter) costs time, never the summaries."""
    sides = {f"side{i}": quantities(gibbs(seed=30 + i, draws=200)) for i in range(2)}
    monkeypatch.setattr(split_summaries, "PARALLEL_MIN_VALUES", 0)
    monkeypatch.setattr("sys.executable", "/bin/false")
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    both = split_summaries.summarize_sides(sides, cores=2)
    for label, da in sides.items():
        pd.testing.assert_frame_equal(both[label], summarize(da), check_exact=True)
    assert list(tmp_path.iterdir()) == []  # the pickle of the sides is removed


def test_one_core_or_few_draws_summarise_here(monkeypatch):
    sides = {f"side{i}": quantities(gibbs(seed=40 + i, draws=100)) for i in range(2)}

    def no_child(self):
        raise AssertionError("a child was started")

    monkeypatch.setattr(ChildInterpreter, "__enter__", no_child)
    split_summaries.summarize_sides(sides, cores=2)  # below PARALLEL_MIN_VALUES
    monkeypatch.setattr(split_summaries, "PARALLEL_MIN_VALUES", 0)
    split_summaries.summarize_sides(sides, cores=1)


def test_an_interrupted_summary_leaves_no_child_and_no_file(monkeypatch, tmp_path):
    """Ctrl-C (or report's SIGTERM) while this process summarises: the child is killed."""
    sides = {f"side{i}": quantities(gibbs(seed=50 + i, draws=200)) for i in range(2)}
    monkeypatch.setattr(split_summaries, "PARALLEL_MIN_VALUES", 0)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    children = []
    real = ChildInterpreter.__enter__

    def enter(self):
        children.append(real(self))
        return children[-1]

    def interrupted(da):
        raise KeyboardInterrupt

    monkeypatch.setattr(ChildInterpreter, "__enter__", enter)
    monkeypatch.setattr(split_summaries, "summarize_quietly", interrupted)  # this process only
    with pytest.raises(KeyboardInterrupt):
        split_summaries.summarize_sides(sides, cores=2)
    assert children and children[0].process.poll() is not None
    assert list(tmp_path.iterdir()) == []
