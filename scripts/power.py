"""Measured power and false alarms of every check: ``make power`` (not in the quick tests).

Runs each check on every correct sampler over many seeds (false-alarm rate) and
on every deliberately wrong sampler of ``tests/wrong_samplers.py`` (detection
rate), and writes ``benchmarks/power.md`` and ``benchmarks/power.json``.

Checks:

* ``compare``: the sampler alone against the exact answer (the exact-answer
  half of ``mcmc-pairs compare``: z-checks of mean, sd and quantiles of every
  component, centred product and log density, Holm-corrected, plus the R-hat
  and ESS gates; a ``not converged`` verdict counts as an alarm). The NUTS half
  is left out here: compiling and running PyMC hundreds of times does not fit
  the budget.
* ``geweke`` and ``sbc``: :func:`comparisons.validation.validate` at the sizes
  below, on pairs that declare a prior and a simulator.
  LDA has no exact answer, so its ``compare`` is n/a; its validation corpus and
  label-invariant quantities are in :mod:`comparisons.simulators`.

Usage: ``python scripts/power.py [--seeds-correct N] [--seeds-wrong N] [--scheduler ADDRESS]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from comparisons import agreement, run  # noqa: E402
from comparisons import validation as v  # noqa: E402
from comparisons.loading import load_callable  # noqa: E402
from comparisons.registry import get_pair  # noqa: E402
from comparisons.report import write_atomic  # noqa: E402

W = "tests/wrong_samplers.py:"
CORRECT = {
    "bivariate_normal": ["handrolled.bivariate_normal:sample"],
    "regression": ["handrolled.regression:sample", "handrolled.regression:sample_blocked"],
    "mh_normal": ["handrolled.mh_normal:sample"],
    "mh_beta": ["handrolled.mh_beta:sample"],
    "bayes_net": ["handrolled.bayes_net:sample", "handrolled.bayes_net:sample_rejection"],
    "lda": ["handrolled.lda:sample", "handrolled.lda:sample_plain"],
}
WRONG = {
    "bivariate_gibbs_without_shrinkage": "bivariate_normal",
    "bivariate_independent_marginals": "bivariate_normal",
    "mh_normal_independence_without_hastings": "mh_normal",
    "mh_beta_independence_without_hastings": "mh_beta",
    "mh_beta_random_walk_accepting_out_of_support": "mh_beta",
    "regression_blocked_rate_as_scale": "regression",
    "regression_blocked_sse_not_halved": "regression",
    "regression_gibbs_variance_as_sd": "regression",
    "bayes_net_gibbs_ignoring_children": "bayes_net",
    "bayes_net_right_marginals_wrong_dependence": "bayes_net",
    "bayes_net_gibbs_without_evidence_on_children": "bayes_net",
    "lda_gibbs_keeping_the_current_token": "lda",
}
SIZES = {
    "geweke": {"replications": 10, "steps": 200, "tune": 20},
    "sbc": {"replications": 200, "draws": 300, "tune": 100, "chains": 1},
}
"""Validation sizes used here (smaller than the CLI defaults, to fit ~15 minutes)."""


def compare_exact(pair_name: str, sampler: str, seed: int) -> bool:
    """Return True when the exact-answer comparison raises an alarm."""
    pair = get_pair(pair_name)
    s = run.resolve_settings(pair, seed=seed)
    data = pair.load_data()
    func = load_callable(sampler)
    out = func(data, draws=s["draws"], tune=s["tune"], chains=s["chains"], random_seed=seed)
    if isinstance(out, dict):
        shapes = {k: np.shape(np.asarray(out[k]))[2:] for k in pair.variables}
    else:
        shapes = {k: out["posterior"][k].shape[2:] for k in pair.variables}
    tree = run.to_datatree(out, pair.variables, shapes, s["chains"], s["draws"], sampler)
    post = tree["posterior"].to_dataset()
    reference = dict(pair.reference(data))
    comp = agreement.scalar_components(post, pair.variables)
    centers = {
        str(n): reference[str(n)].mean
        if str(n) in reference
        else float(comp.sel(quantity=n).mean())
        for n in comp["quantity"].values
    }
    parts = [comp, agreement.centred_products(comp, centers)]
    if pair.derived is not None:
        for name, da in pair.derived(post, data, centers).items():
            da = da.transpose("chain", "draw").drop_vars(
                [c for c in da.coords if c not in ("chain", "draw")]
            )
            parts.append(da.expand_dims(quantity=[name], axis=-1))
    import xarray as xr

    parts = [p.drop_vars([c for c in p.coords if c != "quantity"]) for p in parts]
    quantities = xr.concat(parts, dim="quantity")
    verdict, _, _ = agreement.compare_draws(
        {"side": quantities}, [], reference, statistics=pair.statistics
    )
    return verdict != agreement.AGREE


def alarm(check: str, pair: str, sampler: str, seed: int, client) -> bool | None:
    """Run one check once; True = alarm, None = not applicable."""
    if check == "compare":
        if get_pair(pair).reference is None:
            return None  # no exact answer (lda): only the NUTS comparison, left out here
        try:
            return compare_exact(pair, sampler, seed)
        except ValueError:
            return True  # a sampler that breaks the contract or crashes is caught
    p = get_pair(pair)
    if p.prior is None:
        return None
    try:
        result = v.validate(p, sampler, method=check, client=client, seed=seed, **SIZES[check])
    except v.ValidationError:
        return True
    return result.verdict != v.PASS


def main(argv=None) -> int:
    """Run every check on every sampler; write ``power.md`` and ``power.json``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds-correct", type=int, default=10)
    parser.add_argument("--seeds-wrong", type=int, default=10)
    parser.add_argument("--scheduler", default=None)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks")
    args = parser.parse_args(argv)
    client, cluster = v.open_client(args.scheduler)
    start = time.perf_counter()
    rows = []
    try:
        jobs = [
            ("correct", pair, sampler, args.seeds_correct)
            for pair, samplers in CORRECT.items()
            for sampler in samplers
        ] + [("wrong", pair, W + name, args.seeds_wrong) for name, pair in WRONG.items()]
        for kind, pair, sampler, n_seeds in jobs:
            row = {"kind": kind, "pair": pair, "sampler": sampler.removeprefix(W), "runs": n_seeds}
            per_seed = []
            for check in ("compare", "geweke", "sbc"):
                t = time.perf_counter()
                alarms = [alarm(check, pair, sampler, 1000 + k, client) for k in range(n_seeds)]
                row[check] = None if alarms[0] is None else float(np.mean(alarms))
                row[f"{check}_s"] = time.perf_counter() - t
                if alarms[0] is not None:
                    per_seed.append(alarms)
            row["any"] = float(np.mean(np.any(per_seed, axis=0)))
            print(json.dumps(row), file=sys.stderr, flush=True)
            rows.append(row)
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    elapsed = time.perf_counter() - start
    doc = {"alpha": agreement.ALPHA, "sizes": SIZES, "rows": rows, "total_s": elapsed}
    write_atomic(args.out / "power.json", json.dumps(doc, indent=2))
    write_atomic(args.out / "power.md", render(doc, args))
    print(render(doc, args))
    return 0


def _rate(value) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def render(doc, args) -> str:
    """Markdown table of false-alarm and detection rates."""
    lines = [
        "# Measured false alarms and power",
        "",
        f"Nominal family-wise false-alarm rate per check: {doc['alpha']}. Sizes: "
        f"compare = the pair's default settings (4 chains x 1000 draws) against the exact answer; "
        f"Geweke = {SIZES['geweke']}; SBC = {SIZES['sbc']}. Produced by `make power` "
        f"(`scripts/power.py --seeds-correct {args.seeds_correct} --seeds-wrong "
        f"{args.seeds_wrong}`) in {doc['total_s'] / 60:.1f} min on 2 cores.",
        "",
        "## False-alarm rate of correct samplers (lower is better; nominal 0.01)",
        "",
        "| pair | sampler | runs | compare | Geweke | SBC |",
        "|---|---|---|---|---|---|",
    ]
    for r in doc["rows"]:
        if r["kind"] == "correct":
            lines.append(
                f"| {r['pair']} | `{r['sampler']}` | {r['runs']} | {_rate(r['compare'])} | "
                f"{_rate(r['geweke'])} | {_rate(r['sbc'])} |"
            )
    lines += [
        "",
        "## Detection rate of wrong samplers (higher is better; target: any check >= 0.95)",
        "",
        "| pair | wrong sampler | runs | compare | Geweke | SBC | any |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in doc["rows"]:
        if r["kind"] == "wrong":
            lines.append(
                f"| {r['pair']} | `{r['sampler']}` | {r['runs']} | {_rate(r['compare'])} | "
                f"{_rate(r['geweke'])} | {_rate(r['sbc'])} | {_rate(r['any'])} |"
            )
    lines.append("")
    lines.append(
        "'any': fraction of seeds in which at least one check raised an alarm. n/a: the pair "
        "samples a fixed target, so Geweke and SBC do not apply; or (compare on lda) there is "
        "no exact answer to compare with. LDA is validated on a small corpus (6 documents of "
        "24 tokens, V = 9, K = 3) with label-invariant test quantities."
    )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
