"""Operand-descriptor allocation: don't-care masking, first-fit merge, the MAD swap
(pica-assembly.md#opdesc-allocation).  Expected tables are worked out by hand from
the rules of pica-assembly.md#opdesc-allocation."""

import itertools

import pytest
from asm_testutil import errors, opdesc, program

DESC = 0x7F  # DESC field of formats 1/1i/1u/1c: bits 0-6
MAD_DESC = 0x1F  # formats 5/5i: bits 0-4


def descs(code):
    return [w & DESC for w in code]


def test_doc_example_rcp_then_mov_share_an_entry():
    # rcp reads only component x of src1, so mov r1, v1 agrees on every bit both care
    # about; the merged entry takes mov's selector.
    code, table = program("    rcp r0, v0.x\n    mov r1, v1")
    assert descs(code) == [0, 0]
    assert table == (opdesc(0xF, "xyzw"),)


def test_dont_care_bits_keep_the_first_writers_value():
    # mov r0.x reads only component x: the y, z, w selector bits are don't-care
    code, table = program("    mov r0.x, c0.x\n    mov r1.x, c0.xyzw")
    assert descs(code) == [0, 0]
    assert table == (opdesc(0x8, "xxxx"),)
    code, table = program("    mov r1.x, c0.xyzw\n    mov r0.x, c0.x")
    assert table == (opdesc(0x8, "xyzw"),)


def test_masked_ops_compare_only_written_components():
    # mul: y, z, w of every source are don't-care when only x is written ...
    _, table = program("    mul r0.x, c0, r1.x\n    mul r0.x, c0, r1.xyzw")
    assert table == (opdesc(0x8, "xyzw", "xxxx"),)
    # ... but dp4 reads all components of both sources
    _, table = program("    dp4 r0.x, c0, r1.x\n    dp4 r0.x, c0, r1.xyzw")
    assert table == (opdesc(0x8, "xyzw", "xxxx"), opdesc(0x8, "xyzw", "xyzw"))


def test_dp3_ignores_w_of_both_sources_dph_only_of_src1():
    _, table = program("    dp3 r0, c0.xyzx, r1\n    dp3 r0, c0, r1.xyzx")
    assert table == (opdesc(0xF, "xyzx", "xyzw"),)
    _, table = program("    dph r0, c0.xyzx, r1\n    dph r0, c0, r1.xyzx")
    assert table == (opdesc(0xF, "xyzx", "xyzw"), opdesc(0xF, "xyzw", "xyzx"))
    _, table = program("    dph r0, c0.xyzx, r1\n    dph r0, c0, r1")
    assert table == (opdesc(0xF, "xyzx", "xyzw"),)


def test_scalar_ops_read_only_x():
    _, table = program("    ex2 r0, c0.xyzw\n    lg2 r0, c0.xwww\n    rsq r0, c0.xzzz")
    assert table == (opdesc(0xF, "xyzw"),)


def test_cmp_ignores_src1_zw_but_not_src2_zw():
    _, table = program("    cmp c0.xyxx, eq, eq, r1\n    cmp c0, eq, eq, r1\n"
                       "    cmp c0, eq, eq, r1.xyxx")
    assert table == (opdesc(0, "xyxx", "xyzw"), opdesc(0, "xyzw", "xyxx"))


def test_mova_reads_x_and_y_only_as_written():
    code, table = program("    mova a0.x, c0.x\n    nop\n    mova a0.x, c0.xyzw\n    nop\n"
                          "    mova a0.y, c0.x")
    # same mask, component x agrees -> shared; a different mask never matches
    assert descs([code[0], code[2], code[4]]) == [0, 0, 1]
    assert table == (opdesc(0x8, "xxxx"), opdesc(0x4, "xxxx"))


def test_cmp_and_mov_merge_on_the_bits_both_care_about():
    # cmp cares about src1 and src2, mov about the mask and src1: they agree on src1
    code, table = program("    cmp c0, eq, eq, r1\n    mov r0, c0")
    assert descs(code) == [0, 0]
    assert table == (opdesc(0xF, "xyzw", "xyzw"),)


def test_negation_is_always_significant():
    _, table = program("    mov r0.x, c0\n    mov r0.x, -c0")
    assert table == (opdesc(0x8, "xyzw"), opdesc(0x8, "xyzw", n1=1))


def _swizzles(count, exclude=()):
    out = []
    for comps in itertools.product("xyzw", repeat=4):
        s = "".join(comps)
        if s not in exclude:
            out.append(s)
        if len(out) == count:
            return out
    raise AssertionError


def test_mad_swap_moves_its_descriptor_below_32():
    swz = _swizzles(32, exclude=("xyzw",))
    body = ["    ifu b0", "    cmp -c0, eq, eq, r0", "    .end"]
    body += [f"    mov r0, c0.{s}" for s in swz]
    body += ["    mad r0, r1, c0, r2"]
    code, table = program("\n".join(body))
    # before the MAD: cmp = entry 0, movs = 1..32; the MAD's new entry is 33 >= 32, so
    # it is swapped with entry 0 (the lowest no MAD uses) and earlier words are rewritten
    assert len(table) == 34
    assert table[0] == opdesc(0xF, "xyzw", "xyzw", "xyzw")
    assert table[33] == opdesc(0x0, "xyzw", "xyzw", n1=1)
    assert table[1:33] == tuple(opdesc(0xF, s) for s in swz)
    assert code[1] & DESC == 33  # the cmp now points at its moved entry
    assert code[0] == 0x27 << 26 | 0 << 22 | 2 << 10  # IFU word: NUM 0 not rewritten
    assert code[-1] & MAD_DESC == 0


def test_second_mad_takes_the_next_free_low_index():
    swz = _swizzles(33, exclude=("xyzw", "xxxx"))
    body = [f"    mov r0, c0.{s}" for s in swz]  # entries 0..32
    body += ["    mad r0, r1, c0, r2", "    mad r0, r1, c0.xxxx, r2"]
    code, table = program("\n".join(body))
    # first MAD: entry 33 swapped with 0; second: entry 34 swapped with 1
    assert code[-2] & MAD_DESC == 0
    assert code[-1] & MAD_DESC == 1
    assert code[0] & DESC == 33
    assert code[1] & DESC == 34
    assert table[0] == opdesc(0xF, "xyzw", "xyzw", "xyzw")
    assert table[1] == opdesc(0xF, "xyzw", "xxxx", "xyzw")
    assert table[33] == opdesc(0xF, swz[0])
    assert table[34] == opdesc(0xF, swz[1])


def test_mad_reusing_a_low_entry_is_not_swapped():
    code, table = program("    mov r0, c0\n    mad r0, r1, c0, r2")
    # mov cares about mask + src1 only: the MAD merges into entry 0
    assert code[1] & MAD_DESC == 0
    assert table == (opdesc(0xF, "xyzw", "xyzw", "xyzw"),)


def test_too_many_operand_descriptors():
    swz = _swizzles(129)
    body = "\n".join(f"    mov r0, c0.{s}" for s in swz)
    assert errors(f".proc main\n{body}\n.end\n") == [
        ("test.pica", 130, 5, "too many operand descriptors (limit is 128)")]


def test_opdesc_allocation_error_when_no_low_index_is_free():
    swz = _swizzles(33)
    body = [f"    mad r0, r1, c0.{s}, r2" for s in swz[:32]]  # MADs use entries 0..31
    body += ["    mov r0.x, -c1"]  # entry 32
    body += [f"    mad r0, r1, c0.{swz[32]}, r2"]  # entry 33, nothing free below 32
    assert errors(".proc main\n" + "\n".join(body) + "\n.end\n") == [
        ("test.pica", 35, 5, "opdesc allocation error")]


# pica-assembly.md#dont-care, one row per rule: two instructions that differ only in selector
# components the rule marks don't-care share one entry (which keeps the first writer's bits); a
# difference in a component the operation reads gives a second entry.  I-forms use the plain
# opcode's rule and MADI uses MAD's.
DONT_CARE = [
    # add mul sge slt max min flr mov mad: components not written are never read
    *[(f"{op} r0.x, c0, r1", f"{op} r0.x, c0.xyyy, r1.xzzz", [opdesc(0x8, "xyzw", "xyzw")])
      for op in ("add", "mul", "sge", "slt", "max", "min")],
    ("sge r0.x, r1, c0", "sge r0.x, r1.xwww, c0.xzzz", [opdesc(0x8, "xyzw", "xyzw")]),  # SGEI
    ("slt r0.x, r1, c0", "slt r0.x, r1.yyyy, c0", [opdesc(0x8, "xyzw", "xyzw"),
                                                   opdesc(0x8, "yyyy", "xyzw")]),
    ("flr r0.xy, c0", "flr r0.xy, c0.xyxx", [opdesc(0xC, "xyzw")]),
    ("flr r0.xy, c0", "flr r0.xy, c0.xxzw", [opdesc(0xC, "xyzw"), opdesc(0xC, "xxzw")]),
    ("mad r0.x, r1, c0, r2", "mad r0.x, r1.xwww, c0.xzzz, r2.xyyy",
     [opdesc(0x8, "xyzw", "xyzw", "xyzw")]),
    ("mad r0.x, r1, r2, c0", "mad r0.x, r1.xwww, r2.xzzz, c0.xyyy",  # MADI
     [opdesc(0x8, "xyzw", "xyzw", "xyzw")]),
    ("mad r0.x, r1, c0, r2", "mad r0.x, r1, c0, -r2.xyyy",  # negation always counts
     [opdesc(0x8, "xyzw", "xyzw", "xyzw"), opdesc(0x8, "xyzw", "xyzw", "xyyy", n3=1)]),
    # dp3: w of src1 and src2
    ("dp3 r0, c0.xyzx, r1.xyzy", "dp3 r0, c0, r1", [opdesc(0xF, "xyzx", "xyzy")]),
    ("dp3 r0, c0.xyxw, r1", "dp3 r0, c0, r1", [opdesc(0xF, "xyxw", "xyzw"),
                                              opdesc(0xF, "xyzw", "xyzw")]),
    # dph: w of src1 only (DPHI too)
    ("dph r0, c0.xyzx, r1", "dph r0, c0, r1", [opdesc(0xF, "xyzx", "xyzw")]),
    ("dph r0, r1.xyzx, c0", "dph r0, r1, c0", [opdesc(0xF, "xyzx", "xyzw")]),
    ("dph r0, r1, c0.xyzx", "dph r0, r1, c0", [opdesc(0xF, "xyzw", "xyzx"),
                                              opdesc(0xF, "xyzw", "xyzw")]),
    # ex2 lg2 rcp rsq: y, z, w of src1
    *[(f"{op} r0, c0", f"{op} r0, c0.xxxx", [opdesc(0xF, "xyzw")])
      for op in ("ex2", "lg2", "rcp", "rsq")],
    ("rcp r0, c0.x", "rcp r0, c0.y", [opdesc(0xF, "xxxx"), opdesc(0xF, "yyyy")]),
    # dp4, dst (DSTI too), litp: every component of every source
    ("dp4 r0.x, c0, r1", "dp4 r0.x, c0.xyzx, r1", [opdesc(0x8, "xyzw", "xyzw"),
                                                  opdesc(0x8, "xyzx", "xyzw")]),
    ("dst r0, c0, r1", "dst r0, c0, r1.xyzx", [opdesc(0xF, "xyzw", "xyzw"),
                                              opdesc(0xF, "xyzw", "xyzx")]),
    ("dst r0, r1, c0", "dst r0, r1.xyzx, c0", [opdesc(0xF, "xyzw", "xyzw"),
                                              opdesc(0xF, "xyzx", "xyzw")]),
    ("litp r0.x, c0", "litp r0.x, c0.xyzx", [opdesc(0x8, "xyzw"), opdesc(0x8, "xyzx")]),
    # mova: z and w always, x/y when a0.x/a0.y is not written
    ("mova a0.y, c0.xyzw", "mova a0.y, c0.wyxx", [opdesc(0x4, "xyzw")]),
    ("mova a0.xy, c0", "mova a0.xy, c0.xyxx", [opdesc(0xC, "xyzw")]),
    # cmp: z and w of src1 only
    ("cmp c0, eq, eq, r1", "cmp c0.xyww, eq, eq, r1", [opdesc(0x0, "xyzw", "xyzw")]),
    ("cmp c0, eq, eq, r1", "cmp c0, eq, eq, r1.xyzz", [opdesc(0x0, "xyzw", "xyzw"),
                                                      opdesc(0x0, "xyzw", "xyzz")]),
]


@pytest.mark.parametrize(("first", "second", "table"), DONT_CARE,
                         ids=[f"{a} / {b}" for a, b, _ in DONT_CARE])
def test_dont_care_rule_of_every_opcode(first, second, table):
    code, opdescs = program(f"    {first}\n    {second}")
    assert list(opdescs) == table
    # MAD words have a 5-bit DESC field, the others 7 bits
    width = MAD_DESC if first.startswith("mad") else DESC
    assert [w & width for w in code] == ([0, 0] if len(table) == 1 else [0, 1])
