"""The ALU instructions of the LLVM kernels' functions (a mixin of
:class:`.native._Unit`): reading operands (relative uniform rows gathered whole), the
recipe's tree lowered in its arithmetic (exact, in range, or bounded with its operands
checked), the masked writes; values of inputs and uniforms made once in the prologue."""

from __future__ import annotations

from ..decode import Operand, Step
from ..rules import primitives as P
from ..rules.tree import Source, operand_bounds, trace
from . import textir as ir
from .irtypes import F32, F64, I32, I64
from .nativeabi import ARG, arg_pointer, arg_word


class AluMixin:
    """What :class:`.native._Unit` does for ALU instructions."""

    def read(self, operand: Operand, component: int) -> ir.Value:
        """Component ``component`` of a source register, before swizzle and negation."""
        b, bank, number = self.b, operand.bank, operand.number
        if bank == "c" and operand.relative is not None:
            return self.relative(operand, component)
        if (bank, number) in self.missing:
            self.fail()
            return self.L.const(F32, 0.0)
        if bank == "v":
            return self.inputs[(number, component)]
        if bank == "c":
            return self.uniforms[(number, component)]
        # a value an earlier instruction of this block wrote is used as it is (for lanes
        # outside the block's mask it is not the register's, but their results are not
        # written)
        written = self.fresh.get((bank, number, component))
        if written is not None:
            return written
        return b.load(self.slots[(bank, number, component)])

    def relative(self, operand: Operand, component: int) -> ir.Value:
        """A uniform read through an address register: each lane's row, all four
        components at once (kept for the instruction); a row that was not given fails
        the lane (checked only if some row was not given: ``rows_given``)."""
        key = (operand.number, operand.relative)
        if key not in self.gathered:
            self.gathered[key] = self.gather(*key)
        return self.gathered[key][component]

    def gather(self, number: int, relative: int) -> list[ir.Value]:
        b, L = self.b, self.L
        offsets = self.al_values() if relative == 2 else b.load(self.a0[relative])
        row_vector = L.relative_row(number, offsets)
        rows = [row_vector] if self.width == 1 else [
            b.extract_element(row_vector, ir.Constant(I32, k)) for k in range(self.width)]
        checked = b.icmp_unsigned("==", arg_word(b, self.args, ARG["rows_given"]),
                                  ir.Constant(I64, 0))
        with b.if_then(checked, likely=False):
            # bit r of the two words given_low / given_high: whether row r was given
            low, high = (L.splat(arg_word(b, self.args, ARG[name]))
                         for name in ("given_low", "given_high"))
            word = b.select(b.icmp_unsigned("<", row_vector, L.const(I64, 64)), low, high)
            bit = b.and_(b.lshr(word, b.and_(row_vector, L.const(I64, 63))), L.const(I64, 1))
            self.fail_if(b.icmp_unsigned("==", bit, L.const(I64, 0)))
        floats = arg_pointer(b, self.args, ARG["floats"], F32)
        values = self.gather_rows(floats, rows, F32)
        if self.table is not None:
            # their working values, made once per call of run (native._working_table)
            for value, working in zip(values, self.gather_rows(self.table, rows, F64),
                                      strict=True):
                self.working[value] = working
        return values

    def gather_rows(self, table: ir.Value, rows: list[ir.Value], kind: ir.Type
                    ) -> list[ir.Value]:
        """The 4 components of each lane's row of ``table`` as 4 vectors."""
        b = self.b
        quad = ir.VectorType(kind, 4)
        loaded = [b.load(b.bitcast(b.gep(table, [b.mul(row, ir.Constant(I64, 4))]),
                                   quad.as_pointer()), align=4) for row in rows]
        if self.width == 1:
            return [b.extract_element(loaded[0], ir.Constant(I32, c)) for c in range(4)]
        # rows side by side (each shuffle doubles the length), then every 4th element
        while len(loaded) > 1:
            size = loaded[0].type.count
            mask = ir.Constant(ir.VectorType(I32, 2 * size), list(range(2 * size)))
            loaded = [b.shuffle_vector(loaded[i], loaded[i + 1], mask)
                      for i in range(0, len(loaded), 2)]
        whole = loaded[0]
        return [b.shuffle_vector(whole, ir.Constant(whole.type, ir.Undefined), ir.Constant(
            ir.VectorType(I32, self.width), [c + 4 * k for k in range(self.width)]))
            for c in range(4)]

    def hoist_work(self, x: ir.Value, make) -> ir.Value:
        """The working value ``make()`` of ``x``: the rounded working value ``x`` was
        stored from earlier in this block (work24 of a stored rounded value is that
        value), made once at entry if ``x`` was, else made here."""
        working = self.working.get(x)
        if working is not None:
            return working
        key = self.entry_keys.get(x)
        if key is not None:
            return self.hoisted(("work", *key), make)
        return make()

    def operand_bounds(self, step: Step, tree) -> dict[Source, int] | None:
        """The bound of each operand if ``step`` computes with the bounded arithmetic:
        in a bounded vector function, an instruction computed in range whose sources
        are inputs and uniforms (:func:`..rules.tree.operand_bounds`)."""
        if not (self.bounded and self.alu_ir.computes_in_range(tree)):
            return None
        if any(o.bank not in "vc" or (o.bank, o.number) in self.missing
               for o in step.sources):
            return None
        return operand_bounds(tree, lambda item: step.sources[item.index].bank == "c")

    def check_bounds(self, step: Step, bounds: dict[Source, int]) -> None:
        """Lanes whose operands are not bounded leave the vector function: inputs and
        uniforms read by name are checked once, at the end of the prologue; uniforms
        read through an address register where they are read."""
        b, L = self.b, self.L
        for item, k in bounds.items():
            operand = step.sources[item.index]
            if operand.bank == "c" and k >= P.BOUND_UNIFORM:
                # A bounded function runs only when every uniform row it can read
                # (rows beyond c95 hold 1.0) was bounded24 with BOUND_UNIFORM at launch
                # (runner._uniforms_bounded); rows not given fail the lane on reading.
                continue
            component = int(operand.swizzle[item.component])
            if operand.relative is not None and operand.bank == "c":
                out = L.unbounded24(self.read(operand, component), k)
                if self.masked:
                    out = b.and_(out, self.mask)
                b.store(b.or_(b.load(self.out_of_range), out), self.out_of_range)
                continue

            def check(operand=operand, component=component, k=k) -> ir.Value:
                out = L.unbounded24(self.read(operand, component), k)
                b.store(b.or_(b.load(self.out_of_range), out), self.out_of_range)
                return out

            self.hoisted(("bound", operand.bank, operand.number, component, k), check)

    def operand_value(self, operand: Operand, component: int) -> ir.Value:
        value = self.read(operand, component)
        return self.alu_ir.negate(value) if operand.negate else value

    def hoisted(self, key: tuple, make) -> ir.Value:
        """``make()`` built once, at the end of the prologue (for values of inputs and
        uniforms, which every block sees)."""
        found = self.entry_values.get(key)
        if found is None:
            with self.b.goto_block(self.prologue):
                found = make()
            self.entry_values[key] = found
            self.entry_keys[found] = key
        return found

    def write_destination(self, dest: tuple[str, int], mask: list[int],
                          values: list[ir.Value]) -> None:
        """Writes ``values`` (one per component) to the destination register's components
        in ``mask``."""
        bank, number = dest
        for component in mask:
            value = values[component]
            self.write(self.slots[(bank, number, component)], value)
            self.fresh[(bank, number, component)] = value
            if isinstance(value, ir.CastInstr) and value.opname == "fptrunc":
                # store24 of a rounded working value: that value is its working one
                self.working[value] = value.operands[0]

    def note_out_of_range(self, written: list[ir.Value]) -> None:
        """Sets the out-of-range flag for the lanes (those of the mask, when masked) where
        a ``written`` value is not finite."""
        b = self.b
        out = self.L.nonfinite32(written[0])
        for value in written[1:]:
            out = b.or_(out, self.L.nonfinite32(value))
        if self.masked:
            out = b.and_(out, self.mask)
        b.store(b.or_(b.load(self.out_of_range), out), self.out_of_range)

    def emit_alu(self, step: Step) -> None:
        """An ALU instruction: its recipe's trees lowered, then written through the
        destination mask (CMP: both flags; MOVA: a0.x / a0.y for the mask's x / y)."""
        b = self.b
        raw: dict[tuple[int, int], ir.Value] = {}
        self.gathered: dict[tuple[int, int], list[ir.Value]] = {}

        def source(item: Source) -> ir.Value:
            operand = step.sources[item.index]
            component = int(operand.swizzle[item.component])
            if operand.bank in "vc" and operand.relative is None and (
                    operand.bank, operand.number) not in self.missing:
                # inputs and uniforms never change: their forms are made once, at entry
                key = (operand.bank, operand.number, component, operand.negate)
                return self.hoisted(key, lambda: self.operand_value(operand, component))
            key = (item.index, component)
            if key not in raw:
                raw[key] = self.read(operand, component)
            value = raw[key]
            return self.alu_ir.negate(value) if operand.negate else value

        tree = trace(step.op, len(step.sources), step.field)
        bounds = self.operand_bounds(step, tree)
        if bounds is not None:
            self.check_bounds(step, bounds)
        result = self.alu_ir.lower(tree, source, bounded=bounds is not None)
        mask = step.mask.tolist()
        if result.value is not None and step.dest is not None:
            self.write_destination(step.dest, mask, result.value)
            if mask and bounds is None and self.alu_ir.computes_in_range(tree):
                self.note_out_of_range([result.value[component] for component in mask])
        if result.flags is not None:
            for slot, flag in zip(self.flags, result.flags, strict=True):
                self.write(slot, flag)
        if result.address is not None:
            for component in mask:
                if component < 2:
                    self.write(self.a0[component], b.sext(result.address[component],
                                                          self.L.i64))

