"""Replications in chunks, in-process or on a Dask cluster: the same results either way."""

import numpy as np

from mcmc_pairs.comparisons import cli, execution, parallel, sbc, simulation
from mcmc_pairs.comparisons import validation as v
from mcmc_pairs.comparisons.registry import get_pair
from mcmc_pairs.comparisons.settings import ValidationSettings


def test_ranks_do_not_depend_on_chunking():
    sim = simulation.simulator_for(get_pair("regression"))
    settings = ValidationSettings.resolve("sbc", replications=6, seed=3, draws=200)
    args = (sim, "mcmc_pairs.handrolled.regression:sample_blocked", settings)
    seeds = list(enumerate(np.random.SeedSequence(3).spawn(6)))
    whole = parallel.run_chunk(sbc.sbc_replication, args, seeds)
    parts = [
        r
        for chunk in (seeds[:2], seeds[2:5], seeds[5:])
        for r in parallel.run_chunk(sbc.sbc_replication, args, chunk)
    ]
    assert [r["ranks"] for r in whole] == [r["ranks"] for r in parts]


def _square_or_fail(fail_at, seed):
    index = seed.spawn_key[-1]
    if index in fail_at:
        raise FloatingPointError(f"step {index} overflowed")
    return {"value": index**2}


def test_a_failed_replication_keeps_the_finished_ones():
    done, error = parallel.run_replications(
        _square_or_fail, ({1, 3},), replications=5, seed=0, client=None
    )
    assert [r["index"] for r in done] == [0, 2, 4]
    assert [r["value"] for r in done] == [0, 4, 16]
    assert error == "2 of 5 replications failed; first: replication 1: step 1 overflowed"
    assert parallel.run_replications(_square_or_fail, (set(),), replications=3, seed=0) == (
        [{"index": i, "value": i**2} for i in range(3)],
        None,
    )


def test_chunks_cover_every_replication_once():
    for n, parts in ((1, 4), (7, 3), (200, 25), (5, 50)):
        ranges = parallel.chunks(n, parts)
        assert [i for r in ranges for i in r] == list(range(n))
        assert len(ranges) == min(n, parts)


def test_unreachable_scheduler_is_a_clear_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(execution, "CONNECT_TIMEOUT_S", 1)
    code = cli.main(
        ["validate", "regression", "--method", "sbc", "--scheduler", "tcp://127.0.0.1:9",
         "--out", str(tmp_path)]
    )  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert code == cli.EXIT_USAGE
    assert len(err.splitlines()) == 1 and "--scheduler 'tcp://127.0.0.1:9'" in err


def test_dask_local_cluster_gives_the_same_ranks_as_in_process():
    pair = get_pair("bayes_net")
    settings = {"replications": 10, "draws": 200, "seed": 8}
    local = v.validate(pair, method="sbc", scheduler=parallel.SYNCHRONOUS, **settings)
    dask = v.validate(pair, method="sbc", scheduler=None, **settings)
    assert local.details["ranks"] == dask.details["ranks"]
    # at 200 draws most replications are rerun with more: the same reruns, the same statement
    assert local.details["rerun"] > 0
    for key in ("draws_used", "rerun_replications", "refused_replications", "sensitivity"):
        assert local.details[key] == dask.details[key], key
