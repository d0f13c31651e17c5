"""One module per pair: its data, its two sides, what is compared and the exact answer.

They import SciPy, xarray and pandas inside the functions that use them, so that
the registry (``mcmc-pairs list``) loads none of them.
"""
