"""One invocation's run, instruction by instruction (``a2xx trace``).

:func:`trace` runs a shader like :func:`~.api.run_vertex` / :func:`~.api.run_fragment`
and records, for one invocation, every CF clause it reaches and every instruction of its
EXEC blocks (an ALU slot's vector and co-issued scalar operation together, a fetch), in
Xenia's text (a2xx-isa.md#xna-text), with the registers, exports, predicate, address
register and previous-scalar value the instruction changed.  An instruction whose
predicate skips the invocation is recorded as skipped.  Constants an instruction reads
are named from a container's constant table when one is given.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import InputError
from .. import isa
from ..containers import Constant, Semantic
from ..xna import disassemble_xna
from .api import resolve_config, run_fragment, run_vertex
from .attributes import bind_arguments
from .state import BatchState

_MARKER = re.compile(r"^/\*\s*(\d+)(\.\d)?\s*\*/ ?", re.MULTILINE)
_CONSTANT = re.compile(r"\bc(?:_abs\[)?(\d+)\b")


@dataclass(frozen=True, slots=True)
class Change:
    """A value an instruction changed: ``name`` (``r3``, ``oPos``, ``p0``, ``a0``, ``ps``,
    ``killed``) from ``before`` to ``after`` (4 components for registers, 1 otherwise)."""

    name: str
    before: tuple[float, ...]
    after: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class TraceStep:
    """A CF clause (``slot`` is None) or an instruction the invocation reached."""

    cf: int  # CF clause index
    slot: int | None
    text: str  # Xenia's text of the clause or instruction
    executed: bool  # False: the instruction's predicate skipped this invocation
    changes: tuple[Change, ...]
    constants: tuple[str, ...]  # "c4 = mvp[0]" for each named constant it reads, and
    # "reads POSITION0" for a vertex fetch a container declares


class _Recorder:
    def __init__(
        self, invocation: int, texts: _Texts, names: Mapping[int, str],
        elements: Mapping[int, str],
    ):
        self.invocation = invocation
        self.texts = texts
        self.names = names
        self.elements = elements
        self.steps: list[TraceStep] = []
        self.pc = 0
        self.state: BatchState | None = None
        self.before: dict[str, tuple[float, ...]] = {}

    def start(self, state: BatchState) -> None:
        if not 0 <= self.invocation < state.count:
            raise InputError(
                f"invocation {self.invocation} does not exist (the run has {state.count})"
            )
        self.state = state
        self.before = self.snapshot()

    def snapshot(self) -> dict[str, tuple[float, ...]]:
        state, k = self.state, self.invocation
        assert state is not None
        values = {f"r{i}": tuple(float(x) for x in reg[:, k]) for i, reg in state.temps.items()}
        values |= {f"export{i}": tuple(float(x) for x in reg[:, k])
                   for i, reg in state.exports.items()}
        values |= {"p0": (float(state.p0[k]),), "a0": (float(state.a0[k]),),
                   "ps": (float(state.ps[k]),), "killed": (float(state.killed[k]),)}
        return values

    def clause(self, pc: int, lanes: np.ndarray) -> None:
        if _has(lanes, self.invocation):
            self.pc = pc
            self.steps.append(TraceStep(pc, None, self.texts.clauses.get(pc, ""), True, (), ()))

    def instruction(self, slot: int, lanes: np.ndarray, active: np.ndarray) -> None:
        if not _has(lanes, self.invocation):
            return
        text = self.texts.slots.get(slot, "")
        executed = _has(active, self.invocation)
        after = self.snapshot()
        changes = tuple(
            Change(name, self.before.get(name, (0.0,) * len(value)), value)
            for name, value in after.items()
            if self.before.get(name, (0.0,) * len(value)) != value
        )
        self.before = after
        named = tuple(
            f"c{n} = {self.names[n]}"
            for n in dict.fromkeys(int(m) for m in _CONSTANT.findall(text))
            if n in self.names
        )
        if slot in self.elements:
            named += (f"reads {self.elements[slot]}",)
        self.steps.append(TraceStep(self.pc, slot, text, executed, changes, named))


def _has(lanes: np.ndarray, invocation: int) -> bool:
    index = np.searchsorted(lanes, invocation)
    return bool(index < len(lanes) and lanes[index] == invocation)


@dataclass(frozen=True, slots=True)
class _Texts:
    clauses: dict[int, str]  # CF clause index -> its text
    slots: dict[int, str]  # slot -> its instruction's text (an ALU slot: one or two lines)


def _texts(words: Sequence[int], shader_type: str) -> _Texts:
    """Xenia's text of each CF clause and instruction, cut at its listing's markers."""
    listing = disassemble_xna(words, shader_type)
    found = list(_MARKER.finditer(listing))
    texts = _Texts({}, {})
    for i, m in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(listing)
        body = re.sub(r"^[ \t]*label L\d+[ \t]*\n?", "", listing[m.end() : end], flags=re.M)
        lines = [line.strip() for line in body.splitlines() if line.strip()]
        number = int(m[1])
        if m[2]:
            texts.clauses[2 * number + int(m[2][1])] = " ".join(lines)
        else:
            texts.slots[number] = "\n".join(lines)
    return texts


def constant_names(constants: Sequence[Constant]) -> dict[int, str]:
    """Float constant register -> its name in a constant table (``mvp[2]`` for c6 when
    ``mvp`` occupies c4-c7)."""
    names: dict[int, str] = {}
    for c in constants:
        if c.register_set != "float4":
            continue
        for i in range(c.count):
            names[c.index + i] = c.name if c.count == 1 else f"{c.name}[{i}]"
    return names


def trace(
    words: Sequence[int],
    shader_type: str,
    *,
    invocation: int = 0,
    constants: Sequence[Constant] = (),
    elements: Sequence[Semantic] = (),
    **run: Any,
) -> tuple[TraceStep, ...]:
    """Run the shader (``run`` takes :func:`run_vertex` / :func:`run_fragment`'s
    arguments) and return invocation ``invocation``'s steps; ``constants`` and
    ``elements`` (a container's constant table and vertex elements) name what the
    instructions read; a vertex shader's ``elements`` also bind its ``attributes``."""
    if shader_type == "vertex" and (elements or run.get("attributes") is not None):
        # Patched first, so that the trace shows the fetches as they run.
        config = resolve_config(run.get("target", "adreno"), run.get("config"))
        words, run = bind_arguments(words, elements, config, run)
    words = list(words)
    recorder = _Recorder(
        invocation,
        _texts(words, shader_type),
        constant_names(constants),
        {e.slot: e.name for e in elements},
    )
    if shader_type == "vertex":
        run_vertex(words, observer=recorder, **run)
    else:
        run_fragment(words, observer=recorder, **run)
    return tuple(recorder.steps)


def format_trace(steps: Sequence[TraceStep], shader_type: str) -> str:
    """The text ``a2xx trace`` prints."""
    exports = _export_names(shader_type)
    lines = []
    for step in steps:
        if step.slot is None:
            lines.append(f"cf {step.cf // 2}.{step.cf % 2}  {step.text}")
            continue
        text = step.text.split("\n")
        lines.append(f"  {step.slot:4d}  {text[0]}" + ("" if step.executed else "   (skipped)"))
        lines.extend(f"        {more}" for more in text[1:])
        if step.constants:
            lines.append("        ; " + ", ".join(step.constants))
        for change in step.changes:
            name = exports.get(change.name, change.name)
            was = _values(change.before)
            lines.append(f"        {name} = {_values(change.after)}   (was {was})")
    return "\n".join(lines) + "\n"


def _values(values: tuple[float, ...]) -> str:
    return ", ".join(f"{v:g}" for v in values)


def _export_names(shader_type: str) -> dict[str, str]:
    """Xenia's names of the export registers (a2xx-isa.md#exports)."""
    if shader_type == "vertex":
        names = {f"export{i}": f"o{i}" for i in range(isa.EXPORT_INTERPOLATORS)}
        names |= {f"export{isa.EXPORT_POSITION}": "oPos", f"export{isa.EXPORT_POINT_SIZE}": "oPts"}
    else:
        names = {f"export{i}": f"oC{i}" for i in range(isa.EXPORT_COLORS)}
        names[f"export{isa.EXPORT_DEPTH}"] = "oDepth"
    names[f"export{isa.EXPORT_ADDRESS}"] = "eA"
    for i in range(isa.EXPORT_DATA_LAST - isa.EXPORT_DATA_FIRST + 1):
        names[f"export{isa.EXPORT_DATA_FIRST + i}"] = f"eM{i}"
    return names
