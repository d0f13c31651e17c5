"""The README's pytest snippet runs as written."""

import re

from tests.examples.end_to_end import ROOT


def test_readme_pytest_example_runs_as_written(monkeypatch):
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    (snippet,) = [b for b in blocks if "assert_agree(" in b and "def test_" in b]
    assert len(snippet.strip().splitlines()) <= 14
    monkeypatch.chdir(ROOT)  # the snippet's paths are relative to the repository's root
    namespace: dict = {}
    exec(compile(snippet, "README.md", "exec"), namespace)  # noqa: S102
    (test,) = [f for name, f in namespace.items() if name.startswith("test_")]
    test()
