"""Refused before sampling, and never hanging (issue 31, parts 2 and 5).

Each refusal runs ``cli.main`` in this process on a tiny model of a temporary
directory: exit 2, one line on stderr naming the argument, nothing sampled (the
sampler writes a marker file; PyMC's and the sampler's sides raise if grown)
and nothing written. The scheduler probes talk to local socket listeners that
stay silent or answer like HTTP, with the probe's timeout made small.
"""

import dataclasses
import json
import socket
import threading
import time
from pathlib import Path

import pytest

from mcmc_pairs.comparisons import cli, execution, parallel, preflight, sides
from mcmc_pairs.comparisons.errors import one_line, printable
from mcmc_pairs.comparisons.settings import SamplerRun, Settings

MODEL = """
import pymc as pm

def build_model(data):
    with pm.Model() as model:
        pm.Normal("x", mu=data["m"], sigma=1.0, shape=int(data["k"]))
    return model

def slash_dims(data):
    with pm.Model(coords={"a/b": [0, 1]}) as model:
        pm.Normal("x", mu=data["m"], sigma=1.0, dims="a/b")
    return model
"""

SAMPLER = """
import pathlib
import numpy as np

def sample(data, *, draws, tune, chains, random_seed):
    pathlib.Path(__file__).with_name("SAMPLED").touch()
    return {"x": np.zeros((chains, draws, int(data["k"])))}

def shouts(data, *, draws, tune, chains, random_seed):
    raise RuntimeError("boom\\x1b[2J\\x1b[H\\x1b]0;owned\\x07 \\x9b31m red\\x07")
"""


@pytest.fixture
def user(tmp_path, monkeypatch):
    """A user's folder with a model, a sampler and data; sampling raises if reached."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "model.py").write_text(MODEL)
    (src / "sampler.py").write_text(SAMPLER)
    (src / "data.json").write_text(json.dumps({"m": 0.0, "k": 3}))

    def never(self, *args, **kwargs):
        raise AssertionError("sampled")

    monkeypatch.setattr(sides.PymcSource, "grow", never)
    monkeypatch.setattr(sides.HandwrittenSource, "grow", never)
    return src


def _compare(src, out, *flags, model="build_model", data="data.json"):
    return cli.main(
        ["compare", "--model", f"{src / 'model.py'}:{model}", "--data", str(src / data),
         "--sampler", f"{src / 'sampler.py'}:sample", "--out", str(out), *flags]
    )  # fmt: skip


def _refused(code, capsys, src, out, *words):
    """Assert exit 2, one line naming ``words``, nothing sampled, nothing written."""
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert code == 2, captured
    assert len(lines) == 1 and lines[0].startswith("mcmc-pairs: error: "), lines
    for word in words:
        assert word in lines[0], lines[0]
    assert not (src / "SAMPLED").exists()
    assert not out.exists() or not any(out.iterdir())
    return lines[0]


# ------------------------------------------------------------------ names


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("index", ["--name 'index'", "suite page index.html"]),
        ("regression", ["--name 'regression'", "built-in pair regression"]),
        ("Bivariate_Normal", ["built-in pair bivariate_normal"]),
        ("lda_sbc", ["built-in pair lda_sbc"]),
        ("CON", ["device name"]),
        ("a/b", ["--name must be"]),
        ("x" * 237, ["--name is too long", "bytes"]),
    ],
)
def test_a_report_name_that_would_replace_or_fail_is_refused(name, words, user, tmp_path, capsys):
    out = tmp_path / "out"
    _refused(_compare(user, out, "--name", name), capsys, user, out, *words)


def test_names_at_the_file_systems_limit_pass_and_one_more_byte_is_refused(tmp_path):
    limit = preflight.name_max(tmp_path) - preflight.TEMP_NAME_EXTRA
    preflight.refuse_long_name("x" * limit, tmp_path)
    with pytest.raises(ValueError, match="too long"):
        preflight.refuse_long_name("x" * (limit + 1), tmp_path)
    preflight.refuse_reserved_name("regression2")  # only the exact names are taken


def test_validate_refuses_a_name_that_would_replace_a_pairs_page(user, tmp_path, capsys):
    out = tmp_path / "out"
    code = cli.main(
        ["validate", "--model", f"{user / 'model.py'}:build_model", "--data",
         str(user / "data.json"), "--sampler", f"{user / 'sampler.py'}:sample", "--name", "lda",
         "--method", "sbc", "--scheduler", "synchronous", "--out", str(out)]
    )  # fmt: skip
    _refused(code, capsys, user, out, "--name 'lda'")


# ----------------------------------------------------------- output paths


@pytest.mark.parametrize("below", ["", "reports"])
def test_a_dangling_out_symlink_is_refused_before_sampling(below, user, tmp_path, capsys):
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "gone")
    out = link / below if below else link
    line = _refused(_compare(user, out), capsys, user, tmp_path / "gone", "--out")
    assert "symbolic link" in line and "does not exist" in line
    assert link.is_symlink() and not (tmp_path / "gone").exists()


# ------------------------------------------------------------------- dims


def test_dims_pymc_cannot_store_are_refused_before_sampling(user, tmp_path, capsys):
    out = tmp_path / "out"
    code = _compare(user, out, model="slash_dims")
    _refused(code, capsys, user, out, "--model", "'a/b'", "contains '/'")


def test_run_pair_refuses_unstorable_dims_before_sampling(user):
    from mcmc_pairs.comparisons.byom import model_pair
    from mcmc_pairs.comparisons.run import run_pair

    pair = model_pair(f"{user / 'model.py'}:build_model", {"m": 0.0, "k": 3})
    pair = dataclasses.replace(pair, model=f"{user / 'model.py'}:slash_dims")
    with pytest.raises(ValueError, match="model: the .*'a/b' contains '/'"):
        run_pair(pair, data={"m": 0.0, "k": 3}, cache=None)


# ----------------------------------------------------------------- memory


def test_a_run_too_large_for_memory_is_refused_before_sampling(user, tmp_path, capsys):
    (user / "wide.json").write_text(json.dumps({"m": 0.0, "k": 100}))
    out = tmp_path / "out"
    code = _compare(user, out, "--draws", "1000000", "--chains", "4", data="wide.json")
    _refused(code, capsys, user, out, "--draws", "GiB", "lower --chains or --draws")


def test_the_memory_estimate_counts_sides_products_and_looks():
    # 100 components: 64 products (agreement.product_pairs), 2 log densities; x 1.5 working
    one_look = preflight.run_bytes(100, 100, sides=2, chains=4, draws=10, max_draws=10)
    assert one_look == 8 * 4 * 10 * 2 * (100 + 100 + 64 + 2) * 3 // 2
    grows = preflight.run_bytes(100, 100, sides=3, chains=4, draws=10, max_draws=160, references=2)
    assert grows == 8 * 4 * 160 * (3 * (100 + 166) + 3 * 166 + 2 * 100) * 3 // 2
    five = preflight.run_bytes(5, 5, sides=1, chains=1, draws=1, max_draws=1)
    assert five == 8 * (5 + 5 + 10 + 2) * 3 // 2
    settings = Settings.resolve(chains=4, draws=10, max_draws=160, tune=0)  # the first look only
    preflight.refuse_oversized_run(100, 100, settings, 2, available=one_look + (1 << 30))
    with pytest.raises(ValueError, match="--draws: this run would hold"):
        preflight.refuse_oversized_run(100, 100, settings, 2, available=one_look + (1 << 30) - 1)


def test_the_memory_estimate_counts_pymcs_warm_up():
    """Issue 39: --tune 10**12 aborted in Rust (exit 134); nutpie keeps its warm-up draws."""
    one_look = preflight.run_bytes(100, 100, sides=2, chains=4, draws=10, max_draws=10)
    settings = SamplerRun(draws=10, tune=1000, chains=4, seed=0)
    warm_up = 8 * 1 * 4 * 1000 * 100  # one reference x chains x tune x components
    enough = one_look + warm_up + (1 << 30)
    preflight.refuse_oversized_run(100, 100, settings, 2, available=enough)
    with pytest.raises(ValueError, match="--tune: PyMC's warm-up would hold"):
        preflight.refuse_oversized_run(100, 100, settings, 2, available=enough - 1)
    huge = dataclasses.replace(settings, tune=10**12)
    with pytest.raises(ValueError, match="--tune: .* lower --tune"):
        preflight.refuse_oversized_run(100, 100, huge, 2, available=64 << 30)


def test_no_builtin_pair_or_zoo_model_is_refused_at_its_defaults_with_4_gib(monkeypatch):
    from mcmc_pairs.comparisons.byom import model_pair
    from mcmc_pairs.comparisons.datafile import read_data
    from mcmc_pairs.comparisons.registry import PAIRS
    from mcmc_pairs.comparisons.run import resolve_settings
    from mcmc_pairs.comparisons.witness import ModelWitness

    monkeypatch.syspath_prepend(str(Path(cli.__file__).resolve().parents[1]))
    import zoo

    runs = [(pair, pair.load_data(), len(pair.handrolled)) for pair in PAIRS]
    for model in zoo.MODELS:
        data = read_data(model.data)
        runs.append((model_pair(model.model, data, model.sampler()), data, 1))
    assert len(runs) == 17
    largest = 0
    for pair, data, under_test in runs:
        witness = ModelWitness(pair.model, data, argument="model")
        held, compared = preflight.model_sizes(witness.model, witness.variables, pair.variables)
        settings = resolve_settings(pair)
        references = 1 + len(pair.pymc_steps)
        sides = under_test + references
        need = preflight.run_bytes(
            held, compared, sides=sides, chains=settings.chains, draws=settings.draws,
            max_draws=settings.max_draws, references=references,
        )  # fmt: skip
        largest = max(largest, need)
        preflight.refuse_oversized_run(held, compared, settings, sides, 4 << 30, references)
    assert largest > 8 << 30  # LDA, were it to grow to 32,000 draws: refused with 8 GiB


# ---------------------------------------------------------- terminal text


def test_control_characters_are_stripped_from_terminal_text():
    text = "a\x1b[31mred\x1b[0m \x1b]0;title\x07b\x00c\x7fd\x85e\x9b2Jf\x1bcg\nh\ti"
    assert printable(text) == "ared bcdefg\nh i"
    assert one_line(ValueError("x\x1b[2J\x1b[H boom\n next")) == "x boom next"
    assert printable("plain, é ü 中 — ok") == "plain, é ü 中 — ok"


def test_a_samplers_escape_sequences_do_not_reach_the_terminal(tmp_path, capsys):
    (tmp_path / "sampler.py").write_text(SAMPLER)
    out = tmp_path / "out"
    code = cli.main(
        ["compare", "bivariate_normal", "--sampler", f"{tmp_path / 'sampler.py'}:shouts",
         "--no-cache", "--out", str(out)]
    )  # fmt: skip
    captured = capsys.readouterr()
    assert code == 2, captured
    assert "boom" in captured.err and "red" in captured.err
    assert not any(c in captured.err for c in "\x1b\x07\x9b")


# ------------------------------------------------------------ schedulers


def _listener(answer: bytes | None):
    """Start a local server that accepts and stays silent, or answers ``answer`` to a request."""
    server = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve():
        server.settimeout(0.2)
        held = []
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            held.append(conn)
            if answer is not None:
                conn.settimeout(10)
                try:
                    conn.recv(1024)
                    conn.sendall(answer)
                except OSError:
                    pass
        for conn in held:
            conn.close()
        server.close()

    threading.Thread(target=serve, daemon=True).start()
    return server.getsockname()[1], stop


HTTP = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"


@pytest.mark.parametrize(
    ("answer", "scheme", "words"),
    [
        (None, "tcp://", ["connected, but no Dask scheduler answered within 0.3 s"]),
        (HTTP, "tcp://", ["is not a Dask scheduler (it answered like an HTTP server"]),
        (HTTP, "", ["is not a Dask scheduler (it answered like an HTTP server"]),
        (b"SSH-2.0-OpenSSH_9.6\r\n", "tcp://", ["is not a Dask scheduler", "SSH-2.0"]),
    ],
)
def test_validate_at_a_server_that_is_not_dask_exits_2_at_once(
    answer, scheme, words, user, tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr(execution, "PROBE_TIMEOUT_S", 0.3)
    port, stop = _listener(answer)
    out = tmp_path / "out"
    start = time.perf_counter()
    try:
        code = cli.main(
            ["validate", "regression", "--method", "sbc", "--scheduler",
             f"{scheme}127.0.0.1:{port}", "--out", str(out)]
        )  # fmt: skip
    finally:
        stop.set()
    assert time.perf_counter() - start < 10
    _refused(code, capsys, user, out, "--scheduler", *words)


@pytest.mark.parametrize(
    ("address", "words"),
    [
        ("tls://x:1", ["tls:// needs certificates", "give tcp://HOST:PORT"]),
        ("ws://x:1", ["ws:// is not supported"]),
        ("tcp://localhost", ["give the scheduler as tcp://HOST:PORT"]),
    ],
)
def test_a_scheduler_address_the_suite_cannot_use_exits_2(address, words, tmp_path, capsys):
    out = tmp_path / "out"
    code = cli.main(
        ["validate", "regression", "--method", "sbc", "--scheduler", address, "--out", str(out)]
    )
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1, lines
    assert all(word in lines[0] for word in words), lines
    assert not out.exists()


def test_a_scheduler_from_the_environment_is_checked_and_named(tmp_path, capsys, monkeypatch):
    """``$MCMC_PAIRS_SCHEDULER`` is ``--scheduler``'s default: checked as early, and named."""
    monkeypatch.setenv(cli.SCHEDULER_ENV, "ws://x:1")
    out = tmp_path / "out"
    argv = ["validate", "regression", "--method", "sbc", "--out", str(out)]
    code = cli.main(argv)
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1, lines
    assert "$MCMC_PAIRS_SCHEDULER 'ws://x:1'" in lines[0] and "ws:// is not supported" in lines[0]
    assert "--scheduler" not in lines[0], lines
    assert not out.exists()
    code = cli.main([*argv, "--scheduler", "tcp://localhost"])  # the flag wins, named as such
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and "MCMC_PAIRS_SCHEDULER" not in lines[0], lines
    assert "--scheduler 'tcp://localhost'" in lines[0], lines


def test_a_synchronous_scheduler_from_the_environment_starts_no_cluster(
    tmp_path, capsys, monkeypatch
):
    def no_cluster(*args, **kwargs):
        raise AssertionError("a Dask cluster was started")

    monkeypatch.setattr("dask.distributed.LocalCluster", no_cluster)
    monkeypatch.setenv(cli.SCHEDULER_ENV, "synchronous")
    argv = ["validate", "regression", "--method", "sbc", "--out",
            str(tmp_path), "--replications", "2", "--draws", "100", "--tune", "50"]  # fmt: skip
    assert cli.main(argv) in (0, 1)
    settings = json.loads((tmp_path / "regression_sbc.json").read_text())["settings"]
    assert settings["scheduler"] == "synchronous"


def test_a_dask_handshake_passes_the_probe_and_other_bytes_do_not():
    from distributed.protocol.utils import pack_frames

    message = pack_frames([b"\x81\xa2op\xa9handshake"])  # prelude and frames (protocol/utils)
    handshake = len(message).to_bytes(8, "little") + message  # comm/tcp.py's length first
    assert execution.greeting_problem(handshake[:16]) is None
    assert "HTTP" in execution.greeting_problem(b"HTTP/1.1 400 Bad Request\r\n")
    assert "framing" in execution.greeting_problem((3 << 60).to_bytes(8, "little") + bytes(8))
    assert "nothing" in execution.greeting_problem(b"")


def _quick(x, seed):
    return {"value": x}


def _slow(x, seed):
    time.sleep(2)
    return {"value": x}


def test_replications_on_a_cluster_without_workers_or_progress_end(tmp_path, capsys, monkeypatch):
    from dask.distributed import Client, LocalCluster

    monkeypatch.setattr(parallel, "POLL_S", 0.1)
    monkeypatch.setattr(parallel, "WORKERLESS_S", 0.5)
    monkeypatch.setattr(parallel, "STALL_FLOOR_S", 1.0)
    with LocalCluster(n_workers=0, processes=False, protocol="tcp://", dashboard_address=":0") as c:
        start = time.perf_counter()  # a real scheduler passes the probe; it has no worker
        argv = ["validate", "regression", "--method", "sbc", "--replications", "2"]
        code = cli.main([*argv, "--scheduler", c.scheduler_address, "--out", str(tmp_path)])
        lines = capsys.readouterr().err.strip().splitlines()
        assert time.perf_counter() - start < 8
        assert code == 2 and lines[-1].startswith("mcmc-pairs: error: "), lines
        assert f"--scheduler {c.scheduler_address}: no worker for 0.5 s" in lines[-1]
        assert not any(tmp_path.iterdir())
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as busy:
        with Client(busy) as client:
            done, error = parallel.run_replications(
                _quick, (1,), replications=2, seed=1, client=client
            )  # fast replications finish within the same bounds
            assert error is None and [r["value"] for r in done] == [1, 1]
            with pytest.raises(parallel.SchedulerStalled, match="no replication finished"):
                parallel.run_replications(_slow, (1,), replications=1, seed=1, client=client)


def test_a_summaries_child_that_overruns_is_given_up_on(tmp_path, monkeypatch):
    (tmp_path / "sleeper_child.py").write_text("import time\ntime.sleep(60)\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    start = time.perf_counter()
    with execution.ChildInterpreter("sleeper_child", {"x": 1}) as child:
        assert child.result(instead=lambda: "here", timeout=0.5) == "here"
    assert time.perf_counter() - start < 5
    assert child.process.poll() is not None  # killed, and reaped
