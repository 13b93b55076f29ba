"""Control flow (3dbrew's Control Flow section: stacks, ring buffers, the check order and
priorities, JMP at a scope's end, the CALL four-pops bug, BREAK/BREAKC), geometry shaders
(SETEMIT/EMIT, winding, banking, each ``.gsh`` mode) and random straight-line programs."""

from __future__ import annotations

import random
from collections.abc import Iterator

from ..isa import BY_MNEMONIC
from .catalog_facts import splat
from .catalog_ops import BINARY, MASKS, REFERENCE, SWIZZLES, TERNARY, UNARY, _random_value
from .model import CHOICE, MODEL, SEED, Provenance
from .spec import Group, vs

FLOW = "3dbrew GPU/Shader Instruction Set, Control Flow"
#: Rows of v0 giving every (cmp.x, cmp.y) after ``cmp v0, eq, eq, c0`` with c0 = 1.0.
FLAG_ROWS = {"x0y0": (0.0, 0.0, 0.0, 0.0), "x1y0": (1.0, 0.0, 0.0, 0.0),
             "x0y1": (0.0, 1.0, 0.0, 0.0), "x1y1": (1.0, 1.0, 0.0, 0.0)}
_SET_FLAGS = "cmp c0, eq, eq, v0\n"
_CONDS = ("cmp.x", "!cmp.x", "cmp.y", "!cmp.y", "cmp.x && cmp.y", "cmp.x || cmp.y",
          "!cmp.x && cmp.y", "cmp.x || !cmp.y", "!cmp.x || !cmp.y")
#: c0 = 1.0, c1 = 2.0, c2 = 3.0, c3 = 4.0: values a program writes to tell paths apart.
#: i0 = 4 iterations for the loops the flag programs use.
_MARKS = {f"c{n}": splat(float(n + 1)) for n in range(4)} | {"i0": (3, 0, 1, 0)}


def _flag_group(family: str, body: str, tags: tuple[str, ...], source: str = FLOW,
                pad: bool = True, header: str = "", procs: str = "") -> Group:
    group = Group(family, vs(_SET_FLAGS + body, header) + procs, uniforms=_MARKS,
                  pad_nops=pad, tags=tags)
    for name, row in FLAG_ROWS.items():
        group.add(name, {"v0": [row]}, (), Provenance(SEED, source))
    return group


#: A procedure nobody calls, placed where a lost return or a skipped scope end lets the
#: PC run on: it marks o2 and ends the run.
_AFTER = "\n.proc after\n    mov o2, c3\n    end\n.end\n"


def _proc(name: str, body: str) -> str:
    lines = "\n".join(f"    {line}" for line in body.strip().splitlines())
    return f".proc {name}\n{lines}\n.end\n"


def flow_groups() -> Iterator[Group]:
    for k, cond in enumerate(_CONDS):
        yield _flag_group(f"flow/ifc/cond{k}", f"ifc {cond}\n    mov o0, c1\n.else\n"
                          "    mov o0, c2\n.end\nmov o1, c3", ("flow:ifc",))
        yield _flag_group(f"flow/jmpc/cond{k}", f"jmpc {cond}, skip\nmov o0, c1\nskip:\n"
                          "mov o1, c2", ("flow:jmpc",))
        yield _flag_group(f"flow/callc/cond{k}", f"callc {cond}, sub\nmov o1, c2",
                          ("flow:callc",), procs=_proc("sub", "mov o0, c3"))
        yield _flag_group(f"flow/breakc/cond{k}", "mov r0, c0\nfor i0\n    add r0, c0, r0\n"
                          f"    breakc {cond}\n.end\nmov o0, r0", ("flow:breakc", "flow:loop"))
    for b in (False, True):
        for name, body, procs in (
                ("ifu", "ifu b3\n    mov o0, c1\n.else\n    mov o0, c2\n.end", ""),
                ("jmpu", "jmpu b3, skip\nmov o0, c1\nskip:\nmov o1, c2", ""),
                ("jmpu-negated", "jmpu !b3, skip\nmov o0, c1\nskip:\nmov o1, c2", ""),
                ("callu", "callu b3, sub\nmov o1, c2", _proc("sub", "mov o0, c3"))):
            group = Group(f"flow/{name}/b3-{str(b).lower()}", vs(body) + procs,
                          uniforms=_MARKS | {"b3": b}, tags=(f"flow:{name.split('-')[0]}",))
            group.add("run", {"v0": [splat(0.0)]}, (), Provenance(SEED, FLOW))
            yield group
    yield from _loops()
    yield from _quirks()


def _loop_group(family: str, body: str, i0: tuple[int, int, int, int], tags: tuple[str, ...],
                source: str = FLOW, pad: bool = True, i1=(1, 0, 1, 0)) -> Group:
    uniforms = {f"c{n}": splat(float(n)) for n in range(96)} | {"i0": i0, "i1": i1}
    group = Group(family, vs(body), uniforms=uniforms, pad_nops=pad, tags=tags)
    group.add("run", {"v0": [splat(1.0)]}, (), Provenance(SEED, source))
    return group


def _loops() -> Iterator[Group]:
    body = "mov r0, c0\nfor i0\n    add r0, c1[aL], r0\n.end\nmov o0, r0\nmova a0.x, c0"
    for x, y, z in ((0, 0, 1), (3, 2, 1), (4, 10, 5), (7, 1, 2), (255, 0, 0), (2, 90, 3),
                    (5, 120, 2), (1, 250, 3)):
        yield _loop_group(f"flow/loop/x{x}-y{y}-z{z}", body, (x, y, z, 0),
                          ("flow:loop", "form:relative", "form:index-aL"))
    nested = ("mov r0, c0\nfor i0\n    for i1\n        add r0, c1[aL], r0\n    .end\n"
              "    add r0, c2[aL], r0\n.end\nmov o0, r0")
    yield _loop_group("flow/loop/nested-restores-aL", nested, (2, 3, 4, 0),
                      ("flow:loop", "quirk:aL-restore"), i1=(1, 20, 1, 0))
    shared = "mov r0, c0\nfor i0\n    for i1\n        add r0, c1, r0\n    .end\n.end\nmov o0, r0"
    yield _loop_group("flow/loop/nested-share-last-instruction", shared, (2, 0, 1, 0),
                      ("flow:loop", "quirk:nested-loops-share-end"),
                      f"{FLOW}; PabloMK7/citra issue #86 (pica-emulation.md#flow-check)", pad=False,
                      i1=(1, 0, 1, 0))
    brk = ("mov r0, c0\nfor i0\n    add r0, c1, r0\n    ifu b0\n        break\n    .end\n"
           "    nop\n.end\nmov o0, r0\nmov o1, c1[aL]")
    yield _loop_group("flow/loop/break-inside-if", brk, (5, 0, 1, 0),
                      ("flow:break", "quirk:break-leaves-if-entry"))
    overflow = "mov r0, c0\n" + "".join(f"{'    ' * k}for i{k % 2}\n" for k in range(5)) + \
        "    " * 5 + "add r0, c1, r0\n" + "".join(
            f"{'    ' * k}    nop\n{'    ' * k}.end\n" for k in reversed(range(5))) + "mov o0, r0"
    yield _loop_group("flow/loop/stack-ring-overflow", overflow, (1, 0, 1, 0),
                      ("flow:loop", "quirk:loop-stack-overflow"))


def _quirks() -> Iterator[Group]:
    flag = Provenance(SEED, FLOW)
    # IF stack: 9 nested true IFs; the oldest entry is discarded, so the outermost IF's
    # end is not seen and its else part runs too.
    depth = 9
    text = "".join(f"{'    ' * k}ifu b0\n{'    ' * k}    add r0, c0, r0\n" for k in range(depth))
    for k in reversed(range(depth)):
        text += f"{'    ' * k}    nop\n{'    ' * k}.else\n{'    ' * k}    add r1, c0, r1\n" \
                f"{'    ' * k}.end\n"
    group = Group("flow/quirk/if-stack-ring-overflow", vs(text + "mov o0, r0\nmov o1, r1"),
                  uniforms=_MARKS | {"b0": True}, tags=("flow:ifu", "quirk:if-stack-overflow"))
    group.add("nine-nested", {"v0": [splat(0.0)]}, (), flag)
    yield group
    # CALL stack: five nested calls; the first return address is lost.
    # p0 is placed last, before a procedure that ends the run: where its lost return
    # leaves the PC.
    procs = "".join(_proc(f"p{k}", f"add r0, c0, r0\ncall p{k + 1}\nadd r1, c0, r1")
                    for k in (1, 2, 3, 4, 0)) + _proc("p5", "add r0, c0, r0") + _AFTER
    group = Group("flow/quirk/call-stack-ring-overflow",
                  vs("call p0\nmov o0, r0\nmov o1, r1") + procs, uniforms=_MARKS,
                  tags=("flow:call", "quirk:call-stack-overflow"))
    group.add("five-nested", {"v0": [splat(0.0)]}, (), flag)
    yield group
    # The CALL four-pops bug: four procedures each ending in a call to the next; all four
    # return on the same instruction and the fourth update of the PC is lost.
    procs = "".join(_proc(f"t{k}", f"add r0, c0, r0\ncall t{k + 1}") for k in range(3)) + \
        _proc("t3", "add r1, c0, r1") + _AFTER
    group = Group("flow/quirk/call-four-pops", vs("call t0\nmov o0, r0\nmov o1, r1") + procs,
                  uniforms=_MARKS, pad_nops=False, tags=("flow:call", "quirk:call-four-pops"))
    group.add("tail-calls", {"v0": [splat(0.0)]}, (), flag)
    yield group
    procs = "".join(_proc(f"t{k}", f"add r0, c0, r0\ncall t{k + 1}") for k in range(2)) + \
        _proc("t2", "add r1, c0, r1")
    group = Group("flow/quirk/call-three-pops", vs("call t0\nmov o0, r0\nmov o1, r1") + procs,
                  uniforms=_MARKS, pad_nops=False, tags=("flow:call", "quirk:call-pop-chain"))
    group.add("tail-calls", {"v0": [splat(0.0)]}, (), flag)
    yield group
    # JMP as the last instruction of an IF's true part: the IF pop wins.
    yield _flag_group("flow/quirk/jmpc-at-if-end", "ifu b0\n    mov o0, c1\n"
                      "    jmpc cmp.x, far\n.else\n    mov o0, c2\n.end\nmov o1, c3\nfar:\n"
                      "mov o2, c1", ("flow:jmpc", "quirk:jmp-at-scope-end"), pad=False)
    yield _flag_group("flow/quirk/jmpc-at-loop-end", "mov r0, c0\nfor i0\n    add r0, c0, r0\n"
                      "    jmpc cmp.x, far\n.end\nmov o1, c3\nfar:\nmov o0, r0",
                      ("flow:jmpc", "flow:loop", "quirk:jmp-at-scope-end"), pad=False)
    yield _flag_group("flow/quirk/jmpc-at-proc-end", "call sub\nmov o1, c3\nfar:\nmov o2, c1",
                      ("flow:jmpc", "flow:call", "quirk:jmp-at-scope-end"), pad=False,
                      procs=_proc("sub", "mov o0, c2\njmpc cmp.x, far") + _AFTER)
    # Priorities: an IF and a CALL ending on the same instruction (IF wins), a LOOP and an
    # IF (LOOP wins).
    yield _flag_group("flow/quirk/if-and-call-end-together", "call sub\nmov o1, c3",
                      ("flow:ifc", "flow:call", "quirk:stack-priority"), pad=False,
                      procs=_proc("sub", "ifc cmp.x\n    mov o0, c1\n.end") + _AFTER)
    yield _flag_group("flow/quirk/loop-and-if-end-together",
                      "mov r0, c0\nfor i0\n    ifc cmp.y\n        add r0, c0, r0\n    .end\n.end\n"
                      "mov o0, r0", ("flow:ifc", "flow:loop", "quirk:stack-priority"), pad=False)
    # END inside a procedure and inside an IF.
    yield _flag_group("flow/quirk/end-inside-if", "ifc cmp.x\n    mov o0, c1\n    end\n.end\n"
                      "mov o1, c2", ("flow:ifc", "flow:end"))
    # BREAK with no loop: the hardware hangs (3dbrew); gpuisa reports a hang.
    group = Group("flow/quirk/break-on-empty-loop-stack", vs("mov o0, c0\nbreak"),
                  uniforms=_MARKS, tags=("flow:break", "quirk:break-empty-stack"))
    group.add("hangs", {"v0": [splat(0.0)]}, (),
              Provenance(CHOICE, f"{FLOW}: BREAK on an empty LOOP stack hangs the GPU "
                         f"(pica-emulation.md#flow-check)", "the run ends with status hang"))
    yield group


_GS_OUT = ".out - position o0\n.out - color o1\n"


def geometry_groups() -> Iterator[Group]:
    source = "3dbrew SETEMIT/EMIT; pica-emulation.md#geometry"
    strip = "".join(f"    setemit {i % 3}{_flags(i)}\n    mov o0, v{i}\n    mov o1, c0\n"
                    "    emit\n" for i in range(6))
    group = Group("gs/strip-winding", f".gsh point c0\n{_GS_OUT}.proc main\n{strip}    end\n"
                  ".end\n", uniforms={"c0": splat(1.0)}, tags=("geometry",))
    group.add("six-vertices", {f"v{i}": [(float(i), 10.0 + i, 0.0, 1.0)] for i in range(6)},
              ("op:setemit", "op:emit", "quirk:winding"), Provenance(SEED, source))
    yield group
    reuse = (".gsh point c0\n.out - position o0\n.proc main\n    ifu b15\n"
             "        setemit 2, prim\n        mov o0, v0\n        emit\n    .else\n"
             "        setemit 0\n        mov o0, v0\n        emit\n        setemit 1\n"
             "        mov o0, v1\n        emit\n    .end\n    end\n.end\n")
    group = Group("gs/buffer-reuse-and-b15", reuse, uniforms={"b15": False},
                  tags=("geometry",))
    group.add("two-invocations", {"v0": [splat(1.0), splat(5.0)], "v1": [splat(2.0),
                                                                          splat(6.0)]},
              ("op:setemit", "op:emit", "quirk:b15", "quirk:buffer-not-cleared"),
              Provenance(MODEL, "pica-emulation.md#gs-input: b15 set after every invocation "
                                "(picasso manual; Azahar); buffer entries not cleared "
                                f"({source}); no public test program feeds these inputs"))
    yield group
    persist = (".gsh point c0\n.out - position o0\n.proc main\n    add r0, c0, r0\n"
               "    setemit 0\n    mov o0, r0\n    emit\n    end\n.end\n")
    group = Group("gs/registers-persist", persist, uniforms={"c0": splat(1.0)},
                  tags=("geometry",))
    group.add("three-invocations", {"v0": [splat(0.0)] * 3}, ("quirk:registers-persist",),
              Provenance(MODEL, "pica-emulation.md#initial-state: registers persist between "
                                "invocations on one unit, which geometry shaders rely on "
                                "(Citra PR #3787; no public test program feeds these "
                                "inputs)"))
    yield group
    yield from _pipelines()


def _flags(i: int) -> str:
    if i < 2:
        return ""
    return ", prim inv" if (i - 2) % 2 else ", prim"


def _pipelines() -> Iterator[Group]:
    vertex = ".out - position o0\n.proc main\n    mov o0, v0\n    end\n.end\n"
    modes = {
        "point": (".gsh point c0", "v0", "-v0", "v0.yxzw"),
        "fixed": (".gsh fixed c20 c8 3", "c8", "c9", "c10"),
        "variable": (".gsh variable c20 2", "c0", "c1", "c2"),
    }
    for mode, (directive, a, b, c) in modes.items():
        gs = (f"{directive}\n.entry gsmain\n.out - position o0\n.proc gsmain\n"
              f"    setemit 0\n    mov o0, {a}\n    emit\n    setemit 1\n    mov o0, {b}\n"
              f"    emit\n    setemit 2, prim\n"
              f"    mov o0, {c}\n    emit\n    end\n.end\n")
        group = Group(f"gs/pipeline-{mode}", f"{vertex}.unit geometry\n{gs}", pipeline=mode,
                      tags=("geometry", f"gsh:{mode}"))
        rows = [(float(k), float(k) + 0.5, 0.0, 1.0) for k in range(6)]
        group.add("six-vertices", {"v0": rows}, ("op:setemit", "op:emit"),
                  Provenance(CHOICE, "pica-emulation.md#gs-input input modes",
                             "Azahar geometry_pipeline.cpp's uniform layout"))
        yield group


_RANDOM_OPS = (*BINARY, *UNARY, *TERNARY)


def random_groups(count: int = 160, seed: int = 1465) -> Iterator[Group]:
    rng = random.Random(seed)
    for n in range(count):
        lines = [f"mov r{k}, v{k}" for k in range(4)]
        for _ in range(rng.randint(3, 10)):
            op = rng.choice(_RANDOM_OPS)
            arity = BY_MNEMONIC[op].sources
            sources = [_random_source(rng, k == 0 and op != "mad") for k in range(arity)]
            if op == "mad" and rng.random() < 0.5:
                sources[1] = f"c{rng.randint(0, 7)}"
            lines.append(f"{op} r{rng.randint(0, 5)}.{rng.choice((*MASKS, 'xyzw'))}, "
                         + ", ".join(sources))
        lines += [f"mov o{k}, r{rng.randint(0, 5)}" for k in range(3)]
        uniforms = {f"c{k}": tuple(_random_value(rng) for _ in range(4)) for k in range(8)}
        group = Group(f"random/p{n:03d}", vs("\n".join(lines)), uniforms=uniforms,
                      tags=("random",))
        for k in range(4):
            inputs = {f"v{j}": [tuple(_random_value(rng) for _ in range(4))] for j in range(4)}
            group.add(f"row{k}", inputs, (), REFERENCE)
        yield group


def _random_source(rng: random.Random, may_be_uniform: bool) -> str:
    neg = "-" if rng.random() < 0.3 else ""
    if may_be_uniform and rng.random() < 0.3:
        reg = f"c{rng.randint(0, 7)}"
    else:
        reg = f"r{rng.randint(0, 5)}"
    return f"{neg}{reg}.{rng.choice((*SWIZZLES, 'xyzw'))}"
