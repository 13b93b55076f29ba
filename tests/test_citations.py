"""Every citation of gpuisa's reference pages resolves, and no citation of a document
outside the repository comes back.

A citation is ``<page>.md#<anchor>`` (docs/reference/README.md#citing): ``<page>`` is the
file name of a page in ``docs/reference/``, written without its directory, and
``<anchor>`` an explicit ``<a id="...">`` of that page or one of its heading slugs.  A
repository path with an anchor (docs/vectors-format.md#provenance in a docstring) is
resolved from the repository root.  In Markdown, a link target such as
``reference/<page>.md#<anchor>`` is relative to its page and is checked by
``test_doc_links.py``; its text and any bare ``<page>.md#<anchor>`` are checked here.

The old forms (section numbers of the documents that lived outside the repository, the
"seed" copies of public pages, absolute paths of one machine) are listed in
docs/reference/README.md#citations; :data:`OLD_FORMS` fails on their reappearance.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from test_doc_links import anchors

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "reference"

#: Where citations are looked for.
SCANNED = ("src", "tests", "docs", "benchmarks", "examples", "editors", "README.md",
           "CONTRIBUTING.md", "pyproject.toml")
#: Files whose page-and-anchor texts are not citations.
NOT_CITING = {
    "tests/test_doc_links.py": "the link checker's own test: synthetic pages and links",
}
_SKIPPED_DIRS = {".git", "__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis",
                 ".venv", "build", "dist", "node_modules"}

#: ``<page>.md#<anchor>``: a file name not preceded by a path, a dot or a word character.
CITATION = re.compile(r"(?<![\w./-])([\w-]+\.md)#([\w-]+)")
#: ``<dir>/<page>.md#<anchor>`` outside Markdown: a repository path from the root.
PATH_CITATION = re.compile(r"(?<![\w./:-])((?:[\w.-]+/)+[\w.-]+\.md)#([\w-]+)")

_SECTION = "\u00a7"
#: The citation forms of the documents that lived outside the repository, and the
#: pointers to that machine's files (docs/reference/README.md#citations).
OLD_FORMS: dict[str, re.Pattern[str]] = {
    "a section number (the old documents' form)": re.compile(_SECTION),
    "the old emulation-notes document": re.compile(r"pica-emulation-" "notes|emulation " "notes"),
    "the old assembly-language document": re.compile(r"pica-assembly-" "language"),
    "an old document path": re.compile(
        r"(?<![\w/])docs/(?:a2xx-isa|shbin-format|pica-emulation|pica-assembly)\.md"),
    "a stored copy of a public page (the 'seed')": re.compile(
        r"\bseeds?/\d|\bseeds? 0\d\d"
        r"|\b[Ss]eed(?:'s\b|:(?!\s*(?:int|str)\b)|\s+\"[A-Z]"
        r"|\s+(?:table|rows?|JMPU|LITP|MOVA|CMP|DST|SETEMIT|Nomenclature|page)\b)"
        r"|(?<![\w.(\[])\(seed(?:[\s):;]|,\s+[A-Z])"),
}
#: Paths of one machine, forbidden everywhere in the repository, docs/reference included
#: (``[k]`` keeps the pattern from matching its own text).
MACHINE_PATHS = re.compile(r"/wor[k]/|\.\./shared/|\bshared/(?:docs|seeds)\b|/home/\w|/Users/\w")


def _text_files(*names: str) -> list[Path]:
    found = []
    for name in names:
        path = ROOT / name
        candidates = [path] if path.is_file() else sorted(path.rglob("*")) if path.is_dir() else []
        for file in candidates:
            parts = set(file.relative_to(ROOT).parts)
            if file.is_file() and not parts & _SKIPPED_DIRS and not any(
                    p.endswith(".egg-info") for p in parts):
                try:
                    file.read_text(encoding="utf-8")
                except UnicodeDecodeError:
                    continue  # images, binaries
                found.append(file)
    return found


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def problems(text: str, markdown: bool, root: Path = ROOT,
             cache: dict[Path, set[str]] | None = None) -> list[str]:
    """Every citation of ``text`` whose page or anchor does not exist, as
    ``line: citation: reason``.  ``markdown``: the text is a Markdown page (path
    citations there are relative links, left to test_doc_links.py)."""
    cache = {} if cache is None else cache
    reference = root / "docs" / "reference"

    def page_anchors(path: Path) -> set[str]:
        if path not in cache:
            cache[path] = anchors(path.read_text(encoding="utf-8"))
        return cache[path]

    found = []
    matches = [(m, reference / m.group(1)) for m in CITATION.finditer(text)]
    if not markdown:
        matches += [(m, root / m.group(1)) for m in PATH_CITATION.finditer(text)]
    for match, page in matches:
        line = text.count("\n", 0, match.start()) + 1
        where = f"{line}: {match.group(0)}"
        if not page.is_file():
            found.append(f"{where}: no page {_shown(page, root)}")
        elif match.group(2) not in page_anchors(page):
            found.append(f"{where}: no anchor #{match.group(2)} on {_shown(page, root)}")
    return found


def _shown(page: Path, root: Path) -> str:
    return page.relative_to(root).as_posix() if page.is_relative_to(root) else str(page)


def old_forms(text: str) -> list[str]:
    """Every occurrence of an old citation form in ``text``, as ``line: what: text``."""
    found = []
    for what, pattern in OLD_FORMS.items():
        for match in pattern.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append(f"{line}: {what}: {match.group(0)!r}")
    return found


#: Modules whose old citations are still to be rewritten (they were being changed
#: elsewhere when the others were): expected to fail until they are, then to be removed
#: from this list (strict xfail).
PENDING: dict[str, str] = {}

_CACHE: dict[Path, set[str]] = {}
_CITING = [f for f in _text_files(*SCANNED) if _rel(f) not in NOT_CITING]
_PROSE = [pytest.param(f, id=_rel(f), marks=pytest.mark.xfail(strict=True,
                                                              reason=PENDING[_rel(f)]))
          if _rel(f) in PENDING else pytest.param(f, id=_rel(f))
          for f in _CITING if not _rel(f).startswith("docs/reference/")]


@pytest.mark.parametrize("path", _CITING, ids=_rel)
def test_every_citation_names_an_existing_page_and_anchor(path):
    text = path.read_text(encoding="utf-8")
    broken = problems(text, path.suffix == ".md", cache=_CACHE)
    assert not broken, f"{_rel(path)}:\n" + "\n".join(broken)


@pytest.mark.parametrize("path", _PROSE)
def test_no_old_citation_form_comes_back(path):
    """docs/reference/ is exempt: its headings carry section numbers for reading, and its
    README keeps the table from the old forms to the new anchors."""
    found = old_forms(path.read_text(encoding="utf-8"))
    assert not found, (f"{_rel(path)} cites a document outside the repository; cite "
                       "docs/reference/ instead (docs/reference/README.md#citations):\n"
                       + "\n".join(found))


def test_no_path_of_a_machine_anywhere():
    files = _text_files(".")
    assert len(files) > 100
    found = [f"{_rel(f)}:{f.read_text(encoding='utf-8').count(chr(10), 0, m.start()) + 1}: "
             f"{m.group(0)}"
             for f in files for m in MACHINE_PATHS.finditer(f.read_text(encoding="utf-8"))]
    assert not found, "\n".join(found)


def test_the_scan_finds_the_citations_of_the_code():
    """The scan is not vacuous: the engine's recipes, the checks' explanations and the
    A2XX ISA table all cite pages, and the code and tests cite every page of
    docs/reference."""
    cited: dict[str, set[str]] = {}
    for path in _CITING:
        if not _rel(path).startswith(("src/", "tests/")):
            continue
        for match in CITATION.finditer(path.read_text(encoding="utf-8")):
            cited.setdefault(_rel(path), set()).add(match.group(1))
    for module, page in (("src/gpuisa/pica/engine/rules/recipes.py", "pica-emulation.md"),
                         ("src/gpuisa/pica/check/registry.py", "pica-emulation.md"),
                         ("src/gpuisa/a2xx/isa.py", "a2xx-isa.md")):
        assert page in cited.get(module, set()), module
    pages = {page for names in cited.values() for page in names}
    assert {p.name for p in REFERENCE.glob("*.md")} - {"README.md"} <= pages


# -- the resolver itself, on synthetic text ---------------------------------------------------

def _page(root: Path, name: str, text: str) -> None:
    (root / "docs" / "reference").mkdir(parents=True, exist_ok=True)
    (root / "docs" / "reference" / name).write_text(text, encoding="utf-8")


def test_the_resolver_reports_a_broken_page_and_a_broken_anchor(tmp_path):
    _page(tmp_path, "rules.md", '# Rules\n\n<a id="kept"></a>\n## Rounding and `NaN`\n')
    (tmp_path / "docs" / "notes.md").write_text('<a id="here"></a>\n', encoding="utf-8")
    md = ".md#"
    text = "\n".join([
        f"ok: rules{md}kept, slug: rules{md}rounding-and-nan",
        f"broken anchor: rules{md}gone",
        f"broken page: missing{md}kept",
        f"path from the root: docs/notes{md}here, docs/notes{md}absent",
        f"not a citation: https://example.org/rules{md}gone, rules.md alone",
    ])
    found = problems(text, markdown=False, root=tmp_path)
    assert found == [
        f"2: rules{md}gone: no anchor #gone on docs/reference/rules.md",
        f"3: missing{md}kept: no page docs/reference/missing.md",
        f"4: docs/notes{md}absent: no anchor #absent on docs/notes.md",
    ], found
    # in Markdown a path is a relative link (test_doc_links.py), not a root path
    assert problems(text, markdown=True, root=tmp_path) == found[:2]


def test_the_resolver_accepts_every_anchor_form(tmp_path):
    _page(tmp_path, "page.md", '| <a id="in-cell"></a> x |\n\n## 3.1 A heading\n## Twice\n'
                               "## Twice\n")
    md = ".md#"
    text = f"page{md}in-cell page{md}31-a-heading page{md}twice page{md}twice-1"
    assert problems(text, markdown=False, root=tmp_path) == []


@pytest.mark.parametrize("text", [
    "(notes " + _SECTION + "3.1)",
    "see pica-emulation-" + "notes.md",
    "pica-assembly-" + "language.md " + _SECTION + "8.4",
    "shbin-format.md " + _SECTION + "7",
    "a2xx: (" + _SECTION + "2.2)",
    "docs/a2xx-isa" + ".md",
    "the seed" + "'s " + '"Instructions" table',
    "(seed" + " JMPU row)",
    "seed" + ': "A stack overflow discards the oldest element"',
    "(seed" + " table)",
    "(seed" + ', LITP row: "127.9961 = 0x7FFF / 0x100")',
    "3dbrew (seed" + " 002)",
    "/" + "work" + "/shared/" + "seeds/" + "000_2801458166e9545b.txt",
])
def test_an_old_form_is_reported(text):
    assert old_forms(text) or MACHINE_PATHS.search(text), text


@pytest.mark.parametrize("text", [
    'SEED = "seed"  # a provenance kind of the conformance suite',
    "case seed/max-0-minus-inf",
    "def case(seed: int, profile: str)",
    "rng = random.Random(seed)",
    "assert bad.size == 0, (seed, int(bad[0]))",
    "assemble(SOURCE)  # the seed itself is valid",
    "pica-emulation.md#flow-check (3dbrew: \"the fourth update ...\")",
])
def test_what_is_not_an_old_form(text):
    assert not old_forms(text), old_forms(text)
