"""One fuzzing program as a conformance case: a random vertex shader of the generator,
one invocation's inputs and every uniform, with gpuisa's expectation in both precision
modes, so that it travels through the adapter protocol like a case of the suite and a
finding is a case ready to add to it."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from ...errors import GpuIsaError
from ..disasm import disassemble
from ..program import Program
from ..shbin import Dvle, OutputEntry, OutputSemantic, Shbin
from ..vectors.generate import register
from ..vectors.model import MODEL, MODES, Case, Expected, Provenance, Register
from ..vectors.replay import rerun
from .generator import Generator, input_rows, random_uniforms

#: The output registers a fuzzing case compares, one semantic each (the output map gives
#: every semantic once); the generator writes o0-o15, so the others are not observed.
OBSERVED = (OutputSemantic.POSITION, OutputSemantic.NORMALQUAT, OutputSemantic.COLOR,
            OutputSemantic.TEXCOORD0, OutputSemantic.TEXCOORD0W, OutputSemantic.TEXCOORD1,
            OutputSemantic.TEXCOORD2, OutputSemantic.VIEW)
#: What a case expects before gpuisa ran it: the observed registers, for their names.
NO_EXPECTATION = Expected("ok", tuple((f"o{n}", (0, 0, 0, 0)) for n in range(len(OBSERVED))),
                          (False, False), (0, 0, 0))


def program_seed(campaign: int, index: int) -> list[int]:
    """The random-number seed of program ``index`` of the campaign of seed ``campaign``:
    a function of both alone, so that any program is made again without the others."""
    return [0x70C4, campaign, index]


def fuzz_case(campaign: int, index: int, modes: Sequence[str] = MODES) -> Case | None:
    """Program ``index`` of the campaign, with gpuisa's expectations in ``modes``; None
    when gpuisa refuses it as input (a read of a register no input gives, which the generator makes
    now and then on purpose)."""
    rng = np.random.default_rng(program_seed(campaign, index))
    program = Generator(rng, False, "mixed").program()
    rows = input_rows(rng, "f32", bool(rng.random() < 0.6))
    uniforms, _ = random_uniforms(rng, bool(rng.random() < 0.3))
    floats = np.concatenate([np.asarray(v, dtype=np.float32).reshape(-1, 4)
                             for k, v in uniforms.items() if k in ("low", "high")])
    row = int(rng.integers(0, len(next(iter(rows.values())))))
    inputs = tuple(register(name, [_row(value, row)])[0] for name, value in rows.items())
    case = Case(
        id=f"fuzz/{campaign}/{index}", tags=("random", "fuzz"),
        provenance=Provenance(MODEL, f"pica fuzz --seed {campaign}, program {index}"),
        unknowns=(), note="", source="", shbin=b"", code=tuple(program.code),
        opdescs=tuple(program.opdescs), dvle=0, entry=0, geometry=False, pipeline="",
        inputs=inputs,
        float_uniforms=tuple(register(f"c{n}", [tuple(float(v) for v in floats[n])])[0]
                             for n in range(len(floats))),
        int_uniforms=tuple((f"i{n}", tuple(uniforms[f"i{n}"])) for n in range(4)),
        bool_uniforms=sum(int(uniforms[f"b{n}"]) << n for n in range(16)),
        cmp=(bool(rng.integers(0, 2)), bool(rng.integers(0, 2))), address=(0, 0, 0),
        expected={mode: NO_EXPECTATION for mode in MODES})
    return with_program(case, case.code, modes=modes)


def _row(value: object, row: int) -> tuple[float, float, float, float]:
    return tuple(float(v) for v in np.asarray(value, dtype=np.float32)[row])  # type: ignore[return-value]


def with_program(case: Case, code: tuple[int, ...], inputs: tuple[Register, ...] | None = None,
                 modes: Sequence[str] = MODES) -> Case | None:
    """``case`` with other code words (and inputs): its SHBIN, disassembly and gpuisa's
    expectations in ``modes`` made anew (a campaign compares one mode; a finding has
    both); None if gpuisa refuses it as input."""
    dvle = Dvle(main_offset=0, endmain_offset=len(code),
                outputs=tuple(OutputEntry(s, n) for n, s in enumerate(OBSERVED)))
    shbin = Shbin(Program(list(code), list(case.opdescs)), (dvle,))
    changed = dataclasses.replace(case, code=code, shbin=shbin.to_bytes(),
                                  source=disassemble(shbin),
                                  inputs=case.inputs if inputs is None else inputs,
                                  expected={mode: NO_EXPECTATION for mode in MODES})
    expected = dict(changed.expected)
    for mode in modes:
        try:
            expected[mode] = rerun(changed, mode)
        except GpuIsaError:
            return None
    return dataclasses.replace(changed, expected=expected)

