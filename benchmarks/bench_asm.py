"""Assembler speed: a 500-line vertex shader must assemble in under 0.2 s.

Run: ``python benchmarks/bench_asm.py`` (prints the best time of several runs and exits
with status 1 if it exceeds the budget).  Not part of the test suite: timings depend on
the machine.
"""

from __future__ import annotations

import sys
import time

from gpuisa.pica.asm import assemble_with_warnings

BUDGET_SECONDS = 0.2


def shader(lines: int = 500) -> str:
    """A vertex shader of about ``lines`` lines using most instruction kinds, relative
    addressing, loops, conditionals, procedures, uniforms and constants."""
    head = [
        "; benchmark shader",
        ".fvec mvp[4], lights[8], tint",
        ".ivec loop",
        ".bool use_light",
        ".constf k(0.0, 1.0, 0.5, 2.0)",
        ".constfa table[4]",
        ".constfa (1.0, 2.0, 3.0, 4.0)",
        ".end",
        ".alias ones k.yyyy",
        ".in pos",
        ".in nrm",
        ".out opos position",
        ".out oclr color",
        ".proc helper",
        "    dp3 r10, c0, r1",
        "    rsq r10, r10.x",
        "    mul r1, r10, r1",
        ".end",
        ".proc main",
    ]
    body = [
        "    mov r0, pos",
        "    dp4 r1.x, mvp[0], r0",
        "    dp4 r1.y, mvp[1], r0",
        "    mad r2, r1, c1, r0",
        "    mova a0.x, r1.x",
        "    add r3, lights[a0.x+1], r2",
        "    cmp r3, lt, ge, r2",
        "    ifc cmp.x && !cmp.y",
        "        mul r4.xyz, r3, r1",
        "    .else",
        "        max r4, ones, r3",
        "    .end",
        "    for loop",
        "        add r5, table[aL], r5",
        "    .end",
        "    callu use_light, helper",
        "    sge r6, r1, c3",
        "    flr r7.xy, -r6.yxzw",
    ]
    out = list(head)
    while len(out) + len(body) + 4 < lines:
        out += body
    out += ["    mov opos, r1", "    mov oclr, tint", "    end", ".end"]
    return "\n".join(out) + "\n"


def main() -> int:
    text = shader()
    count = text.count("\n")
    best = float("inf")
    for _ in range(7):
        start = time.perf_counter()
        assemble_with_warnings([("bench.v.pica", text)])
        best = min(best, time.perf_counter() - start)
    print(f"{count} lines assembled in {best * 1000:.1f} ms "
          f"(budget {BUDGET_SECONDS * 1000:.0f} ms)")
    return 0 if best < BUDGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
