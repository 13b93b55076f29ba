"""Every relative link and every ``page.md#anchor`` reference in docs/ and README.md resolves.

Checked: Markdown links and images ``[text](target)``, reference definitions
``[id]: target``, and bare ``page.md#anchor`` mentions (in prose or code spans, as the
citation table of docs/reference/README.md writes them).  A target must be a file or
directory inside the repository; an anchor must be an explicit ``<a id="...">`` of the
target page or one of GitHub's heading slugs.  Links with a scheme (https:, mailto:)
are not followed.  Text inside fenced code blocks is neither a link nor a heading.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_EXPLICIT = re.compile(r"""<a\s+(?:[^>]*\s)?(?:id|name)\s*=\s*["']([^"']+)["']""")
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+[\"'(][^)]*)?\)")
_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(\S+)", re.MULTILINE)
_BARE = re.compile(r"(?<![\w/.#-])((?:[\w.-]+/)*[\w.-]+\.md)#([\w-]+)")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def _prose(text: str) -> str:
    """``text`` with fenced code blocks blanked (line numbers kept)."""
    out, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            out.append("")
        else:
            out.append("" if fenced else line)
    return "\n".join(out)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text (before de-duplication)."""
    text = re.sub(r"<[^>]+>", "", heading)  # inline HTML such as <a id=...></a>
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links keep their text
    text = text.replace("`", "").replace("*", "")
    text = re.sub(r"(?<!\w)_+|_+(?!\w)", "", text)  # _emphasis_, not snake_case
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The anchors a page defines: explicit ones and its headings' slugs."""
    found = set(_EXPLICIT.findall(text))
    seen: dict[str, int] = {}
    for line in _prose(text).splitlines():
        match = _HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def _resolve(target: str, page: Path, root: Path) -> Path | None:
    """The file a relative target names, or None if it leaves the repository."""
    base = root if target.startswith("/") else page.parent
    path = (base / target.lstrip("/")).resolve()
    return path if path.is_relative_to(root.resolve()) else None


def problems(text: str, page: Path, root: Path, cache: dict[Path, set[str]] | None = None
             ) -> list[str]:
    """Every broken link or anchor reference of ``text`` (the content of ``page``)."""
    cache = {} if cache is None else cache
    prose = _prose(text)

    def page_anchors(path: Path) -> set[str]:
        if path not in cache:
            cache[path] = anchors(path.read_text(encoding="utf-8"))
        return cache[path]

    found = []
    for target, offset, bare in _targets(prose):
        problem = _problem(target, text, page, root, page_anchors, bare)
        if problem is not None:
            line = prose.count("\n", 0, offset) + 1
            found.append(f"{page.relative_to(root)}:{line}: {target}: {problem}")
    return found


def _targets(prose: str) -> Iterator[tuple[str, int, bool]]:
    """Each relative link target of ``prose``, its offset and whether it is a bare
    ``page.md#anchor`` citation (not a Markdown link)."""
    for match in _LINK.finditer(prose):
        target = match.group(1).strip("<>")
        if not _SCHEME.match(target):
            yield target, match.start(), False
    for match in _DEFINITION.finditer(prose):
        if not _SCHEME.match(match.group(1)):
            yield match.group(1), match.start(), False
    linked = {m.start(1) for m in _LINK.finditer(prose)}
    for match in _BARE.finditer(prose):
        if match.start() not in linked and not _SCHEME.match(match.group(1)):
            yield f"{match.group(1)}#{match.group(2)}", match.start(), True


def _problem(target: str, text: str, page: Path, root: Path,
             page_anchors: Callable[[Path], set[str]], bare: bool) -> str | None:
    """What is wrong with one link target of ``page`` (whose content is ``text``)."""
    file, _, anchor = target.partition("#")
    if not file:
        return None if anchor in anchors(text) else f"no anchor #{anchor} in this page"
    path = _resolve(file, page, root)
    if bare and (path is None or not path.exists()) and "/" not in file:
        path = _resolve(f"/docs/reference/{file}", page, root)
    if path is None:
        return "points outside the repository"
    if not path.exists():
        return "no such file"
    if anchor and (path.is_dir() or path.suffix != ".md"):
        return "an anchor on a file that is not a Markdown page"
    if anchor and anchor not in page_anchors(path):
        return f"no anchor #{anchor} in {file}"
    return None


def _pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_links_and_anchors_resolve(page):
    broken = problems(page.read_text(encoding="utf-8"), page, ROOT)
    assert not broken, "broken links:\n" + "\n".join(broken)


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_explicit_anchors_are_unique(page):
    ids = _EXPLICIT.findall(page.read_text(encoding="utf-8"))
    twice = sorted({i for i in ids if ids.count(i) > 1})
    assert not twice, f"anchors defined twice in {page.name}: {twice}"


def test_the_resolver_finds_broken_links_and_anchors(tmp_path):
    (tmp_path / "docs").mkdir()
    other = tmp_path / "docs" / "other.md"
    other.write_text('# Other page\n\n<a id="kept"></a>\n## A `code` heading\n## Twice\n'
                     "## Twice\n", encoding="utf-8")
    page = tmp_path / "docs" / "page.md"
    text = ("# Page\n\n"
            "[fine](other.md#kept) [slug](other.md#a-code-heading) [dup](other.md#twice-1)\n"
            "[web](https://example.org/x.md#nothing) [here](#page) see other.md#kept\n"
            "[gone](missing.md) [no anchor](other.md#absent) [local](#absent-here)\n"
            "[escape](../../outside.md) and other.md#also-absent\n"
            "```\n[in code](missing-too.md)\n```\n")
    page.write_text(text, encoding="utf-8")
    found = problems(text, page, tmp_path)
    assert len(found) == 5, found
    for expected in ("missing.md: no such file", "other.md#absent: no anchor #absent",
                     "#absent-here: no anchor", "../../outside.md: points outside",
                     "other.md#also-absent: no anchor"):
        assert any(expected in p for p in found), (expected, found)


def test_heading_slugs_follow_github():
    assert slug("Float24 rounding (RNE)") == "float24-rounding-rne"
    assert slug("`.constf` and `.setf`") == "constf-and-setf"
    assert slug("MIN, MAX and ±0") == "min-max-and-0"
    assert slug("snake_case stays") == "snake_case-stays"
