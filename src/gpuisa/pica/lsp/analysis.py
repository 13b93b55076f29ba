"""One analysis of a program: the assembler's diagnostics, its symbol tables, the index.

The diagnostics are those of ``pica asm`` with its default options: the same messages at
the same lines and columns, errors and warnings alike (the assembler's notes become the
related information of the message before them).  :func:`_findings` is the one adapter
that turns them into editor problems; it also takes the findings of ``pica check``
(``gpuisa.pica.check``, a static analyser being written separately) when that module
exists, with their finding IDs as codes.

The assembler runs through :mod:`.reassembly`, which keeps each unit's symbol tables (so
hover can say which register, swizzle and constant a name stands for) and, after an
edit, reads again only what the edit can change.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from ...errors import Diagnostic, GpuIsaError, SourceLocation
from ..check import check
from ..check.findings import Severity, SourceSpot
from ..check.registry import ASSEMBLER_WARNINGS
from .index import ProgramIndex, build_index
from .reassembly import Assembly, UnitFacts, assemble


@dataclass(frozen=True, slots=True)
class Related:
    path: str
    line: int
    col: int
    message: str


@dataclass(frozen=True, slots=True)
class Problem:
    """A diagnostic placed in a document: ``line``/``col`` from 0, ``col`` in characters;
    ``severity`` is "error", "warning" or "information"; ``code`` a finding ID."""

    path: str
    line: int
    col: int
    length: int
    severity: str
    message: str
    code: str | None = None
    related: tuple[Related, ...] = ()


class _IndexOnDemand:
    """The index of one version of a program, built the first time something asks for
    it: diagnostics are published without it (indexing 200,000 lines takes about a
    second), and a version edited again before anything asked never builds it.  It
    reuses the lines of the last version whose index was built; an unbuilt one is
    passed over, so that no chain of old versions is kept."""

    __slots__ = ("_base", "_built", "_sources")

    def __init__(self, sources: tuple[tuple[str, str], ...], previous: _IndexOnDemand | None):
        self._sources = sources
        self._built: ProgramIndex | None = None
        self._base = previous if previous is None or previous._built is not None \
            else previous._base

    def get(self) -> ProgramIndex:
        if self._built is None:
            base = self._base._built if self._base is not None else None
            with _no_cycle_collection():
                self._built = build_index(self._sources, base)
            self._base = None
        return self._built


@dataclass(frozen=True, slots=True)
class Analysis:
    sources: tuple[tuple[str, str], ...]
    indexer: _IndexOnDemand = field(repr=False, compare=False)
    problems: Mapping[str, tuple[Problem, ...]]
    units: tuple[UnitFacts, ...]
    #: Procedure name -> (first word, length in words).
    procedures: Mapping[str, tuple[int, int]]
    #: The run of the assembler, which the next version's analysis goes on from.
    assembly: Assembly = field(repr=False, compare=False)

    @property
    def index(self) -> ProgramIndex:
        return self.indexer.get()

    def text(self, path: str) -> str:
        return next((text for p, text in self.sources if p == path), "")


def _check_diagnostics(sources: Sequence[tuple[str, str]]
                       ) -> list[tuple[Diagnostic, str | None]]:
    """Findings of ``pica check`` as (diagnostic, check ID), each followed by its related
    places as notes (no ID).  PICA001 is skipped: it is the assembler's own warnings,
    which the assembler's diagnostics already hold."""
    try:
        findings = check(list(sources))
    except GpuIsaError:
        return []
    out = []
    for finding in findings:
        spot = finding.where
        if finding.check == ASSEMBLER_WARNINGS or not isinstance(spot, SourceSpot):
            continue
        location = SourceLocation(spot.file, spot.line, spot.column)
        # A note-level finding is information of its own, not a note of the previous one.
        severity = "information" if finding.severity is Severity.NOTE else \
            finding.severity.label
        out.append((Diagnostic(severity, finding.message, location, None, spot.length),
                    finding.check))
        # The finding's other places become its related information (as notes do).
        out.extend((Diagnostic("note", r.message, SourceLocation(r.where.file, r.where.line,
                                                                 r.where.column)), None)
                   for r in finding.related if isinstance(r.where, SourceSpot))
    return out


def _place(diagnostic: Diagnostic, texts: Mapping[str, str], last_lines: Mapping[str, int],
           first: str) -> tuple[str, int, int]:
    """(path, line, column) in a document (``last_lines``: the number of its last line,
    counted once per document, not per diagnostic): the assembler counts from 1 and
    starts the first line after a byte order mark; a location in a file that is not part
    of the program (a ``#`` line marker named it) is shown at the start of the first
    file."""
    loc: SourceLocation = diagnostic.location
    text = texts.get(loc.file)
    if text is None:
        return first, 0, 0
    last = last_lines[loc.file]
    if loc.line - 1 > last:  # end-of-file diagnostics name the line after the last
        return loc.file, last, 0
    line = max(loc.line - 1, 0)
    col = max(loc.column - 1, 0)
    if line == 0 and text.startswith("\ufeff"):
        col += 1
    return loc.file, line, col


def _findings(diagnostics: Sequence[tuple[Diagnostic, str | None]],
              texts: Mapping[str, str], first: str) -> dict[str, tuple[Problem, ...]]:
    problems: list[Problem] = []
    last_lines = {path: text.count("\n") for path, text in texts.items()}
    for diagnostic, code in diagnostics:
        path, line, col = _place(diagnostic, texts, last_lines, first)
        message = diagnostic.message
        if path != diagnostic.location.file:
            loc = diagnostic.location
            message = f"{loc.file}:{loc.line}:{loc.column}: {message}"
        if diagnostic.severity == "note" and problems:
            last = problems[-1]
            note = Related(path, line, col, message)
            problems[-1] = Problem(last.path, last.line, last.col, last.length, last.severity,
                                   last.message, last.code, (*last.related, note))
            continue
        severity = diagnostic.severity if diagnostic.severity in ("error", "warning") \
            else "information"
        problems.append(Problem(path, line, col, diagnostic.length, severity, message, code))
    out: dict[str, list[Problem]] = {path: [] for path in texts}
    for problem in problems:
        out[problem.path].append(problem)
    return {path: tuple(found) for path, found in out.items()}


@contextlib.contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector walks the live objects each time enough new ones have
    been made: while an analysis of a 200,000-line document makes a million small ones,
    that was 60 % of its time.  They are collected as usual afterwards."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def analyse(sources: Sequence[tuple[str, str]], previous: Analysis | None = None) -> Analysis:
    """Assemble a program (``(path, text)`` pairs in assembly order); its index is built
    when first asked for, reusing what the lines it shares with an earlier version's
    program meant."""
    with _no_cycle_collection():
        return _analyse(sources, previous)


def _analyse(sources: Sequence[tuple[str, str]], previous: Analysis | None) -> Analysis:
    sources = tuple((path, text) for path, text in sources)
    assembly = assemble(sources, previous.assembly if previous is not None else None)
    diagnostics: list[tuple[Diagnostic, str | None]] = [(d, None) for d in assembly.diagnostics]
    if assembly.assembled:
        diagnostics.extend(_check_diagnostics(sources))
    texts = dict(sources)
    indexer = _IndexOnDemand(sources, previous.indexer if previous is not None else None)
    return Analysis(sources, indexer, _findings(diagnostics, texts, sources[0][0]),
                    assembly.units, assembly.procedures, assembly)
