"""The assembler driver: files, statements, blocks, padding NOPs, linking, the SHBIN.

One :class:`Assembler` runs picasso's model (pica-assembly.md#model, pica-assembly.md#blocks,
pica-assembly.md#linking): files are read in order into one code buffer and one operand-descriptor
table; procedures are global, labels, aliases and local constants per file.  Unlike picasso it does
not stop at the first error: a failing statement is reported and skipped, and assembly goes on so
that every error of the run is reported.  Output is produced only when there was none.

The statement handlers live in :mod:`.instructions` and :mod:`.directives`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ...errors import Diagnostic, EncodingError, SourceLocation
from ..descriptors import DescriptorTable, care_mask
from ..encoding import Instruction, encode
from ..isa import (
    BY_VALUE,
    MAX_CODE_WORDS,
    MAX_VERTEX_CODE_WORDS,
    OPDESC_LAYOUT,
    Opcode,
    OpcodeInfo,
    picasso_pads,
)
from ..program import Program
from ..shbin import Dvle, ShaderType, Shbin, Uniform
from . import directives, instructions
from .errors import AsmError, Poisoned
from .header import header_text
from .lint import lint
from .operands import B_BASE, C_BASE, I_BASE, Alias, Operand, is_identifier
from .source import Lexer, Line, Marker, Statement, Tok
from .state import (
    MAX_BLOCKS,
    Block,
    BlockKind,
    DvleState,
    Procedure,
    Relocation,
)
from .uniforms import PoolBundle, UniformRecord

NOP_WORD = encode(Instruction.make(Opcode.NOP))


@dataclass(frozen=True, slots=True)
class Options:
    """``pad_nops``: insert picasso's padding NOPs (``-n`` turns them into warnings).
    ``strict``: reproduce picasso's defects (pica-assembly.md#defects).  ``werror``: warnings are
    errors.
    ``lint``: run the path checks of :mod:`.lint` (``pica check`` runs its own)."""

    pad_nops: bool = True
    strict: bool = False
    werror: bool = False
    lint: bool = True


@dataclass(frozen=True, slots=True)
class Output:
    """What a successful run produces."""

    shbin: Shbin
    header: str
    #: For every code word: the statement that produced it.
    word_toks: tuple[Tok, ...]


class Assembler:
    """One assembly run over a list of ``(name, text)`` sources."""

    def __init__(self, options: Options = Options()):
        self.options = options
        self.strict = options.strict
        self.diagnostics: list[Diagnostic] = []
        self.errors = 0
        self.code: list[int] = []
        self.word_toks: list[Tok] = []
        #: Destination operand of each word that writes a register (for the linter).
        self.dst_toks: dict[int, Tok] = {}
        #: Operand descriptor of each ALU word as written, before the allocator shares
        #: one whose don't-care bits differ (for ``pica check``'s swizzle check).
        self.written_descs: dict[int, int] = {}
        #: Positions of `.word` words: never rewritten, never looked at by padding rules.
        self.raw_words: set[int] = set()
        self.opdescs = DescriptorTable()
        self.procs: dict[str, Procedure] = {}
        self.proc_relocs: list[Relocation] = []
        self.poisoned_procs: set[str] = set()
        self.dvles: list[DvleState] = []
        self.global_uniforms: list[UniformRecord] = []
        self.vertex_pools = PoolBundle.vertex()
        self.geometry_pools = PoolBundle.vertex()  # re-initialised by each `.gsh MODE cF`
        self.last_was_end = False
        self.stack: list[Block] = []
        self._vertex_limit_reported = False
        # Per file (reset by begin_file); `unit` is the name of a `.unit`, else None.
        self.unit: str | None = None
        self.origin = Tok("", 0, Line("", 1, ""))
        #: Index of the current input unit (file or `.unit`), from 0.
        self.units = 0
        self.labels: dict[str, int] = {}
        self.label_relocs: list[Relocation] = []
        self.aliases: dict[str, Alias] = {}
        self.poisoned: set[str] = set()
        self.dvle: DvleState | None = None
        self.lexer: Lexer | None = None
        # gpuisa's raw SHBIN directives (rawtables.py)
        self.dvlp_version = 0
        self.opdesc_high: list[tuple[int, Tok]] = []
        #: The `.dvlp dvles=0` statement, if any.
        self.no_dvles: Tok | None = None

    # -- diagnostics ----------------------------------------------------------------------

    def _diag(self, severity: str, message: str, tok: Tok | None, line: Line | None) -> Diagnostic:
        if tok is None:
            where = line or (self.lexer.eof if self.lexer else Line("", 1, ""))
            return Diagnostic(severity, message, SourceLocation(where.file, where.number, 1))
        has_text = bool(tok.line.text)
        return Diagnostic(severity, message,
                          SourceLocation(tok.line.file, tok.line.number, tok.col + 1),
                          tok.line.text if has_text else None, max(1, len(tok.text)))

    def error(self, message: str, tok: Tok | None, notes=(), *, line: Line | None = None) -> None:
        self.errors += 1
        self.diagnostics.append(self._diag("error", message, tok, line))
        for note, where in notes:
            if where is None:
                loc = self.diagnostics[-1].location
                self.diagnostics.append(Diagnostic("note", note, loc))
            else:
                self.diagnostics.append(self._diag("note", note, where, None))

    def warn(self, message: str, tok: Tok | None, note: str | None = None) -> None:
        if self.options.werror:
            self.error(f"{message} [-Werror]", tok, ((note, None),) if note else ())
            return
        self.diagnostics.append(self._diag("warning", message, tok, None))
        if note:
            self.diagnostics.append(Diagnostic("note", note, self.diagnostics[-1].location))

    def report(self, exc: AsmError) -> None:
        self.error(exc.message, exc.tok, exc.notes)

    # -- the operand-parsing context (operands.Context) -----------------------------------

    def lookup_alias(self, name: str) -> Alias | None:
        if name in self.poisoned:
            raise Poisoned(name)
        return self.aliases.get(name)

    def output_limit(self) -> int:
        return self.current_dvle().output_limit

    # -- files ----------------------------------------------------------------------------

    def run(self, sources: Sequence[tuple[str, str]]) -> Output | None:
        last_eof: Line | None = None
        self.units = -1
        for name, text in sources:
            self.units += 1
            self.lexer = Lexer(text, name, strict=self.strict)
            self.begin_file(None, Tok("", 0, Line(name, 1, "")))
            for item in self.lexer:
                if isinstance(item, Marker):
                    for label in item.labels:
                        self.define_label(label)
                    continue
                if item.name is not None and item.name.text.lower() == ".unit":
                    self.unit_directive(item)
                    continue
                self.statement(item)
            last_eof = self.lexer.eof
            self.end_file(last_eof)
        self.link(last_eof or Line("", 1, ""))
        high = self._opdesc_high()
        if self.errors:
            return None
        shbin = Shbin(Program(self.code, self.opdescs.values),
                      tuple(self.build_dvle(d) for d in self.dvles if not d.nodvle),
                      self.dvlp_version, high)
        if self.options.lint:
            lint(self, shbin)
        if self.errors:  # --Werror
            return None
        return Output(shbin, header_text(self.dvles, self.global_uniforms),
                      tuple(self.word_toks))

    def begin_file(self, unit: str | None, origin: Tok) -> None:
        """picasso's ClearStatus: per-file tables restart, the shared pools' local end
        returns to the top (pica-assembly.md#pools)."""
        self.unit = unit
        self.origin = origin
        self.vertex_pools.clear_local()
        self.labels = {}
        self.label_relocs = []
        self.aliases = {}
        self.poisoned = set()
        self.dvle = None

    def end_file(self, eof: Line) -> None:
        if self.stack:
            notes = tuple((f"this {b.kind.value} block is not closed", b.tok)
                          for b in reversed(self.stack))
            self.error("unclosed block(s)", None, notes, line=eof)
            self.poisoned_procs.update(b.name for b in self.stack
                                       if b.kind is BlockKind.PROC and b.name)
            self.stack.clear()
        for reloc in self.label_relocs:
            target = self.labels.get(reloc.name)
            if target is None:
                self.error(f"label '{reloc.name}' is undefined", reloc.tok)
            else:
                self.code[reloc.pos] = _replace_dst(self.code[reloc.pos], target)

    def unit_directive(self, st: Statement) -> None:
        """gpuisa ``.unit [NAME]``: the following lines are the next input file."""
        assert self.lexer is not None
        name = st.args.arg_space()
        extra = st.args.arg()
        if extra is not None:
            self.error("too many parameters", extra)
        for label in st.labels:
            self.define_label(label)
        self.end_file(st.line)
        self.units += 1
        self.begin_file(name.text if name is not None else f"unit{self.units}", st.name)

    # -- statements -----------------------------------------------------------------------

    def define_label(self, tok: Tok) -> None:
        name = tok.text
        if not is_identifier(name):
            self.error(f"invalid label name: {name}", tok)
        elif name in self.labels:
            self.error(f"duplicate label: {name}", tok)
        else:
            self.labels[name] = len(self.code)

    def statement(self, st: Statement) -> None:
        for label in st.labels:
            self.define_label(label)
        if st.name is None:
            return
        try:
            self._dispatch(st, st.name)
        except AsmError as exc:
            self.report(exc)
        except Poisoned:
            pass

    def _dispatch(self, st: Statement, name: Tok) -> None:
        text = name.text
        if text.startswith(".") and text[1:].lower() != "word":
            handler = directives.DIRECTIVES.get(text[1:].lower())
            if handler is None:
                raise AsmError(f"invalid instruction: {text[1:]}", name)
            handler(self, st)
            return
        if not self.stack:
            raise AsmError("instruction outside block", name)
        self.last_was_end = False
        self.check_vertex_room(name)
        if text.startswith("."):
            directives.word(self, st)
            return
        handler = instructions.MNEMONICS.get(text.lower())
        if handler is None:
            raise AsmError(f"invalid instruction: {text}", name)
        handler(self, st)

    # -- DVLE, code, descriptors ----------------------------------------------------------

    def current_dvle(self) -> DvleState:
        """picasso's GetDvleData: the first DVLE-related statement of a file creates it."""
        if self.dvle is None:
            assert self.lexer is not None
            self.dvle = DvleState(self.unit if self.unit is not None else self.lexer.file,
                                  self.origin)
            self.dvles.append(self.dvle)
        return self.dvle

    def check_vertex_room(self, tok: Tok) -> None:
        """pica-assembly.md#vertex-limit, pica-assembly.md#defect-513: at most 512 words of
        vertex-shader code."""
        if self.current_dvle().is_geo:
            return
        size = len(self.code)
        if size > MAX_VERTEX_CODE_WORDS or (size == MAX_VERTEX_CODE_WORDS and not self.strict):
            if self._vertex_limit_reported:
                raise Poisoned("vertex code size")
            self._vertex_limit_reported = True
            raise AsmError("instruction outside vertex shader code memory (max "
                           f"{MAX_VERTEX_CODE_WORDS} instructions, currently {size})", tok)

    def emit(self, word: int, tok: Tok) -> int:
        self.code.append(word)
        self.word_toks.append(tok)
        return len(self.code) - 1

    def emit_instruction(self, info: OpcodeInfo, tok: Tok, **fields: int) -> int:
        return self.emit(encode(Instruction.make(info.opcode, **fields)), tok)

    def last_opcode(self) -> Opcode | None:
        """The opcode the padding rules look at: None after a ``.word``
        (docs/assembly-extensions.md)."""
        if not self.code or len(self.code) - 1 in self.raw_words:
            return None  # empty: reachable when the block's opening statement failed
        return BY_VALUE[self.code[-1] >> 26].opcode

    def pad(self, tok: Tok) -> None:
        """A padding NOP (pica-assembly.md#padding), or the ``-n`` warning instead."""
        if not self.options.pad_nops:
            self.warn("a padding NOP is required here", tok)
            return
        if not self.strict:
            try:
                self.check_vertex_room(tok)
            except AsmError as exc:
                self.report(exc)
                return
            except Poisoned:
                return
        self.emit(NOP_WORD, tok)

    def descriptor(self, base: OpcodeInfo, mask: int, sources: Sequence[Operand],
                   tok: Tok) -> tuple[int, int]:
        """(descriptor value, care-mask) of an instruction (pica-assembly.md#opdesc,
        pica-assembly.md#care-masks, pica-assembly.md#dont-care)."""
        values = {"mask": mask}
        for n, op in enumerate(sources, start=1):
            values[f"neg{n}"] = int(op.neg)
            values[f"sel{n}"] = op.sel
        value = OPDESC_LAYOUT.pack(values)
        self.written_descs[len(self.code)] = value  # the word about to be emitted
        return value, care_mask(base, mask)

    def allocate(self, value: int, mask: int, tok: Tok) -> int:
        try:
            return self.opdescs.allocate(value, mask)
        except EncodingError as exc:
            raise AsmError(str(exc), tok) from None

    def allocate_mad(self, value: int, mask: int, tok: Tok) -> int:
        """pica-assembly.md#mad-swap: the MAD "< 32 swap" and the rewrite of earlier
        instructions."""
        try:
            index, swapped = self.opdescs.allocate_mad(value, mask)
        except EncodingError as exc:
            raise AsmError(str(exc), tok) from None
        if swapped is not None:
            for pos, word in enumerate(self.code):
                if pos not in self.raw_words:
                    self.code[pos] = _swap_desc(word, index, swapped)
        return index

    # -- blocks ---------------------------------------------------------------------------

    def open_block(self, kind: BlockKind, tok: Tok, **extra) -> Block:
        block = Block(kind, len(self.code), tok, **extra)
        self.stack.append(block)
        if len(self.stack) > MAX_BLOCKS:
            # still pushed (as broken) so that its `.end` closes it and not the block
            # around it: the rest of the file then reports no follow-up errors
            block.broken = True
            raise AsmError("too many nested blocks", tok)
        return block

    def open_broken(self, kind: BlockKind, tok: Tok) -> None:
        """Keep the block structure after an opening statement failed, so that its
        ``.end`` still matches."""
        self.stack.append(Block(kind, len(self.code), tok, broken=True))

    def pad_before_else(self, block: Block, tok: Tok) -> None:
        self._pad_if(picasso_pads("else", self.last_opcode(), block.pos, len(self.code),
                                  self.last_was_end), tok)

    def pad_before_end(self, block: Block, tok: Tok) -> None:
        if block.kind is not BlockKind.ARRAY:
            closing = "proc" if block.kind is BlockKind.PROC else block.kind.value
            self._pad_if(picasso_pads(closing, self.last_opcode(), block.pos, len(self.code),
                                      self.last_was_end), tok)

    def _pad_if(self, wanted: bool, tok: Tok) -> None:
        if wanted:
            self.pad(tok)
            self.last_was_end = False

    def patch(self, pos: int, **fields: int) -> None:
        word = self.code[pos]
        layout = BY_VALUE[word >> 26].format.layout
        for name, value in fields.items():
            f = layout[name]
            word = (word & ~f.mask) | ((value << f.lsb) & f.mask)
        self.code[pos] = word

    def patch_low(self, pos: int, value: int) -> None:
        """picasso's ``inst &= ~0x3FF; inst |= NUM`` for an IF's else length: clears every
        bit below DST and ORs the value in unmasked (strict mode keeps the overflow)."""
        word = self.code[pos]
        dst = BY_VALUE[word >> 26].format.layout["dst"]
        low = (1 << dst.lsb) - 1
        self.code[pos] = ((word & ~low) | value) & 0xFFFFFFFF

    # -- linking --------------------------------------------------------------------------

    def link(self, eof: Line) -> None:
        """pica-assembly.md#linking: procedure relocations, the DVLE count, entry points."""
        for reloc in self.proc_relocs:
            proc = self.procs.get(reloc.name)
            if proc is None:
                if reloc.name not in self.poisoned_procs:
                    self.error(f"procedure '{reloc.name}' is undefined", reloc.tok)
                continue
            word = self.code[reloc.pos]
            num = BY_VALUE[word >> 26].format.layout["num"]
            if proc.length > num.max and not self.strict:
                self.error(f"procedure '{reloc.name}' is too long to be called ({proc.length} "
                           f"words, a call covers at most {num.max})", reloc.tok,
                           ((f"procedure '{reloc.name}' is defined here", proc.tok),))
                continue
            self.code[reloc.pos] = _replace_num_dst(word, proc.length, proc.start)
        count = sum(1 for d in self.dvles if not d.nodvle)
        if self.no_dvles is not None:
            if count:
                self.error(f"dvles=0, but the source defines {count} DVLE(s)", self.no_dvles)
        elif not self.errors and not count:
            self.error("no DVLEs can be generated from the given input file(s)", None, line=eof)
        for dvle in self.dvles:
            if dvle.nodvle or dvle.raw_entry:
                continue
            if dvle.entry not in self.procs:
                if dvle.entry in self.poisoned_procs:
                    continue
                notes = () if dvle.entry_tok else (
                    ("define it with '.proc main', or name another procedure with '.entry'",
                     None),)
                self.error(f"entrypoint '{dvle.entry}' is undefined",
                           dvle.entry_tok or dvle.origin, notes)
        if len(self.code) > MAX_CODE_WORDS:
            self.error(f"the program has {len(self.code)} words; shader program memory holds "
                       f"{MAX_CODE_WORDS}", None, line=eof)

    def _opdesc_high(self) -> tuple[int, ...]:
        """The descriptors' second words (`.opdeschigh`), 0 where none was given."""
        table = len(self.opdescs.values)
        if len(self.opdesc_high) > table:
            tok = self.opdesc_high[table][1]
            self.error(f".opdeschigh gives {len(self.opdesc_high)} words for {table} operand "
                       "descriptors", tok)
        words = [value for value, _ in self.opdesc_high[:table]]
        return tuple(words + [0] * (table - len(words)))

    def build_dvle(self, d: DvleState) -> Dvle:
        proc = self.procs.get(d.entry, Procedure(0, 0, d.origin))  # absent: d.raw_entry
        uniforms = []
        for u in sorted(d.uniforms, key=lambda u: u.reg):
            bank, base = _uniform_bank(u.reg)
            uniforms.append(Uniform.in_bank(u.name.replace("$", "."), bank, u.reg - base, u.size))
        uniforms += d.raw_uniforms
        dvle = Dvle(
            shader_type=ShaderType.GEOMETRY if d.is_geo else ShaderType.VERTEX,
            main_offset=proc.start,
            endmain_offset=proc.start + proc.length,
            constants=tuple(d.constants),
            outputs=tuple(d.outputs),
            uniforms=tuple(uniforms),
            input_mask=d.input_mask,
            output_mask=d.output_mask,
            merge_outmaps=d.merge,
            geometry_mode=d.geo_mode,
            fixed_vertex_start=d.fixed_start,
            variable_vertex_count=d.variable_count,
            fixed_vertex_count=d.fixed_count,
            labels=tuple(d.labels),
        )
        return replace(dvle, **d.header) if d.header else dvle


def _uniform_bank(reg: int) -> tuple[str, int]:
    if reg >= B_BASE:
        return "b", B_BASE
    if reg >= I_BASE:
        return "i", I_BASE
    if reg >= C_BASE:
        return "c", C_BASE
    return "v", 0


def _replace_dst(word: int, target: int) -> int:
    """Label relocation: only DST changes (pica-assembly.md#encodings)."""
    dst = BY_VALUE[word >> 26].format.layout["dst"]
    return (word & ~dst.mask) | ((target << dst.lsb) & dst.mask)


def _replace_num_dst(word: int, num: int, target: int) -> int:
    """Procedure relocation: picasso clears every bit up to DST's top and ORs
    ``NUM | DST << 10`` in, preserving the condition bits above."""
    dst = BY_VALUE[word >> 26].format.layout["dst"]
    low = (1 << (dst.lsb + dst.width)) - 1
    return ((word & ~low) | num | (target << dst.lsb)) & 0xFFFFFFFF


def _swap_desc(word: int, a: int, b: int) -> int:
    """Exchange descriptor indices ``a`` and ``b`` in a word with a 7-bit DESC field
    (formats 1, 1i, 1u, 1c: picasso's "opcode < 0x20 or CMP"); others are untouched."""
    layout = BY_VALUE[word >> 26].format.layout
    if "desc" not in layout or layout["desc"].width != 7:
        return word
    f = layout["desc"]
    desc = f.extract(word)
    if desc == a:
        return f.insert(word, b)
    if desc == b:
        return f.insert(word, a)
    return word

