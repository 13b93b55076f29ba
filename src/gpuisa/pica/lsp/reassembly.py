"""Assembling a program again after an edit, reading only what the edit can change.

The assembler reads its sources line by line, and what it does with a line depends only
on its state and the line.  So a run keeps checkpoints: every so many statements, its
state (pickled, without the diagnostics, which are counted) and where its lexer would go
on.  After an edit of one source, the next run starts from the last checkpoint before
the first changed character (the text before it is the same, so is the state there),
and at each checkpoint after the last changed character it compares its state with the
previous run's at the same place of the unchanged rest (the same bytes, the same line
number): when they are equal, the rest of the run would repeat the previous one
statement for statement, so it stops and takes the previous run's later diagnostics,
symbol tables and checkpoints.  Pickles that are equal byte for byte unpickle to equal
states; states that are equal but pickle differently (a set's order) only cost a longer
run.  Anything else (several sources changed, files added) is a run from the start.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ...errors import Diagnostic
from ..asm.assembler import Assembler, Options
from ..asm.operands import Alias
from ..asm.source import Lexer, Marker, Resume, Statement, Tok
from ..shbin.records import Constant

#: Statements read between two checkpoints, at least; more when the state is large (a
#: checkpoint costs its pickling), so that checkpoints never hold more than
#: :data:`STATE_BYTES_PER_STATEMENT` bytes per statement read.
CHECKPOINT_STATEMENTS = 512
STATE_BYTES_PER_STATEMENT = 8
#: Attributes of a run that are not its state: the diagnostics and the error count
#: (counted at each checkpoint; statements never look at them, only linking asks whether
#: there was an error), the lexer (remade from where it was) and the bookkeeping here.
_NOT_STATE = frozenset({"diagnostics", "errors", "lexer", "checkpoints", "_read", "_due",
                        "_match", "_errors_after"})


@dataclass(frozen=True, slots=True)
class UnitFacts:
    """What the assembler knew about one unit when it ended."""

    aliases: Mapping[str, Alias]
    constants: tuple[Constant, ...]
    labels: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class Checkpoint:
    source: int
    resume: Resume
    #: How many diagnostics and errors the run had made.
    diagnostics: int
    errors: int
    state: bytes


@dataclass(frozen=True, slots=True)
class Assembly:
    """One run of the assembler over a program, as the language server keeps it."""

    sources: tuple[tuple[str, str], ...]
    diagnostics: tuple[Diagnostic, ...]
    #: Whether it made a SHBIN (no error), and the errors made reading the sources
    #: (linking, which may add some, depends on whether there was one).
    assembled: bool
    errors: int
    units: tuple[UnitFacts, ...]
    #: Procedure name -> (first word, length in words).
    procedures: Mapping[str, tuple[int, int]]
    checkpoints: tuple[Checkpoint, ...]


def _due(state: bytes) -> int:
    """Statements to read before the checkpoint after one of this state."""
    return max(CHECKPOINT_STATEMENTS, len(state) // STATE_BYTES_PER_STATEMENT)


class _Converged(Exception):
    def __init__(self, old: Checkpoint):
        super().__init__()
        self.old = old


class _Recorder(Assembler):
    """The assembler, keeping each unit's symbol tables (the assembler forgets a unit's
    aliases when the next begins; hover tells what a name stood for) and checkpoints."""

    def __init__(self) -> None:
        super().__init__(Options())
        self.facts: list[UnitFacts] = []
        self._began = False
        self.checkpoints: list[Checkpoint] = []
        self._read = 0
        self._due = CHECKPOINT_STATEMENTS
        #: (source, offset) -> the previous run's checkpoint there, if this run's state
        #: may be compared with it there (set when reading again after an edit).
        self._match: Callable[[int, int], Checkpoint | None] | None = None
        #: The errors the previous run made reading its sources (before linking).
        self._errors_after = 0

    def begin_file(self, unit: str | None, origin: Tok) -> None:
        if self._began:
            self.record()
        self._began = True
        super().begin_file(unit, origin)

    def record(self) -> None:
        constants = tuple(self.dvle.constants) if self.dvle is not None else ()
        self.facts.append(UnitFacts(dict(self.aliases), constants, dict(self.labels)))

    def item(self, item: Statement | Marker) -> None:
        Assembler.item(self, item)
        self._read += 1
        if self._read >= self._due or self._match is not None:
            resume = self.lexer.resume
            if resume is None:
                return
            old = self._match(self.source, resume[0]) if self._match is not None else None
            if old is not None or self._read >= self._due:
                self._checkpoint(resume, old)

    def _checkpoint(self, resume: Resume, old: Checkpoint | None) -> None:
        state = pickle.dumps({k: v for k, v in vars(self).items() if k not in _NOT_STATE},
                             protocol=pickle.HIGHEST_PROTOCOL)
        point = Checkpoint(self.source, resume, len(self.diagnostics), self.errors, state)
        self.checkpoints.append(point)
        self._read = 0
        self._due = _due(state)
        if old is not None and old.state == state and old.resume[1:] == resume[1:]:
            # Reading the rest adds the previous run's errors after `old`: linking must
            # find an error in both runs or in neither.
            later = self._errors_after - old.errors
            if (self.errors + later > 0) == (old.errors + later > 0):
                raise _Converged(old)

    def restore(self, previous: Assembly, point: int) -> None:
        """The state of ``previous`` at its checkpoint ``point``."""
        checkpoint = previous.checkpoints[point]
        vars(self).update(pickle.loads(checkpoint.state))
        self.diagnostics = list(previous.diagnostics[:checkpoint.diagnostics])
        self.errors = checkpoint.errors
        self.checkpoints = list(previous.checkpoints[:point + 1])
        self._due = _due(checkpoint.state)  # as the previous run went on from there

    def result(self, sources: tuple[tuple[str, str], ...], read_errors: int) -> Assembly:
        assembled = self.finish() is not None
        self.record()
        return Assembly(sources, tuple(self.diagnostics), assembled, read_errors,
                        tuple(self.facts),
                        {name: (p.start, p.length) for name, p in self.procs.items()},
                        tuple(self.checkpoints))


def _common_prefix(a: str, b: str) -> int:
    """Length of the longest common prefix (in blocks, then halving the last block)."""
    limit = min(len(a), len(b))
    start, block = 0, 1 << 16
    while start < limit and a[start:start + block] == b[start:start + block]:
        start += block
    start = min(start, limit)
    end = min(start + block, limit)
    while start < end:  # a[:start] == b[:start], and they differ before `end`
        middle = (start + end + 1) // 2
        if a[start:middle] == b[start:middle]:
            start = middle
        else:
            end = middle - 1
    return start


def _common_suffix(a: str, b: str, limit: int) -> int:
    return _common_prefix(a[::-1][:limit], b[::-1][:limit])


@dataclass(frozen=True, slots=True)
class _Plan:
    """Where to read again from: a checkpoint of the previous run (None: the start) and
    how new checkpoints find their counterparts in it."""

    start: int | None
    match: Callable[[int, int], Checkpoint | None]
    source: int
    shift: int


def _plan(sources: tuple[tuple[str, str], ...], previous: Assembly) -> _Plan | None:
    if [p for p, _ in sources] != [p for p, _ in previous.sources]:
        return None
    changed = [k for k, ((_, new), (_, old)) in enumerate(zip(sources, previous.sources,
                                                               strict=True)) if new != old]
    if len(changed) != 1:
        return None
    source = changed[0]
    new, old = sources[source][1], previous.sources[source][1]
    prefix = _common_prefix(new, old)
    suffix = _common_suffix(new, old, min(len(new), len(old)) - prefix)
    shift = len(new) - len(old)
    start = None
    for k, point in enumerate(previous.checkpoints):
        if point.source > source or (point.source == source and point.resume[0] > prefix):
            break
        start = k
    by_place = {(p.source, p.resume[0]): p for p in previous.checkpoints}
    unchanged_from = len(new) - suffix

    def match(at: int, offset: int) -> Checkpoint | None:
        if at == source:
            return by_place.get((source, offset - shift)) if offset >= unchanged_from \
                else None
        return by_place.get((at, offset)) if at > source else None

    return _Plan(start, match, source, shift)


def assemble(sources: Sequence[tuple[str, str]], previous: Assembly | None = None
             ) -> Assembly:
    """Assemble a program, reading again only what differs from ``previous`` (a run of
    the same files) and what that changed."""
    sources = tuple(sources)
    if previous is not None and previous.sources == sources:
        return previous
    plan = _plan(sources, previous) if previous is not None else None
    recorder = _Recorder()
    try:
        if plan is None or plan.start is None:
            if plan is not None:
                recorder._match = plan.match
                recorder._errors_after = previous.errors
            recorder.units = -1
            recorder.read(sources)
        else:
            recorder.restore(previous, plan.start)
            recorder._match = plan.match
            recorder._errors_after = previous.errors
            point = previous.checkpoints[plan.start]
            name, text = sources[point.source]
            recorder.read(sources, point.source,
                          Lexer(text, name, strict=recorder.strict, resume=point.resume))
        return recorder.result(sources, recorder.errors)
    except _Converged as converged:
        return _spliced(recorder, sources, previous, plan, converged.old)


def _spliced(recorder: _Recorder, sources: tuple[tuple[str, str], ...],
             previous: Assembly, plan: _Plan, old: Checkpoint) -> Assembly:
    """This run up to its last checkpoint, then the previous run from ``old`` on (its
    checkpoints moved by the edit's change of length and of diagnostics)."""
    new = recorder.checkpoints[-1]
    made, failed = new.diagnostics - old.diagnostics, new.errors - old.errors
    later = tuple(
        Checkpoint(p.source, (p.resume[0] + plan.shift, *p.resume[1:])
                   if p.source == plan.source else p.resume, p.diagnostics + made,
                   p.errors + failed, p.state)
        for p in previous.checkpoints
        if (p.source, p.resume[0]) > (old.source, old.resume[0]))
    return Assembly(sources, (*recorder.diagnostics, *previous.diagnostics[old.diagnostics:]),
                    previous.assembled, previous.errors + failed, previous.units,
                    previous.procedures, (*recorder.checkpoints, *later))
