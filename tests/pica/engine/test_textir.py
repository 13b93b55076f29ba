"""``compiled.textir`` writes the IR ``llvmlite.ir`` writes for the same calls: one function
that uses every builder method, type and kind of constant the engine uses is built
through each, both texts are parsed by LLVM and printed back by LLVM, and the two
printouts (value and block names aside) must be the same."""

from __future__ import annotations

import re

import llvmlite.binding as llvm
import pytest
from llvmlite import ir as reference

from gpuisa.pica.engine.compiled import llvmjit
from gpuisa.pica.engine.compiled import textir as fast


def _body(ir):
    module = ir.Module(name="same")
    f32, f64, i1, i8, i32, i64 = (ir.FloatType(), ir.DoubleType(), ir.IntType(1),
                                  ir.IntType(8), ir.IntType(32), ir.IntType(64))
    v8 = ir.VectorType(f32, 8)
    fabs = ir.Function(module, ir.FunctionType(v8, [v8]), "llvm.fabs.v8f32")
    helper = ir.Function(module, ir.FunctionType(f64, [f64, i64]), "helper")
    helper.linkage = "internal"
    hb = ir.IRBuilder(helper.append_basic_block("entry"))
    hb.ret(hb.fmul(helper.args[0], hb.sitofp(helper.args[1], f64)))
    run = ir.Function(module, ir.FunctionType(ir.VoidType(), [i64, i64.as_pointer()]), "run")
    n, words = run.args
    b = ir.IRBuilder(run.append_basic_block("entry"))
    slot = b.alloca(ir.ArrayType(f64, 16))
    slot.align = 64
    counter = b.alloca(i64)
    b.store(ir.Constant(i64, 0), counter)
    floats = b.inttoptr(b.load(b.gep(words, [ir.Constant(i64, 1)])), f32.as_pointer())
    vector = b.load(b.bitcast(b.gep(floats, [n]), v8.as_pointer()), align=4)
    wide = b.fpext(vector, ir.VectorType(f64, 8))
    same = b.fpext(wide, ir.VectorType(f64, 8))
    bits = b.bitcast(same, ir.VectorType(i64, 8))
    masked = b.and_(bits, ir.Constant(ir.VectorType(i64, 8), [0x7FF0_0000_0000_0000] * 8))
    mixed = b.or_(b.xor(masked, b.lshr(bits, ir.Constant(ir.VectorType(i64, 8), [3] * 8))),
                  ir.Constant(ir.VectorType(i64, 8), list(range(8))))
    flags = b.icmp_unsigned(">=", mixed, b.not_(masked))
    chosen = b.select(flags, vector, b.call(fabs, [vector]))
    some = b.fcmp_ordered("<", chosen, ir.Constant(v8, [1.5, -0.0, 1e-45, 3.0e38, 2.0,
                                                        float("inf"), 0.1, 7.0]))
    none = b.fcmp_unordered("uno", chosen, chosen)
    packed = b.bitcast(b.and_(some, b.not_(none)), i8)
    lane = b.extract_element(chosen, ir.Constant(i32, 3))
    again = b.insert_element(ir.Constant(v8, ir.Undefined), lane, ir.Constant(i32, 0))
    splat = b.shuffle_vector(again, ir.Constant(v8, ir.Undefined),
                             ir.Constant(ir.VectorType(i32, 8), [0] * 8))
    total = b.fadd(b.fsub(splat, chosen), b.fmul(splat, b.fdiv(chosen, splat)))
    scalar = b.fptrunc(b.call(helper, [b.fpext(b.extract_element(total, ir.Constant(i32, 1)),
                                                 f64), b.zext(packed, i64)]), f32)
    b.store(scalar, b.gep(floats, [b.add(b.mul(n, ir.Constant(i64, 2)),
                                         b.sub(n, ir.Constant(i64, 1)))]))
    tiny = b.trunc(b.sext(b.fptosi(scalar, i32), i64), i8)
    with b.if_then(b.icmp_signed("<", tiny, ir.Constant(i8, 0)), likely=False):
        b.store(ir.Constant(f64, 0.25), b.gep(slot, [ir.Constant(i32, 0), ir.Constant(i32, 5)]))
    with b.if_else(b.icmp_signed("==", packed, ir.Constant(i8, -1))) as (then, otherwise):
        with then:
            b.store(b.add(b.load(counter), ir.Constant(i64, 1)), counter)
        with otherwise:
            b.store(ir.Constant(i64, 9), counter)
    with b.goto_entry_block():
        extra = b.alloca(i1)
    b.store(ir.Constant(i1, True), extra)
    done = b.append_basic_block("done")
    other = b.append_basic_block("other")
    switch = b.switch(b.load(counter), done)
    switch.add_case(3, other)
    switch.add_case(ir.Constant(i64, 4), done)
    b.position_at_end(other)
    with b.goto_entry_block():  # where the fast builder puts every slot
        pointers = b.alloca(ir.ArrayType(i8.as_pointer(), 2))
    b.store(ir.Constant(i8.as_pointer(), None), b.gep(pointers, [ir.Constant(i32, 0),
                                                                ir.Constant(i32, 1)]))
    b.branch(done)
    b.position_at_end(done)
    b.ret_void()
    return module


def _printed(module) -> str:
    """``module`` as LLVM prints it, with its value, block and metadata names replaced
    by numbers in order of first appearance."""
    parsed = llvm.parse_assembly(str(module))
    parsed.verify()
    text = str(parsed).split("\n", 1)[1]  # the first line names the module's source
    names: dict[str, str] = {}
    return re.sub(r'%"[^"]*"|%[-\w.$]+',
                  lambda m: names.setdefault(m.group(0), f"%v{len(names)}"), text)


def test_both_builders_write_the_same_module():
    llvmjit.compile_kernel(_body(fast))  # the CPU's LLVM set up
    assert _printed(_body(fast)) == _printed(_body(reference))


@pytest.mark.parametrize("kind,value,text", [
    (fast.IntType(1), True, "true"), (fast.IntType(1), 0, "false"),
    (fast.IntType(64), 2**63, str(2**63)),
    (fast.FloatType(), 0.1, "0x3fb99999a0000000"),  # 0.1 rounded to float32 first
    (fast.DoubleType(), -0.0, "0x8000000000000000"),
    (fast.VectorType(fast.IntType(8), 2), [5, 5], "splat (i8 5)"),
    (fast.VectorType(fast.IntType(8), 2), [5, 6], "<i8 5, i8 6>"),
    (fast.IntType(8).as_pointer(), None, "null"),
])
def test_constants_are_written_as_llvm_reads_them(kind, value, text):
    assert fast.Constant(kind, value).ref == text


def test_a_conversion_to_the_same_type_is_the_value_itself():
    module = fast.Module()
    f = fast.Function(module, fast.FunctionType(fast.VoidType(), [fast.FloatType()]), "f")
    b = fast.IRBuilder(f.append_basic_block("entry"))
    assert b.fptrunc(f.args[0], fast.FloatType()) is f.args[0]


def test_a_slot_made_in_a_later_block_lives_in_the_entry_block():
    """LLVM's SROA promotes only the entry block's slots: one left in a loop's block
    stays memory (and grows the stack each time round)."""
    module = fast.Module()
    f = fast.Function(module, fast.FunctionType(fast.VoidType(), []), "f")
    b = fast.IRBuilder(f.append_basic_block("entry"))
    later = b.append_basic_block("later")
    b.branch(later)
    b.position_at_end(later)
    slot = b.alloca(fast.IntType(64))
    b.store(fast.Constant(fast.IntType(64), 7), slot)
    b.ret_void()
    entry, body = f.text().split('"later":')
    assert f"{slot.ref} = alloca i64" in entry and "alloca" not in body
    promoted = llvmjit.optimised(module, llvmjit._target_machine())
    assert "alloca" not in str(promoted)
