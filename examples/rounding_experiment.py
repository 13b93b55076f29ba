"""The predictions of docs/rounding-experiment.md: small programs whose float24 results
differ between the two candidate roundings of the PICA200 (to nearest even, gpuisa's
default, and toward zero), each run by gpuisa's engine in both.

    python examples/rounding_experiment.py            # print the page's table
    python examples/rounding_experiment.py --write    # write it into the page

tests/test_rounding_experiment.py runs this again and compares it with the page, and
derives two rows by hand with exact rational arithmetic."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gpuisa import pica
from gpuisa.floats import ROUNDING_MODES
from gpuisa.pica.vectors.model import exact_f24

PAGE = Path(__file__).resolve().parents[1] / "docs" / "rounding-experiment.md"
BEGIN, END = "<!-- predictions: begin -->", "<!-- predictions: end -->"
HERE = Path(__file__).resolve().parent

#: Exact float24 patterns of the values the programs read (sign, 7-bit exponent biased by
#: 63, 16 mantissa bits): uploaded as such, no conversion rounds them.
ONE_PLUS_ULP = 0x3F0001   # 1 + 2^-16
ONE_75 = 0x3FC000         # 1.75
FIVE = 0x414000           # 5 = 1.25 * 2^2
ZERO = 0x000000


@dataclass(frozen=True, slots=True)
class Experiment:
    name: str
    source: str
    uniforms: dict[str, int]     # register -> float24 pattern of x (the others 0)
    output: str                  # what is compared: register.component
    note: str


MUL = """\
.out o0 position
.proc main
    mov r0, c1
    mul o0, c0, r0      ; 1.75 * (1 + 2^-16) = 1.75 + 1.75 ulp: 0.75 ulp to round
    end
.end
"""

RCP = """\
.out o0 position
.proc main
    rcp o0, c0          ; 1 / 5 = 0.2 = 1.1001 1001 1001 1001 | 1001... * 2^-3
    end
.end
"""

CHAIN = """\
.out o0 position
.proc main
    mov r0, c0
    rcp r0, r0          ; 1/5
    rsq r0, r0          ; sqrt(5)
    rcp r0, r0
    rsq r0, r0
    rcp r0, r0
    rsq r0, r0
    rcp r0, r0
    rsq o0, r0
    end
.end
"""

LCG = """\
.constf k(97.3125, 0.125, 0.0, 0.0)   ; exact float24 values: no conversion rounds them
.alias seed c0
.ivec count
.out o0 position
.proc main
    mov r0, seed
    mov r2, k
    for count
        mad r0.x, r0.x, r2.x, r2.y     ; x = fract(97.3125 x + 0.125), 16 times
        flr r1.x, r0.x
        add r0.x, r0.x, -r1.x
    .end
    mov o0, r0
    end
.end
"""

EXPERIMENTS = (
    Experiment("mul", MUL, {"c0": ONE_75, "c1": ONE_PLUS_ULP}, "o0.x",
               "one MUL of two exact values; nothing else is rounded"),
    Experiment("rcp", RCP, {"c0": FIVE}, "o0.x",
               "one RCP; also depends on RCP's precision (OPEN)"),
    Experiment("rcp-rsq-chain", CHAIN, {"c0": FIVE}, "o0.x",
               "eight alternating RCP/RSQ; also depends on their precision (OPEN)"),
    Experiment("lcg", LCG, {"c0": 0x3E5555}, "o0.x",
               "a hash x = fract(97.3125 x + 0.125) iterated 16 times by a LOOP, from "
               "x = 0x3E5555 (about 0.667): each step magnifies the last bit"),
)


def _f24(value: float) -> int:
    bits = int(np.float32(value).view(np.uint32))
    pattern = exact_f24(bits)
    if pattern is None:
        raise AssertionError(f"{value!r} is not a float24 value")
    return pattern


def predict(experiment: Experiment, rounding: str) -> int:
    """The float24 pattern of the experiment's output under ``rounding``."""
    shbin = pica.assemble([(f"{experiment.name}.v.pica", experiment.source)])
    uniforms: dict[str, object] = {name: pica.F24Bits(np.array([bits, 0, 0, 0]))
                                   for name, bits in experiment.uniforms.items()}
    uniforms["i0"] = [15, 0, 1, 0]  # LOOP: 16 iterations
    out = pica.run(shbin, {}, uniforms=uniforms, precision="f24", rounding=rounding,
                   engine="reference")
    register, component = experiment.output.split(".")
    return _f24(out.outputs[register][0]["xyzw".index(component)])


def particles(seeds: range, rounding: str) -> list[tuple[int, int]]:
    """examples/particles.g.pica (its constants converted by ``rounding``, as gpuisa
    loads them): the float24 patterns of the colour's x and y (the two hashes) of the
    first vertex of each particle, at time 0."""
    sources = [(p.name, p.read_text()) for p in (HERE / "particles.v.pica",
                                                 HERE / "particles.g.pica")]
    shbin = pica.assemble(sources)
    seeds_in = np.array([[s, 0, 0, 1] for s in seeds], dtype=np.float32)
    out = pica.run_pipeline(shbin, {"seed": seeds_in}, gs_uniforms={"time": [0, 0, 0, 0]},
                            precision="f24", rounding=rounding, engine="reference")
    colours = out.vertices["o1"]  # oclr: the second output of particles.g.pica
    return [(_f24(colours[4 * n][0]), _f24(colours[4 * n][1])) for n in range(len(seeds))]


def table() -> str:
    """The page's table, in Markdown."""
    rows = ["| experiment | output | nearest-even | truncate | note |", "|---|---|---|---|---|"]
    for experiment in EXPERIMENTS:
        near, trunc = (predict(experiment, mode) for mode in ROUNDING_MODES)
        rows.append(f"| `{experiment.name}` | {experiment.output} | `0x{near:06X}` | "
                    f"`0x{trunc:06X}` | {experiment.note} |")
    seeds = range(1, 9)
    both = [particles(seeds, mode) for mode in ROUNDING_MODES]
    for n, seed in enumerate(seeds):
        (nx, ny), (tx, ty) = both[0][n], both[1][n]
        if (nx, ny) == (tx, ty):
            continue  # seeds the rounding does not change
        rows.append(f"| `particles` seed {seed} | colour x, y | `0x{nx:06X}`, `0x{ny:06X}` | "
                    f"`0x{tx:06X}`, `0x{ty:06X}` | examples/particles.g.pica at time 0 |")
    return "\n".join(rows) + "\n"


def write(page: Path = PAGE) -> None:
    text = page.read_text(encoding="utf-8")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    page.write_text(f"{head}{BEGIN}\n{table()}{END}{tail}", encoding="utf-8")


if __name__ == "__main__":
    if "--write" in sys.argv[1:]:
        write()
    else:
        sys.stdout.write(table())
