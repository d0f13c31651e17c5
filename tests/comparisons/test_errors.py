"""Errors reach the user as one line."""

import warnings

from mcmc_pairs.comparisons.errors import one_line, quiet_third_party


def test_one_line():
    assert one_line(ValueError("two\n  lines")) == "two lines"
    assert one_line(KeyboardInterrupt()) == "KeyboardInterrupt"


def test_third_party_noise_is_kept_out_and_the_rest_shown():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        quiet_third_party()
        warnings.warn(
            "This process (pid=1) is multi-threaded, use of fork() may lead to deadlocks in "
            "the child.",
            DeprecationWarning,
            stacklevel=1,
        )
        warnings.warn("Compilation is falling back to object mode WITH looplifting", stacklevel=1)
        warnings.warn("a warning the user can act on", stacklevel=1)
    assert [str(w.message) for w in caught] == ["a warning the user can act on"]
