"""The flow events a cause names, on programs whose stack behaviour is worked out by hand
from pica-emulation.md#flow-check and #flow-stacks."""

from __future__ import annotations

import dataclasses

import pytest

from gpuisa.pica import assemble
from gpuisa.pica.fuzz.causes import flow_events
from gpuisa.pica.fuzz.programs import fuzz_case, with_program


def case_of(body: str, ints=((0, 0, 1, 0),) * 4, bools: int = 0):
    """A fuzzing case (program 0 of seed 0 for its registers) running ``body``."""
    source = f".out o0 position\n.proc main\n{body}\n    end\n.end\n"
    program = assemble([("t.v.pica", source)]).program
    template = dataclasses.replace(
        fuzz_case(0, 0), opdescs=tuple(program.opdescs), bool_uniforms=bools,
        int_uniforms=tuple((f"i{n}", tuple(v)) for n, v in enumerate(ints)))
    return with_program(template, tuple(program.code))


IF = "    ifu b0\n        mov r0, r1\n    .else\n        mov r0, r2\n    .end\n    mov o0, r0"
NESTED = ("    for i0\n        for i1\n            mov r0, r1\n        .end\n    .end\n"
          "    mov o0, r0")


@pytest.mark.parametrize("body,ints,bools,events", [
    # IFU taken: the true branch ends at the else part's start, where the entry pops
    (IF, ((0, 0, 1, 0),) * 4, 1, ["IF-stack pop"]),
    # not taken: a jump to the else part, nothing pushed, nothing popped
    (IF, ((0, 0, 1, 0),) * 4, 0, []),
    # two iterations of each loop: the inner one iterates, exits (aL restored: the outer
    # loop remains), then the outer one iterates and exits (aL kept)
    (NESTED, ((1, 0, 1, 0),) * 4, 0,
     ["LOOP iteration (aL += step)", "LOOP exit", "aL restore"]),
])
def test_flow_events(body, ints, bools, events):
    assert flow_events(case_of(body, ints, bools), "f32") == events


def test_a_fifth_nested_loop_drops_the_oldest_entry():
    body = "".join("    " * (n + 1) + "for i0\n" for n in range(5)) + "        mov r0, r1\n"
    body += "".join("    " * (n + 1) + ".end\n" for n in reversed(range(5)))
    events = flow_events(case_of(body.rstrip("\n")), "f32")
    assert "LOOP stack overflow (oldest entry dropped)" in events
    assert "LOOP stack overflow (oldest entry dropped)" not in flow_events(
        case_of(NESTED), "f32")


def test_a_call_returns():
    source_body = "    call sub\n    mov o0, r0"
    source = (".out o0 position\n.proc main\n" + source_body + "\n    end\n.end\n"
              ".proc sub\n    mov r0, r1\n.end\n")
    program = assemble([("t.v.pica", source)]).program
    case = with_program(dataclasses.replace(fuzz_case(0, 0), opdescs=tuple(program.opdescs)),
                        tuple(program.code))
    assert flow_events(case, "f32") == ["CALL return"]
