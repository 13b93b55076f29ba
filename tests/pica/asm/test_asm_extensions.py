"""gpuisa's language extensions (docs/assembly-extensions.md): ``.word``, ``.opdesc``,
explicit uniform/constant placement, raw constant words, ``.unit``."""

from asm_testutil import END, NOP, build, errors, opdesc, program

IFX = 0x28 << 26 | 1 << 25 | 1 << 24 | 2 << 22
MAIN = "\n.proc main\n    end\n.end\n"


def test_word_emits_raw_words_without_descriptors():
    code, table = program("    .word 0x4C000000, 3221225472\n    .word 0x88000000")
    assert code == (0x4C000000, 0xC0000000, END)
    assert table == ()


def test_word_never_causes_padding():
    # a raw JMPC word (opcode 0x2C) at the end of an IF: no padding NOP, unlike jmpc
    code, _ = program("    ifc cmp.x\n    nop\n    .word 0xB0000000\n    .end\n    end")
    assert code == (IFX | 3 << 10, NOP, 0x2C << 26, END)
    code, _ = program("    for i0\n    nop\n    .word 0x80000000\n    .end\n    end")
    assert code == (0x29 << 26 | 2 << 10, NOP, 0x20 << 26, END)
    # the position rules still apply: an IF with only a .word in it is padded
    code, _ = program("    ifc cmp.x\n    .word 0x84000000\n    .end\n    end")
    assert code == (IFX | 2 << 10, NOP, END)


def test_word_is_not_rewritten_by_the_mad_swap():
    import itertools

    swz = ["".join(c) for c in itertools.product("xyzw", repeat=4) if "".join(c) != "xyzw"]
    body = ["    .word 0x4C000000"]  # a raw mov with DESC 0
    body += [f"    mov r0, c0.{s}" for s in swz[:33]]  # entries 0..32
    body += ["    mad r0, r1, c0, r2"]  # entry 33, swapped with 0
    code, _ = program("\n".join(body))
    assert code[0] == 0x4C000000
    assert code[1] & 0x7F == 33


def test_word_creates_the_dvle_and_resets_last_was_end():
    code, _ = program("    ifc cmp.x\n    nop\n    nop\n    .end\n    .word 0x84000000")
    # the .word after the IF's .end means the proc's .end needs no padding
    assert code == (IFX | 3 << 10, NOP, NOP, NOP)


def test_word_errors():
    assert errors(".word 1\n" + MAIN) == [("test.pica", 1, 1, "instruction outside block")]
    text = ".proc main\n    .word 1x\n    .word 0x100000000\n    .word\n    end\n.end\n"
    assert errors(text) == [("test.pica", 2, 11, "Invalid value: 1x"),
                            ("test.pica", 3, 11, "Value out of range (0..4294967295): 4294967296"),
                            ("test.pica", 4, 10, "missing parameter")]


def test_opdesc_pins_the_table():
    code, table = program("    mov r0, c0\n    mov r0, c0.x", ".opdesc 0x36F, 0x12345678")
    # mov r0, c0 agrees with entry 0 on every bit it cares about; .x does not match
    # anything pinned and gets a new entry
    assert [w & 0x7F for w in code] == [0, 2]
    assert table == (0x36F, 0x12345678, opdesc(0xF, "xxxx"))


def test_opdesc_entries_are_never_modified():
    # bit 31 is outside every instruction's care-mask: kept; a pinned entry whose
    # don't-care bits differ is still reused as it is
    _, table = program("    mov r0, c0\n    mov r1.x, c1.x", ".opdesc 0x8000036F, 0x00000368")
    assert table == (0x8000036F, 0x00000368)


def test_opdesc_errors():
    text = ".proc main\n    nop\n.end\n.opdesc 1\n.proc m2\n.opdesc 2\n.end\n"
    assert errors(text) == [
        ("test.pica", 4, 1, ".opdesc must come before the first instruction"),
        ("test.pica", 6, 1, ".opdesc is not allowed inside a block")]


def test_explicit_uniform_placement():
    d = build(".fvec mvp[4] c4, tint\n.fvec big[5]\n.ivec loop i2\n.bool flag b7" + MAIN)
    uniforms = {u.name: (u.first, u.last) for u in d.shbin.entries[0].uniforms}
    # tint takes c0; big would overlap c4-c7 and continues after them: c8-c12
    assert uniforms == {"mvp": (0x14, 0x17), "tint": (0x10, 0x10), "big": (0x18, 0x1C),
                        "loop": (0x72, 0x72), "flag": (0x7F, 0x7F)}
    assert d.header.splitlines()[2] == "#define VSH_FVEC_mvp 0x04"


def test_explicit_constant_placement():
    d = build(".fvec g c95\n.constf k(1, 1, 1, 1) c40\n.constf j(0, 0, 0, 0)\n"
              ".consti n(4, 0, 1, 0) i1\n.constfa t[2] c50\n.constfa (0, 0, 0, 0)\n.end\n"
              ".constf m(0, 0, 0, 0)" + MAIN).shbin.entries[0]
    # implicit constants come from the top but skip the explicit global c95: j = c94,
    # m = c93; the array pads to its declared size
    assert [(c.kind.name, c.register) for c in d.constants] == [
        ("FLOAT", 40), ("FLOAT", 94), ("INT", 1), ("FLOAT", 50), ("FLOAT", 51), ("FLOAT", 93)]


def test_explicit_placement_in_instructions():
    code, _ = program("    mov r0, k\n    mov r1, m[1]", ".constf k(1, 1, 1, 1) c40\n"
                      ".fvec m[2] c10")
    assert code == (0x13 << 26 | 0x10 << 21 | (0x20 + 40) << 12,
                    0x13 << 26 | 0x11 << 21 | (0x20 + 11) << 12)


def test_explicit_placement_errors():
    cases = [
        (".fvec a c4\n.fvec b c4", 2, 9, "register c4 is already used"),
        (".fvec a[4] c4\n.fvec b[2] c6", 2, 12, "registers c6-c7 are already used"),
        (".constf k(1, 1, 1, 1) c40\n.fvec x c40", 2, 9, "register c40 is already used"),
        (".fvec a[2] c94\n.constf k(0, 0, 0, 0) c95", 2, 23, "register c95 is already used"),
        (".fvec a[4] c94", 1, 12, "c94-c97 is outside the uniform space c0-c95"),
        (".fvec a i0", 1, 9, "expected a float uniform register (c0-c95): i0"),
        (".bool a c0", 1, 9, "expected a boolean uniform register (b0-b15): c0"),
        (".gsh point c10\n.fvec a c5", 2, 9, "c5 is outside the uniform space c10-c95"),
        (".constf k(1, 1, 1, 1) r0", 1, 23, "expected a float uniform register (c0-c95): r0"),
        (".constfa t[] c96\n.constfa (0, 0, 0, 0)\n.end", 1, 14,
         "invalid floating-point vector uniform register: c96"),
    ]
    for text, line, column, message in cases:
        assert errors(text + MAIN) == [("test.pica", line, column, message)], text


def test_placement_of_a_shared_uniform_must_match():
    a = ".fvec m c4" + MAIN
    b = ".fvec m c5\n.entry m2\n.proc m2\n    end\n.end\n"
    assert errors([("a.pica", a), ("b.pica", b)]) == [
        ("b.pica", 1, 9, "uniform 'm' was placed at c4 before")]
    ok = build([("a.pica", a), ("b.pica", b.replace("c5", "c4"))])
    assert ok.shbin.entries[1].uniforms[0].first == 0x14


def test_raw_constant_words():
    d = build(".constf k(#0x7F8001, #0xFF000000, 1.0, #0)\n.setf c3(#0x12345678, 0, 0, 0)\n"
              ".constfa t[]\n.constfa (#1, #2, #3, #4)\n.end" + MAIN).shbin.entries[0]
    assert d.constants[0].words == (0x7F8001, 0xFF000000, 0x3F0000, 0)
    assert d.constants[1].words == (0x12345678, 0, 0, 0)
    assert d.constants[2].words == (1, 2, 3, 4)
    assert errors(".constf k(#0x1G, 0, 0, 0)" + MAIN) == [
        ("test.pica", 1, 11, "invalid raw constant word: #0x1G")]


def test_unit_names_and_entry_errors():
    text = ".fvec a\n.unit geo\n.fvec b\n"
    assert errors(text) == [("test.pica", 1, 1, "entrypoint 'main' is undefined"),
                            ("test.pica", 2, 1, "entrypoint 'main' is undefined")]


def test_unit_resets_labels_aliases_and_constants():
    text = (".alias t r1\n.constf k(1, 1, 1, 1)\n.proc main\nL:\n    mov r0, t\n    end\n.end\n"
            ".unit second\n.alias t r2\n.constf k(0, 0, 0, 0)\n.entry m2\n.proc m2\nL:\n"
            "    mov r0, t\n    jmpc cmp.x, L\n    end\n.end\n")
    shbin = build(text).shbin
    assert len(shbin.entries) == 2
    assert shbin.entries[1].constants[0].register == 95
    assert shbin.program.code[2] == 0x13 << 26 | 0x10 << 21 | 0x12 << 12


def test_word_counts_against_the_vertex_code_limit():
    # 511 NOPs + 2 raw words: the second one would be word 513 (reported at its value)
    text = ".proc main\n" + "nop\n" * 511 + ".word 0x88000000, 0x84000000\n.end\n"
    line = text.split("\n")[512]
    assert errors(text) == [
        ("test.pica", 513, line.index("0x84000000") + 1,
         "instruction outside vertex shader code memory (max 512 instructions, currently 512)")]


def test_pinned_descriptors_take_part_in_the_mad_swap():
    # 32 pinned entries (values 1-32, all bits significant); the MAD (value: mask 0xF,
    # three .xyzw selectors at 5, 14, 23) matches none, is appended at 32 and then swapped
    # with the lowest index no MAD uses (0): the pinned value 1 moves to index 32
    pins = ", ".join(str(v) for v in range(1, 33))
    code, table = program("    mad r0, r1, c0, r2", f".opdesc {pins}")
    mad = 0xF | 0x1B << 5 | 0x1B << 14 | 0x1B << 23
    assert table == (mad, *range(2, 33), 1)
    assert code[0] == 7 << 29 | 0x10 << 24 | 0x11 << 17 | 0x20 << 10 | 0x12 << 5 | 0


def test_placement_in_the_geometry_bool_space():
    assert errors(".gsh point c10\n.bool f b15" + MAIN) == [
        ("test.pica", 2, 9, "b15 is outside the uniform space b0-b14")]
    d = build(".gsh point c10\n.bool f b14" + MAIN).shbin.entries[0]
    assert [(u.name, u.first) for u in d.uniforms] == [("f", 0x86)]


def test_raw_constant_word_in_decimal():
    d = build(".constf k(#4128768, #0, 0, 0)" + MAIN).shbin.entries[0]
    assert d.constants[0].words == (0x3F0000, 0, 0, 0)  # 4128768 = 0x3F0000


def test_labels_on_a_unit_line_belong_to_the_unit_before():
    text = (".proc main\n    jmpc cmp.x, L\n    end\n.end\nL: .unit second\n.entry m2\n"
            ".proc m2\n    end\n.end\n")
    code = build(text).shbin.program.code
    assert code[0] >> 10 & 0xFFF == 2  # the first word after main
