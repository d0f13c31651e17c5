"""Every module, file and function the project's markdown names exists.

The pages (``README.md``, ``docs/*.md``, ``benchmarks/*.md``, ``shipped/README.md``,
``notebooks/README.md``, the examples' READMEs but the pytest project's, whose paths
are its own) point into the code all the time: ``run.run_pair``,
``mcmc_pairs.comparisons.agreement.Z_DF``, ``comparisons/energy.py``,
``scripts/power.py``, ``from mcmc_pairs import compare``. A rename leaves them
pointing at nothing, and no reader can tell. Here each reference is resolved:

* a dotted name under ``mcmc_pairs`` (anywhere on a page): its longest prefix
  that is a module (``importlib.util.find_spec``, which imports packages only),
  the rest as names that module defines (read with ``ast``, so nothing heavy is
  imported: the test takes about a second); ``module:name`` likewise, and
  every name of ``from mcmc_pairs.x import a, b``;
* ``module.name`` in a code span, where ``module`` is the last part of a module
  of ``mcmc_pairs`` or of ``zoo`` (``agreement.verdict``, ``lda.gibbs_sweep``),
  and ``Class.member`` where ``Class`` is a class of the package
  (``Settings.resolve``): some module (class) of that name must define it; a
  private ``_name`` or a call ``function(...)`` in a code span
  (``_sides_under_test``, ``run_pair(...)``) is a function, class or name of some
  module of the package, or a builtin;
* a path whose first part is a folder of the repository (``comparisons/run.py``,
  ``benchmarks/power.md``, ``zoo/*/sampler.py:sample``; ``<name>`` and ``*``
  match anything, ``{json,md}`` each): at least one file matches, and a
  ``:name`` after a ``.py`` file is defined in it; a file name alone
  (``agreement.py``, ``zoo_calibration_boundary.md``) is the name of a file of the
  repository (or of the page's folder);
* a relative markdown link: its target, from the page's folder.

Prose is left alone: a name is checked only where its form says it is a
reference (a third-party ``pm.sample`` or ``np.random`` is not one of ours, an
output such as ``DIR/NAME.json`` starts with no folder of the repository).
:data:`ALLOWED` lists the few names that are not this repository's on
purpose, each with its reason. The checker's own tests
(``test_the_checker_*``) give it bad pages, so the test can fail. And
``docs/architecture.md``'s table of parts gives every module of the harness
its job.
"""

from __future__ import annotations

import ast
import builtins
import importlib.util
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = (
    "README.md",
    "docs/*.md",
    "benchmarks/*.md",
    "shipped/README.md",
    "notebooks/README.md",
    "examples/conjugate_step/README.md",
    "examples/eight_schools/README.md",
    "examples/numpyro_port/README.md",
    "examples/probit/README.md",
    "examples/stored_draws/README.md",
)
PACKAGES = ("mcmc_pairs", "zoo")  # the importable packages whose modules a page names
SKIPPED_FOLDERS = {"reports", "build", "__pycache__"}  # outputs; hidden folders too, but .ci

# Names a page uses on purpose that are not files of this repository, with the reason.
ALLOWED: dict[str, str] = {
    "nuts.py": "PyMC3's NUTS source file of 2016, cited by a shipped bug never re-created",
    "my_model.py": "the reader's own model, written in the README's first example",
    "my_gibbs.py": "the reader's own sampler, written in the README's first example",
    "FILE.py": "a placeholder: the file of --sampler FILE.py:NAME",
    "prior.json": "an example of a file a user's model reads while it is built",
    "journal.jsonl": "make power's journal, in the run's --out folder (benchmarks/power*.md)",
    "NAME.json": "a report of the pytest plugin, NAME standing for the test's name",
    "settings.auto": "the key auto of the JSON's settings object, not settings.py",
    "_is_turning": "PyMC3's NUTS function of 2016, cited by a shipped bug never re-created",
    "backward(forward(x))": "a PyMC Transform's own methods, the image test of the support check",
    "backward(0)": "a PyMC Transform's own method: where a variable PyMC cannot start starts",
}

DOTTED = re.compile(r"(?<![\w./-])(mcmc_pairs(?:\.\w+)+)(?::(\w+))?")
FROM_IMPORT = re.compile(r"\bfrom\s+(mcmc_pairs(?:\.\w+)*)\s+import\s+\(?([\w\s,]+)")
CODE_SPAN = re.compile(r"(?<!`)`([^`]+)`(?!`)")
SHORT = re.compile(r"(_?[A-Za-z]\w*)((?:\.\w+)+)(?:\(.*\))?")
BARE = re.compile(r"(_\w+)(?:\(.*\))?|([a-z]\w*)\(.*\)")
FILE_NAME = re.compile(
    r"(?<![\w./<>*:-])[\w-]+\.(?:py|md|json|jsonl|toml|yml|yaml|sh|ipynb|csv)(?![\w/])"
)
LINK = re.compile(r"\]\(([^)\s]+)\)")
PATH_CHARS = r"[\w.<>*{},/+-]"


@dataclass(frozen=True)
class Problem:
    """One reference of a page that names nothing.

    Attributes
    ----------
    page : str
        The page, relative to the repository.
    line : int
        Its line, counted from 1.
    name : str
        The reference as the page writes it.
    why : str
        What is missing.
    """

    page: str
    line: int
    name: str
    why: str

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: `{self.name}`: {self.why}"


def pages(root: Path = ROOT) -> list[Path]:
    """The project's markdown pages (not the generated HTML)."""
    return sorted({path for pattern in PAGES for path in root.glob(pattern)})


def _of_the_repository(folder: str) -> bool:
    """Whether a folder holds the repository's files (not a cache, build or environment)."""
    return (
        folder not in SKIPPED_FOLDERS
        and not folder.endswith(".egg-info")
        and (folder == ".ci" or not folder.startswith("."))
    )


def top_folders(root: Path) -> frozenset[str]:
    """The repository's top-level folders (links included), which a path may start with."""
    return frozenset(
        path.name for path in root.iterdir() if path.is_dir() and _of_the_repository(path.name)
    )


@cache
def file_names(root: Path) -> frozenset[str]:
    """The name of every file of the repository (outside generated folders)."""
    names: set[str] = set()
    for _folder, subfolders, files in os.walk(root, followlinks=True):
        subfolders[:] = [name for name in subfolders if _of_the_repository(name)]
        names.update(files)
    return frozenset(names)


@cache
def module_tree(origin: str) -> ast.Module:
    """A module's source, parsed (not imported)."""
    return ast.parse(Path(origin).read_text(), filename=origin)


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a body, with those under ``if``/``try`` at the same level."""
    for node in body:
        if isinstance(node, ast.If):
            yield from _statements(node.body)
            yield from _statements(node.orelse)
        elif isinstance(node, ast.Try):
            for part in (node.body, node.orelse, node.finalbody):
                yield from _statements(part)
            for handler in node.handlers:
                yield from _statements(handler.body)
        else:
            yield node


def _targets(node: ast.stmt) -> list[ast.expr]:
    """What an assignment statement binds."""
    if isinstance(node, ast.Assign):
        return [
            leaf
            for target in node.targets
            for leaf in ast.walk(target)
            if isinstance(leaf, ast.expr)  # a, (b, c) = ... binds a, b and c
        ]
    if isinstance(node, ast.AnnAssign | ast.AugAssign):
        return [node.target]
    return []


def _all_names(body: list[ast.stmt]) -> set[str]:
    """The strings of a module's ``__all__`` (names its ``__getattr__`` may serve)."""
    for node in _statements(body):
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in _targets(node)):
            value = getattr(node, "value", None)
            if isinstance(value, ast.List | ast.Tuple):
                return {
                    e.value
                    for e in value.elts
                    if isinstance(e, ast.Constant) and isinstance(e.value, str)
                }
    return set()


def _self_attributes(cls: ast.ClassDef) -> set[str]:
    """The ``self.x`` a class's methods assign (instance attributes)."""
    return {
        leaf.attr
        for node in ast.walk(cls)
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign)
        for leaf in _targets(node)
        if isinstance(leaf, ast.Attribute)
        and isinstance(leaf.value, ast.Name)
        and leaf.value.id == "self"
    }


Definition = ast.stmt | ast.alias | str


def defined(body: list[ast.stmt], name: str) -> Definition | None:
    """What binds ``name`` in a module or class body, or None.

    Returns the ``def``/``class``/assignment, the ``import`` alias, or the
    name itself when only ``__all__`` lists it (a module ``__getattr__``).
    """
    for node in _statements(body):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name == name:
                return node
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name.split(".")[0]) == name:
                    return alias
        elif any(isinstance(t, ast.Name) and t.id == name for t in _targets(node)):
            return node
    return name if name in _all_names(body) else None


def _imported_from(body: list[ast.stmt], alias: ast.alias) -> str | None:
    """The package module an imported name comes from, if it is one of ours."""
    for node in _statements(body):
        if isinstance(node, ast.ImportFrom) and alias in node.names and node.module:
            if node.module.split(".")[0] in PACKAGES:
                return f"{node.module}.{alias.name}"
    return None


def resolves(body: list[ast.stmt], chain: list[str]) -> bool:
    """Whether a body defines ``chain[0]``, and what that is defines the rest.

    A class's members are its body's names and the attributes its methods set
    on ``self``; a name imported from one of :data:`PACKAGES` is followed to
    its module; past anything else (a function, a value, a third-party import)
    the rest cannot be read from source and is taken on trust.
    """
    if not chain:
        return True
    found = defined(body, chain[0])
    if found is None:
        return False
    if isinstance(found, ast.ClassDef):
        rest = chain[1:]
        return resolves(found.body, rest) or (len(rest) == 1 and rest[0] in _self_attributes(found))
    if isinstance(found, ast.alias) and len(chain) > 1:
        source = _imported_from(body, found)
        return source is None or module_resolves(source, chain[1:])
    return True


@cache
def spec_origin(module: str) -> tuple[str | None, bool] | None:
    """A module's source file and whether it is a package, or None if it does not exist."""
    parent, _, _ = module.rpartition(".")
    if parent:
        above = spec_origin(parent)
        if above is None or not above[1]:
            return None  # only a package has submodules
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    return spec.origin, spec.submodule_search_locations is not None


def module_resolves(dotted: str, rest: list[str] | None = None) -> bool:
    """Whether ``a.b.c`` (then the names in ``rest``) names a module and what it defines."""
    parts = dotted.split(".") + (rest or [])
    for cut in range(len(parts), 0, -1):
        found = spec_origin(".".join(parts[:cut]))
        if found is not None:
            origin, _ = found
            if cut == len(parts):
                return True
            return origin is not None and resolves(module_tree(origin).body, parts[cut:])
    return False


@cache
def modules_by_last_part() -> dict[str, list[str]]:
    """Every module of :data:`PACKAGES` by the last part of its name (``run``: ...run)."""
    found: dict[str, list[str]] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if not parts[-1].startswith("__"):
                found.setdefault(parts[-1], []).append(".".join(parts))
    return found


@cache
def classes_by_name() -> dict[str, list[ast.ClassDef]]:
    """Every top-level class of the package's modules, by name."""
    found: dict[str, list[ast.ClassDef]] = {}
    for modules in modules_by_last_part().values():
        for module in modules:
            origin = spec_origin(module)
            if origin is None or origin[0] is None:
                continue
            for node in module_tree(origin[0]).body:
                if isinstance(node, ast.ClassDef):
                    found.setdefault(node.name, []).append(node)
    return found


@cache
def names_anywhere() -> frozenset[str]:
    """Every function, class and assigned name of the package's modules, and the builtins."""
    found = set(dir(builtins))
    for modules in modules_by_last_part().values():
        for module in modules:
            origin = spec_origin(module)
            for node in ast.walk(module_tree(origin[0])) if origin and origin[0] else ():
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    found.add(node.name)
                elif isinstance(node, ast.Assign | ast.AnnAssign):
                    found.update(t.id for t in _targets(node) if isinstance(t, ast.Name))
    return frozenset(found)


def bare_problem(span: str) -> str | None:
    """What is wrong with a code span ``_private`` or ``function(...)``, if anything."""
    match = BARE.fullmatch(span)
    name = match and (match.group(1) or match.group(2))
    if not name or name.startswith("__") or name in names_anywhere():
        return None
    return "nothing of the package has that name"


def short_problem(span: str) -> str | None:
    """What is wrong with a code span ``module.name`` or ``Class.member``, if anything."""
    match = SHORT.fullmatch(span)
    if match is None or FILE_NAME.fullmatch(span) or DOTTED.match(span):
        return None  # not this form, a file name, or a full name (checked as such)
    head, chain = match.group(1), match.group(2).split(".")[1:]
    if head in modules_by_last_part():
        if any(module_resolves(m, chain) for m in modules_by_last_part()[head]):
            return None
        return f"no module {head!r} defines {'.'.join(chain)}"
    if head in classes_by_name():
        if any(resolves(c.body, chain) for c in classes_by_name()[head]):
            return None
        return f"no class {head!r} has {'.'.join(chain)}"
    return None


def _expand_braces(pattern: str) -> list[str]:
    """``power.{json,md}`` as ``power.json`` and ``power.md`` (one level of braces)."""
    match = re.search(r"\{([^{}]*)\}", pattern)
    if match is None:
        return [pattern]
    head, tail = pattern[: match.start()], pattern[match.end() :]
    return [head + choice + tail for choice in match.group(1).split(",")]


def path_problem(root: Path, reference: str) -> str | None:
    """What is wrong with a repository path (``scripts/power.py``, ``zoo/*/sampler.py:sample``)."""
    path, _, name = reference.partition(":")
    path = path.rstrip(".,;")
    if "..." in path:
        return None  # an elided path, not a name
    matches = [
        match
        for pattern in _expand_braces(re.sub(r"<[^<>]*>", "*", path))
        for match in (root.glob(pattern.rstrip("/")) if "*" in pattern else [root / pattern])
        if match.exists()
    ]
    if not matches:
        return "no such file or folder"
    if name and path.endswith(".py"):
        missing = [m for m in matches if not resolves(module_tree(str(m)).body, name.split("."))]
        if missing:
            return f"{missing[0].relative_to(root)} defines no {name!r}"
    return None


def code_spans(page: Path) -> Iterator[tuple[int, str]]:
    """The inline code spans of a page's prose (not of its fenced blocks), with their line."""
    fenced = False
    for number, line in enumerate(page.read_text().splitlines(), start=1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            for span in CODE_SPAN.findall(line):
                yield number, span.strip()


def line_problems(line: str, page: Path, root: Path) -> Iterator[tuple[str, str]]:
    """The references of one line (prose, code span or fenced code) that name nothing.

    Yields ``(reference, what is missing)``.
    """
    for match in DOTTED.finditer(line):
        dotted, name = match.groups()
        if not module_resolves(dotted, [name] if name else None):
            yield match.group(), "no such module or name"
    for module, names in FROM_IMPORT.findall(line):
        for name in (part.split()[0] for part in names.split(",") if part.strip()):
            if not module_resolves(module, [name]):
                yield name, f"{module} defines no such name"
    for target in LINK.findall(line):
        local = target.split("#")[0]
        if local and not re.match(r"[a-z]+:", local) and not (page.parent / local).exists():
            yield target, "the link leads nowhere"
    for path in in_folder(root).findall(line):
        why = path_problem(root, path)
        if why:
            yield path, why
    for name in FILE_NAME.findall(line):
        known = name in ALLOWED or name in file_names(root) or (page.parent / name).exists()
        if not known:
            yield name, "no file of that name"


@cache
def in_folder(root: Path) -> re.Pattern[str]:
    """A path that starts with one of the repository's top-level folders."""
    folders = "|".join(map(re.escape, sorted(top_folders(root))))
    return re.compile(rf"(?<![\w./~$-])((?:{folders})/{PATH_CHARS}*(?::\w+)?)")


def page_problems(page: Path, root: Path = ROOT) -> list[Problem]:
    """Every reference of ``page`` that names no module, file, folder or name, by line."""
    shown = str(page.relative_to(root)) if page.is_relative_to(root) else page.name
    found: dict[tuple[int, str], str] = {}  # one problem per reference and line
    for number, line in enumerate(page.read_text().splitlines(), start=1):
        for name, why in line_problems(line, page, root):
            found.setdefault((number, name), why)  # a link's target is a path too
    for number, span in code_spans(page):
        wrong = None if span in ALLOWED else short_problem(span) or bare_problem(span)
        if wrong:
            found[number, span] = wrong
    problems = [Problem(shown, number, name, why) for (number, name), why in found.items()]
    return sorted(problems, key=lambda problem: problem.line)


def test_every_name_a_page_gives_exists() -> None:
    problems = [problem for page in pages() for problem in page_problems(page)]
    assert not problems, "the pages name what does not exist:\n" + "\n".join(map(str, problems))


def test_every_allowed_name_is_still_used() -> None:
    text = "\n".join(page.read_text() for page in pages())
    assert [name for name in ALLOWED if name not in text] == []


def test_the_architecture_page_gives_every_module_of_the_harness_its_job() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text()
    table = text.split("\n## The parts\n")[1].split("\n## ")[0]
    named = set(re.findall(r"`(\w+)\.py`", table))
    harness = {path.stem for path in (ROOT / "mcmc_pairs" / "comparisons").glob("[!_]*.py")}
    assert sorted(harness - named) == [], "docs/architecture.md, 'The parts', lacks these"


BAD_PAGE = """\
# A page that names what is not there

`run.run_pair` and `agreement.py` exist; `run.no_such_step` does not.
`mcmc_pairs.comparisons.agreement.Z_DF` exists, `mcmc_pairs.comparisons.nowhere` does not,
nor `mcmc_pairs.comparisons.kinds.Verdict.MAYBE`; `Settings.resolve` is a method,
`Settings.teleport` is not. See `comparisons/energy.py`, not `comparisons/telepathy.py`,
[the contracts](docs/contracts.md), not [the lost page](docs/lost.md).
`zoo/*/sampler.py:sample` holds, `comparisons/run.py:fly` does not; `vanished.py` is gone.

```python
from mcmc_pairs.comparisons.testing import compare, teleport
```

```bash
python scripts/power.py && python scripts/vanished.py
```
`_Comparison`, `run_pair(...)` and `len(draws)` exist; `_lost_helper` and `vanish(x)` do not.
"""


def test_the_checker_finds_each_bad_name_on_its_line(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(BAD_PAGE)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "contracts.md").write_text("")
    for folder in ("comparisons", "zoo", "scripts"):
        (tmp_path / folder).symlink_to(ROOT / folder)
    found = [(p.line, p.name) for p in page_problems(page, tmp_path)]
    assert found == [
        (3, "run.no_such_step"),
        (4, "mcmc_pairs.comparisons.nowhere"),
        (5, "mcmc_pairs.comparisons.kinds.Verdict.MAYBE"),
        (6, "comparisons/telepathy.py"),
        (6, "Settings.teleport"),
        (7, "docs/lost.md"),
        (8, "comparisons/run.py:fly"),
        (8, "vanished.py"),
        (11, "teleport"),
        (15, "scripts/vanished.py"),
        (17, "_lost_helper"),
        (17, "vanish(x)"),
    ]


def test_the_checker_leaves_prose_and_other_libraries_alone(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "The run ends; `pm.sample` and `np.random` are not ours; `draws.` is prose;\n"
        "`DIR/NAME.html` and `reports/x.html` are outputs, not files of the repository;\n"
        "a `sample(data, *, draws)` call, `--out FILE`, [a site](https://example.org/x.py).\n"
    )
    assert page_problems(page, ROOT) == []
