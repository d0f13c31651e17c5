"""The sampler contract: its output checked, its exceptions named, its data its own copy."""

import numpy as np
import pytest

from mcmc_pairs.comparisons.contract import SamplerError, call_sampler, check_output, sampler_name

SHAPES = {"x": (2,), "s": ()}


def output(chains=2, draws=5, **changes):
    out = {"x": np.zeros((chains, draws, 2)), "s": np.ones((chains, draws))}
    out.update(changes)
    return {k: v for k, v in out.items() if v is not None}


def check(out):
    return check_output(out, ["x", "s"], SHAPES, 2, 5, "f")


def test_good_output_passes_in_the_order_of_the_variables():
    assert list(check(output())) == ["x", "s"]


@pytest.mark.parametrize(
    ("out", "message"),
    [
        (output(s=None), r"did not return variable\(s\) \['s'\]"),
        (output(extra=np.zeros((2, 5))), r"returned variable\(s\) \['extra'\] that the model"),
        (output(draws=4), r"returned x with shape \(2, 4, 2\), expected \(2, 5, 2\)"),
        (output(s=np.full((2, 5), np.nan)), "returned non-finite values in s"),
        ([1, 2], "must return a dict of arrays or a DataTree, got list"),
    ],
)
def test_bad_output_is_a_sampler_error_naming_it(out, message):
    with pytest.raises(SamplerError, match=message):
        check(out)


def test_call_sampler_gives_a_copy_and_names_what_it_raised():
    data = {"y": np.zeros(3)}

    def mutating(d, **kwargs):
        d["y"][:] = 1.0
        return kwargs

    assert call_sampler("m", mutating, data, draws=2) == {"draws": 2}
    assert np.all(data["y"] == 0.0)

    def failing(d, **kwargs):
        raise ZeroDivisionError("oops")

    with pytest.raises(SamplerError, match="sampler m raised ZeroDivisionError: oops"):
        call_sampler("m", failing, data)


def test_sampler_names():
    assert sampler_name("pkg.mod:sample") == "pkg.mod:sample"
    assert sampler_name(output) == f"{__name__}:output"

    class Twin:
        def __call__(self, data):
            return data

        def __str__(self):
            return "twin"

    assert sampler_name(Twin()) == "twin"
