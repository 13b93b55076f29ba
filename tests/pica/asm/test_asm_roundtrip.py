"""``pica disasm`` output assembles back to the identical SHBIN (gpuisa issue 3, item 5),
for hand-written sources covering every directive.  The random-program properties are in
tests/pica/test_roundtrip.py."""

import pytest
from test_asm_dvle import QUICK_REFERENCE
from test_asm_linking import GEOMETRY, LIBRARY, VERTEX, shader

from gpuisa.pica.asm import assemble
from gpuisa.pica.disasm import disassemble

EVERYTHING = """\
.fvec mvp[4], tint, obj$color
.ivec loopcfg
.bool flags[2], single, _private
.constf k(0.0, 1.0, -1.0, 0.5)
.consti kl(3, 0, 1, 0)
.constfa tab[3]
.constfa (1.0, 2.0, 3.0, 4.0)
.constfa (5.0, 6.0, 7.0, 8.0)
.end
.alias ones k.yyyy
.in pos
.in nrm v3
.out opos position
.out oclr color
.out otc texcoord0.xy
.out - texcoord1 o2.zw
.out ov view o3.xyz
.setf c10(1, 2, 3, 4)
.seti i3(1, 2, 3, 4)
.setb b5 true
.proc helper
    nop
.end
.proc main
    mov r0, pos
    mova a0.xy, r0
    mov r1, mvp[a0.x+1]
    for i0
        add r2, c0[aL], r2
        breakc cmp.x
    .end
    cmp r0, eq, lt, r1
    ifc cmp.x && !cmp.y
        mul r3, r1, r2
    .else
        mad r3, r1, c1, r2
        mad r4, v1, r2, c3
    .end
    ifu b0
        call helper
    .end
    callc cmp.x || cmp.y, helper
    callu b1, helper
    jmpu !b2, skip
    dph r4, r1, c5
    sge r4, v3, c6
    slt r4, c6, r1
    dst r5, r1, r2
    rcp r6.x, r1.w
    rsq r6.y, r1
    ex2 r6, -r1.x
    lg2 r6, r1.x
    litp r7, r1
    flr r7, r1
    max r8, c0, r1
    min r8, r1, r1
    dp3 r9, c0, r1
skip:
    mov opos, r0
    mov oclr, tint
    mov otc, k
    mov o2.zw, ones
    mov ov, obj$color
    end
.end
"""

GEOMETRY_MODES = [
    ".gsh fixed c8 c4 3\n.fvec m[2]\n.bool f\n.constf k(1, 2, 3, 4)\n.out p position\n"
    ".out - dummy o3\n.proc main\n    setemit 0, prim inv\n    mov p, c8\n    emit\n    end\n"
    ".end\n",
    ".gsh variable c20 5\n.out p position\n.proc main\n    setemit 1\n    emit\n    end\n.end\n",
    ".gsh\n.fvec a\n.proc main\n    setemit 2, prim\n    emit\n    end\n.end\n",
]

SOURCES = {
    "quick-reference": [("a.pica", QUICK_REFERENCE)],
    "vertex+geometry": [("v.pica", VERTEX), ("g.pica", GEOMETRY)],
    "library": [("lib.pica", LIBRARY), ("a.pica", shader("amain", ".fvec tint\n")),
                ("b.pica", shader("bmain", ".bool lit\n.fvec fog\n"))],
    "everything": [("all.pica", EVERYTHING)],
    **{f"geometry-{i}": [("g.pica", text)] for i, text in enumerate(GEOMETRY_MODES)},
    "no-nop": [("n.pica", ".proc main\n    ifc cmp.x\n    .end\n    call f\n.end\n"
                          ".proc f\n    end\n.end\n")],
}


@pytest.mark.parametrize("name", list(SOURCES))
def test_disassembly_assembles_back_identically(name):
    pad = name != "no-nop"
    first = assemble(SOURCES[name], pad_nops=pad).to_bytes()
    text = disassemble(first)
    assert assemble(text).to_bytes() == first, text
