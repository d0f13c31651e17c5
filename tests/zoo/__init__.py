"""Tests of the calibration zoo (``zoo/``)."""
