"""Every check of ``pica check``: stable identifier, severity, one-line title, and the
``--explain`` text giving the hardware reason and where that fact comes from.

Identifiers never change meaning: 0xx tool, 1xx outputs, 2xx registers and uniforms,
3xx control flow, 4xx instruction quirks, 5xx geometry shaders, 6xx limits and tables.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import InputError
from .findings import Severity


@dataclass(frozen=True, slots=True)
class CheckInfo:
    id: str
    severity: Severity
    title: str
    explain: str
    source: str
    #: Off unless asked for with ``--enable`` (style checks with frequent legitimate use).
    default: bool = True
    #: (findings, false positives) on :data:`CORPUS`.
    corpus: tuple[int, int] = (0, 0)


_W, _E, _N = Severity.WARNING, Severity.ERROR, Severity.NOTE

#: The real shaders each check's false-positive rate was measured on, every check enabled
#: (tests/pica/check/data/corpus.txt lists them, with every finding and its verdict).
CORPUS = ("12 public homebrew shaders (devkitPro's 3ds-examples, citro2d and citro3d; "
          "measured 2026-11-27)")

#: The check that carries the assembler's own warnings (`pica asm` prints them too).
ASSEMBLER_WARNINGS = "PICA001"

_CHECKS = (
    CheckInfo(ASSEMBLER_WARNINGS, _W, "assembler warning",
              "A warning of the assembler itself (destination swizzle order, duplicate input "
              "declaration, a constant that is not a number, a required padding NOP with -n).",
              "pica-assembly.md#messages (the warnings picasso prints)"),
    CheckInfo("PICA009", _N, "analysis stopped early",
              "Path exploration is bounded by a state limit and a time limit. When a program "
              "needs more, the path-based checks (1xx, 2xx reads, 3xx, PICA403, 5xx) are "
              "skipped for that entry point; the others still run. Raise the limits with "
              "--max-states / --max-seconds.",
              "gpuisa's path exploration (gpuisa.pica.analysis.explore)"),
    CheckInfo("PICA101", _W, "mapped output not written on some path",
              "An output component listed in the DVLE output table is left unwritten on some "
              "path to 'end' (to 'emit' in a geometry shader). Output registers are not reset "
              "between vertices, so the vertex gets whatever the previous one left (or, in a "
              "geometry shader, the value from two EMITs earlier: outputs are double banked). "
              "Emulators that clear outputs show a correct picture; the console does not.",
              "pica-emulation.md#initial-state (registers persist), "
              "pica-emulation.md#output-banks (output banking); "
              "a homebrew JS runtime's hardware report of garbage vertices"),
    CheckInfo("PICA102", _W, "output written but not mapped",
              "The program writes an output register component that no output-table entry "
              "of the DVLE maps: the value is discarded (the output map decides what leaves "
              "the shader). Usually a missing '.out' or a typo in the register.",
              "pica-emulation.md#output-map (output map); shbin-format.md#dvle-outputs"),
    CheckInfo("PICA103", _W, "output written twice on one path",
              "Writing the same output component more than once per invocation is reported "
              "to hang the GPU.",
              "pica-emulation.md#register-files (3dbrew)"),
    CheckInfo("PICA201", _W, "temporary read before it is written",
              "A temporary register component is read on some path before any write. "
              "Temporaries are not reset between invocations: the value is what the "
              "previous vertex left, which differs between the console and emulators. "
              "Reported once per register, at its first such read, with the others as "
              "related places; a stale component whose value reaches no output, condition "
              "flag or address register (the w of 'mul r5, half, r14' when only r5.xyz is "
              "used) is not reported.",
              "pica-emulation.md#initial-state (initial state: registers persist)",
              corpus=(1, 0)),
    CheckInfo("PICA202", _W, "address register read before it is written",
              "Relative addressing through a0.x / a0.y before a MOVA, or through aL outside "
              "any LOOP before one ran, uses the value left by an earlier invocation.",
              "pica-emulation.md#initial-state, pica-emulation.md#relative"),
    CheckInfo("PICA203", _W, "condition flag read before it is set",
              "A conditional instruction tests cmp.x / cmp.y before any CMP or LITP set "
              "them on some path; the flags persist between invocations.",
              "pica-emulation.md#register-files, pica-emulation.md#initial-state"),
    CheckInfo("PICA211", _W, "float uniform read but never set",
              "A float uniform register is read but neither declared in the DVLE uniform "
              "table nor given a value by its constant table, so nothing the loader knows "
              "ever sets it (Citra closed such a 'black lighting' report as impossible to "
              "fix). Registers below a variable/fixed-mode geometry shader's uniforms hold "
              "the vertex data and are not reported.",
              "shbin-format.md#dvle-constants, shbin-format.md#dvle-uniforms; "
              "pica-emulation.md#gs-input"),
    CheckInfo("PICA212", _W, "integer uniform used by LOOP has no value",
              "LOOP reads its count, start and step from an integer uniform that is neither "
              "declared nor set by a constant: the loop runs a stale number of times.",
              "pica-emulation.md#flow-instructions (LOOP reads i = (X, Y, Z))"),
    CheckInfo("PICA213", _W, "boolean uniform never declared",
              "IFU / CALLU / JMPU test a boolean uniform that is neither declared nor set "
              "by a constant (b15 of a geometry shader is set by the hardware and exempt).",
              "pica-emulation.md#register-files, pica-emulation.md#gs-input"),
    CheckInfo("PICA214", _W, "uniform declared in another file",
              "A procedure reads a uniform declared only in another file of a multi-file "
              "build. Each DVLE's uniform table lists only its own file's uniforms, so the "
              "application never sets it for this entry point (picasso #33: 'undefined "
              "behaviour').",
              "devkitPro/picasso issue #33; pica-assembly.md#allocation"),
    CheckInfo("PICA301", _W, "control-flow stack overflow",
              "The IF (8), CALL (4) and LOOP (4) stacks are ring buffers: pushing onto a "
              "full stack silently drops the oldest entry, so an outer scope never closes.",
              "pica-emulation.md#flow-stacks (3dbrew 'Control Flow')"),
    CheckInfo("PICA302", _E, "BREAK outside any LOOP",
              "BREAK, or a BREAKC whose condition holds, executed with an empty LOOP stack "
              "hangs the GPU.",
              "pica-emulation.md#flow-check (3dbrew)"),
    CheckInfo("PICA303", _W, "jump overridden by the end of a scope",
              "A JMPC/JMPU, an IF's jump to its else part, or a CALL that is the last "
              "instruction of an IF, CALL or LOOP scope is never taken: the stack pop after "
              "it has priority over the pending jump.",
              "pica-emulation.md#flow-check (consequences)"),
    CheckInfo("PICA304", _W, "two scopes end on the same instruction",
              "IF and LOOP pop at most one entry per instruction: when an enclosing IF or "
              "LOOP ends on the same instruction as the inner one, the outer one never sees "
              "its end (PabloMK7/citra #86). picasso's padding NOPs avoid this.",
              "pica-emulation.md#flow-check; pica-assembly.md#blocks"),
    CheckInfo("PICA305", _E, "entry point never executes 'end'",
              "No path of the entry point reaches 'end': the shader never finishes and the "
              "GPU hangs.",
              "picasso issue #34; pica-emulation.md#flow-instructions"),
    CheckInfo("PICA306", _W, "code can run past the entry point's end",
              "Some path leaves the entry procedure (or the program) without executing "
              "'end': the unit then runs whatever words follow.",
              "picasso issue #34 (the GPU hangs); pica-emulation.md#register-files"),
    CheckInfo("PICA401", _W, "scalar instruction ignores its source swizzle",
              "RCP, RSQ, EX2 and LG2 read only the first component of their source "
              "(after swizzle) and write that one result to every enabled component. A "
              "swizzle that puts a different component in a written lane (e.g. 'rcp r0, r1' "
              "or 'rsq r0.xy, r1.xy') suggests per-component evaluation the hardware does "
              "not do; write 'rcp r0.y, r1.y' or replicate the component. Not reported when "
              "the components read all hold one value: the source was last written, in "
              "straight-line code, by a dot product or scalar op to all of them (devkitPro's "
              "'dp3 r2, r2, r2' then 'rsq r2, r2').",
              "pica-emulation.md#scalar-units (hardware-confirmed)"),
    CheckInfo("PICA402", _N, "scalar result written to several components",
              "RCP, RSQ, EX2 or LG2 writes its single result to more than one component. "
              "This is legal (a broadcast) but often a destination mask wider than meant.",
              "pica-emulation.md#scalar-units", default=False, corpus=(4, 4)),
    CheckInfo("PICA403", _W, "two MOVA executed back to back",
              "Two consecutive MOVA instructions can freeze the GPU, also when a loop, IF or "
              "procedure return makes them run one after the other.",
              "picasso manual errata; pica-emulation.md#flr-mov-mova"),
    CheckInfo("PICA404", _E, "two different input registers read by one instruction",
              "An instruction reading two different v registers gets wrong data on the "
              "hardware (picasso rejects it in sources; a binary can still contain it).",
              "devkitPro/picasso issue #6"),
    CheckInfo("PICA405", _E, "instruction with no known function",
              "Opcodes 0x10, 0x11, 0x14-0x17 and 0x1C-0x1F have no known function.",
              "pica-emulation.md#unknown-opcodes"),
    CheckInfo("PICA501", _W, "EMIT before SETEMIT",
              "EMIT uses the vertex id and flags stored by the last SETEMIT; on this path no "
              "SETEMIT ran first, so it uses those of a previous invocation.",
              "pica-emulation.md#emit"),
    CheckInfo("PICA502", _W, "geometry shader never emits",
              "A geometry shader whose entry point can never reach EMIT produces no "
              "vertices.",
              "pica-emulation.md#emit"),
    CheckInfo("PICA503", _E, "geometry instruction in a vertex shader",
              "EMIT or SETEMIT in a vertex shader (a DVLE without '.gsh') is undefined.",
              "pica-emulation.md#emit"),
    CheckInfo("PICA504", _W, "geometry mode does not match the inputs read",
              "In variable and fixed mode the hardware delivers the vertices in float "
              "uniforms, not in v registers; reading v registers possibly reads nothing "
              "meaningful. Use '.gsh point' or read the uniform area.",
              "pica-emulation.md#gs-input; pica-assembly.md#gsh"),
    CheckInfo("PICA601", _E, "program too large",
              "A vertex shader holds at most 512 instructions (program memory 4096 words).",
              "pica-emulation.md#register-files (3dbrew: Ironfall debug info)"),
    CheckInfo("PICA602", _E, "too many operand descriptors",
              "Operand-descriptor memory holds 128 entries.",
              "pica-emulation.md#register-files; 3dbrew"),
    CheckInfo("PICA603", _E, "DVLE table over its limit",
              "More than 96 uniform or constant entries, more than 16 outputs, or a "
              "geometry shader output above o6.",
              "pica-assembly.md#directives, pica-assembly.md#uniform-table; 3dbrew 'Registers'"),
    CheckInfo("PICA604", _W, "DVLE without constants (libctru before December 2023)",
              "libctru's shaderInstanceInit left the float-uniform count uninitialised when a "
              "DVLE has no constant table, which breaks citro3d's uniform handling (and "
              "crashed on hardware, nihstro #20). This concerns the libctru releases made "
              "before the bug was reported and fixed in December 2023 (libctru #535, "
              "closed; 2.2.2 and earlier), so applications built with a current libctru "
              "are not affected and "
              "the check is off by default. Enable it for an older toolchain; add any "
              "'.constf' to silence it.",
              "devkitPro/libctru issue #535 (closed 2023-12); neobrain/nihstro issue #20",
              default=False),
)

#: Identifier -> check.
CHECKS: dict[str, CheckInfo] = {c.id: c for c in _CHECKS}


def lookup(check_id: str) -> CheckInfo:
    info = CHECKS.get(check_id.upper())
    if info is None:
        raise InputError(f"unknown check {check_id!r} (known: {', '.join(CHECKS)})")
    return info


def explain(check_id: str) -> str:
    """The ``--explain`` text of a check."""
    info = lookup(check_id)
    state = "" if info.default else " (off by default: --enable " + info.id + ")"
    pages = ("(<page>.md#<anchor>: a section of gpuisa's reference pages, docs/reference/ in "
             "its source tree)\n") if ".md#" in info.source else ""
    found, false = info.corpus
    rate = (f"False positives: {false} of {found} finding{'s' if found != 1 else ''} on "
            f"{CORPUS}." if found else
            f"False positives: not measured, no findings on {CORPUS}.")
    return (f"{info.id} ({info.severity.label}{state}): {info.title}\n\n{info.explain}\n\n"
            f"{rate}\n\nSource: {info.source}\n{pages}")
