"""Turning catalog groups into cases: assemble each program once, run all its cases
together in both precision modes on the reference model, and record bit patterns."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from ...errors import GpuIsaError
from ...floats import ROUNDING_MODES, f24_to_f32, f32_to_f24
from ..asm import assemble
from ..encoding import decode
from ..engine import F24Bits
from ..engine.loading import DEFAULT_ROUNDING
from ..isa import OPCODES, Arithmetic, OpcodeInfo, SourceUse
from ..shbin import ShaderType, Shbin, output_map
from .model import (
    HARDWARE,
    MODEL,
    MODES,
    ROUNDING_CHOICES,
    SEED,
    Case,
    Expected,
    Provenance,
    Register,
    exact_f24,
    f32_bits,
)
from .replay import Launch, execute, expectation, failure, register_values, uniform_values
from .spec import F24, Group, Row, Spec

#: Unknowns a case's expectation may depend on (docs/vectors-format.md, "Unknowns").
ROUNDING = "f24-rounding-mode"
CONVERSION = "f32-to-f24-conversion"
SUMMATION = "dot-product-summation-order"
SPECIAL = "special-function-precision"
#: The tag of a case whose f24 expectation differs between float24's two roundings
#: (docs/vectors-format.md, "Rounding"): made in the other one, inputs included, it
#: expects other bits.
ROUNDING_DEPENDENT = "rounding:mode-dependent"



def _statement(test: Callable[[OpcodeInfo], bool]) -> re.Pattern[str]:
    """A line starting with an instruction whose table row passes ``test``."""
    names = "|".join(i.mnemonic for i in OPCODES.values() if i.mnemonic and test(i))
    return re.compile(rf"^\s*({names})\b", re.M)


#: Sums of products (rounded at each step in float24) and the special-function units.
_SUMMING = _statement(lambda i: i.arithmetic in (Arithmetic.DOT, Arithmetic.MAD))
_SPECIAL = _statement(lambda i: i.use is SourceUse.SCALAR)
#: Instructions every program uses to move values around: not tagged as exercised.
_PLUMBING = frozenset({"mov", "end", "nop"})


class GenerationError(GpuIsaError):
    """A catalog entry is inconsistent (a bug in the catalog, reported with its name)."""


def component(value: float | F24, rounding: str = DEFAULT_ROUNDING) -> tuple[int, int, bool]:
    """(float32 bits, float24 bits, whether the float24 pattern is a rounded conversion,
    rounded by ``rounding``)."""
    if isinstance(value, F24):
        bits = int(f24_to_f32(np.uint32(value.pattern)).view(np.uint32))
        return bits, value.pattern, False
    bits = f32_bits([value])[0]
    exact = exact_f24(bits)
    if exact is not None:
        return bits, exact, False
    return bits, int(f32_to_f24(np.uint32(bits).view(np.float32), rounding)), True


def register(name: str, rows: Iterable[Row],
             rounding: str = DEFAULT_ROUNDING) -> tuple[Register, bool]:
    f32: list[tuple[int, ...]] = []
    f24: list[tuple[int, ...]] = []
    rounded = False
    for row in rows:
        parts = [component(v, rounding) for v in row]
        if len(parts) != 4:
            raise GenerationError(f"{name}: a row needs four components, got {len(parts)}")
        f32.append(tuple(p[0] for p in parts))
        f24.append(tuple(p[1] for p in parts))
        rounded |= any(p[2] for p in parts)
    return Register(name, tuple(f32), tuple(f24)), rounded  # type: ignore[arg-type]


class _Program:
    """A group's assembled program and its run parameters."""

    def __init__(self, group: Group, rounding: str):
        self.group = group
        self.rounding = rounding
        try:
            self.shbin: Shbin = assemble([(f"{group.family}.pica", group.source)],
                                         pad_nops=group.pad_nops)
        except GpuIsaError as error:
            raise GenerationError(f"catalog group {group.family}: {error}") from None
        self.bytes = self.shbin.to_bytes()
        self.dvle = 1 if group.pipeline else 0
        self.launch = Launch(self.shbin, self.dvle, group.pipeline, group.cmp, group.address)
        record = self.shbin.entries[self.dvle]
        self.geometry = record.shader_type == ShaderType.GEOMETRY
        mask = output_map(record.outputs).mask
        self.outputs = tuple(f"o{n}" for n in range(16) if mask >> n & 1)
        rounded = False
        self.float_uniforms: list[Register] = []
        self.int_uniforms: list[tuple[str, tuple[int, int, int, int]]] = []
        self.bools = 0
        for name, value in group.uniforms.items():
            if name[0] == "c":
                reg, r = register(name, [value], rounding)  # type: ignore[list-item]
                self.float_uniforms.append(reg)
                rounded |= r
            elif name[0] == "i":
                self.int_uniforms.append((name, tuple(value)))  # type: ignore[arg-type]
            elif value:
                self.bools |= 1 << int(name[1:])
        self.uniforms_rounded = rounded
        names = [decode(w).mnemonic or "unknown" for w in self.shbin.program.code]
        used = [n for n in dict.fromkeys(names) if n not in _PLUMBING] or names[:1]
        self.op_tags = tuple(f"op:{n}" for n in used)

    def uniforms(self, mode: str) -> dict[str, object]:
        return uniform_values(self.float_uniforms, self.int_uniforms, self.bools, mode)

    def run(self, inputs: dict[str, object], mode: str):
        return execute(self.launch, inputs, self.uniforms(mode), mode, rounding=self.rounding)

    def expectation(self, result, row: int, mode: str, where: str) -> Expected:
        return expectation(result, self.outputs, self.geometry, row, mode, where,
                           self.group.semantics)


def _run_group(program: _Program, regs: list[dict[str, Register]], mode: str
               ) -> list[Expected]:
    group = program.group
    names = f"{group.family}"
    batched = not program.geometry and not group.pipeline and len(regs) > 1
    if batched:
        keys = sorted(regs[0])
        if all(sorted(r) == keys for r in regs):
            inputs = {k: _stack([r[k] for r in regs], mode) for k in keys}
            try:
                result = program.run(inputs, mode)
            except GpuIsaError:
                pass  # some case hangs or faults: run them one by one below
            else:
                return [program.expectation(result, k, mode, names) for k in range(len(regs))]
    out = []
    for k, r in enumerate(regs):
        inputs = {name: register_values(reg, mode) for name, reg in r.items()}
        try:
            result = program.run(inputs, mode)
        except GpuIsaError as error:
            failed = failure(error)
            if failed is None:
                raise GenerationError(f"catalog group {names}: {error}") from None
            out.append(failed)
            continue
        last = len(result.steps) - 1 if (program.geometry or group.pipeline) else 0
        out.append(program.expectation(result, last, mode, f"{names}/{group.specs[k].name}"))
    return out


def _stack(registers: list[Register], mode: str) -> object:
    if mode == "f24":
        return F24Bits(np.array([r.f24[0] for r in registers], dtype=np.int64))
    return np.array([r.f32[0] for r in registers], dtype=np.uint32).view(np.float32)


def _unknowns(spec: Spec, program: _Program, expected: dict[str, Expected],
              rounded: bool) -> tuple[str, ...]:
    found = list(spec.unknowns)
    if rounded or program.uniforms_rounded:
        found.append(CONVERSION)
    if spec.provenance.kind not in (HARDWARE, SEED) and _rounds(expected):
        found.append(ROUNDING)
        if _SUMMING.search(program.group.source):
            found.append(SUMMATION)
    if spec.provenance.kind == MODEL and _SPECIAL.search(program.group.source):
        found.append(SPECIAL)
    return tuple(dict.fromkeys(found))


def _rounds(expected: dict[str, Expected]) -> bool:
    """True if some float32-mode result is finite and not a float24 value while the
    float24 result is nonzero: the float24 result then depends on the rounding rule."""
    a, b = expected["f24"], expected["f32"]
    pairs = [(x, y) for (_, xs), (_, ys) in zip(a.outputs, b.outputs, strict=True)
             for x, y in zip(xs, ys, strict=True)]
    for va, vb in zip(a.vertices, b.vertices, strict=False):
        pairs += [(x, y) for xs, ys in zip(va, vb, strict=True)
                  for x, y in zip(xs, ys, strict=True)]
    for x, y in pairs:
        finite = (y >> 23) & 0xFF != 0xFF
        if finite and exact_f24(y) is None and x & 0x7FFFFF:
            return True
    return False


def _converted(group: Group, rounding: str) -> tuple[list[dict[str, Register]], list[bool]]:
    """Each case's inputs as registers (f24 patterns rounded by ``rounding``), and
    whether some input's f24 pattern is a rounded conversion."""
    regs, rounded = [], []
    for spec in group.specs:
        converted = {}
        r_any = False
        for name, rows in spec.inputs.items():
            converted[name], r = register(name, rows, rounding)
            r_any |= r
        regs.append(converted)
        rounded.append(r_any)
    return regs, rounded


def build(groups: Iterable[Group], progress: Callable[[int], None] | None = None,
          rounding: str = DEFAULT_ROUNDING) -> Iterator[Case]:
    """The cases of ``groups``, in order; their f24 patterns of values given as numbers
    and their f24 expectations rounded by ``rounding``.  A case whose f24 expectation
    the other rounding changes is tagged :data:`ROUNDING_DEPENDENT`."""
    seen: set[str] = set()
    other = next(mode for mode in ROUNDING_MODES if mode != rounding)
    for group in groups:
        program = _Program(group, rounding)
        regs, rounded = _converted(group, rounding)
        results = {mode: _run_group(program, regs, mode) for mode in MODES}
        otherwise = _run_group(_Program(group, other), _converted(group, other)[0], "f24")
        for k, spec in enumerate(group.specs):
            ident = f"{group.family}/{spec.name}"
            if ident in seen:
                raise GenerationError(f"duplicate case id {ident}")
            seen.add(ident)
            expected = {mode: results[mode][k] for mode in MODES}
            record = program.shbin.entries[program.dvle]
            dependent = (ROUNDING_DEPENDENT,) if otherwise[k] != expected["f24"] else ()
            both = {rounding: expected["f24"], other: otherwise[k]}
            yield Case(
                id=ident, tags=tuple(dict.fromkeys(group.tags + spec.tags + program.op_tags
                                                   + dependent)),
                provenance=_provenance(spec.provenance, rounding),
                unknowns=_unknowns(spec, program, expected, rounded[k]),
                note=spec.note, source=group.source, shbin=program.bytes,
                code=program.shbin.program.code, opdescs=program.shbin.program.opdescs,
                dvle=program.dvle, entry=record.main_offset, geometry=program.geometry,
                pipeline=group.pipeline,
                inputs=tuple(regs[k][n] for n in sorted(regs[k], key=_reg_order)),
                float_uniforms=tuple(program.float_uniforms),
                int_uniforms=tuple(program.int_uniforms), bool_uniforms=program.bools,
                cmp=group.cmp, address=group.address, expected=expected,
                f24_by_rounding=tuple((m, both[m]) for m in ROUNDING_MODES) if dependent else ())
        if progress is not None:
            progress(len(group.specs))


def _provenance(provenance: Provenance, rounding: str) -> Provenance:
    """A case's provenance in a suite made with ``rounding``: the choice of the rounding
    cases is that rounding (the catalog names the default's)."""
    if provenance.choice == ROUNDING_CHOICES[DEFAULT_ROUNDING]:
        return Provenance(provenance.kind, provenance.source, ROUNDING_CHOICES[rounding])
    return provenance


def _reg_order(name: str) -> tuple[str, int]:
    return name[0], int(name[1:])
