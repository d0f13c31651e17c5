"""benchmarks/report_time.py: the baseline tree it unpacks, the run it times, its bad input.

A whole comparison runs two reports several times (minutes), so here the
timed command is replaced by a tiny one; nothing asserts a time.
"""

import subprocess

import pytest

from benchmarks import report_time


def test_unpacks_a_revision_as_a_tree_that_runs(tmp_path):
    tree = report_time.unpack("HEAD", tmp_path / "old")
    assert (tree / "comparisons" / "cli.py").is_file()
    assert not (tree / ".git").exists()


def test_run_report_times_the_command_and_its_children(monkeypatch, tmp_path):
    """Wall, CPU (children included) and peak memory of one finished run."""
    real = subprocess.Popen

    def burn(cmd, **kwargs):  # a child that spends CPU in a grandchild, as report's workers do
        code = "import subprocess, sys; subprocess.run([sys.executable, '-c', 'sum(range(10**7))'])"
        return real([cmd[0], "-c", code], **kwargs)

    monkeypatch.setattr(report_time.subprocess, "Popen", burn)
    result = report_time.run_report(tmp_path, tmp_path / "out")
    assert result["cpu"] > 0.05  # the grandchild's sum is counted
    assert result["wall"] >= result["cpu"] * 0.5
    assert result["peak_mb"] > 5


def test_a_failing_report_stops_the_benchmark(monkeypatch, tmp_path):
    real = subprocess.Popen
    monkeypatch.setattr(
        report_time.subprocess,
        "Popen",
        lambda cmd, **kw: real([cmd[0], "-c", "raise SystemExit(2)"], **kw),
    )
    with pytest.raises(SystemExit, match="exited 2"):
        report_time.run_report(tmp_path, tmp_path / "out")


@pytest.mark.parametrize("argv", [["--runs", "0"], ["--warmup", "-1"]])
def test_bad_arguments_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        report_time.main(argv)
    assert exc.value.code == 2
    assert "--runs" in capsys.readouterr().err
