"""What the statement handlers work on: the code buffer, the operand-descriptor table,
the block stack, the DVLEs, the symbol tables and the diagnostics of one assembly run.

:class:`AssemblerCore` holds the state of picasso's model (pica-assembly.md#model) and
the operations every statement shares (emitting and patching words, descriptors, blocks
and their padding NOPs, pica-assembly.md#padding).  The handlers
(:mod:`.instructions`, :mod:`.directives`, :mod:`.declarations`, :mod:`.rawtables`,
:mod:`.lint`) take it as their argument; the driver, :class:`.assembler.Assembler`,
extends it with files, statements and linking, and is the one module that imports the
handlers, so that none of them imports it back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...errors import Diagnostic, EncodingError, SourceLocation
from ..descriptors import DescriptorTable, care_mask
from ..encoding import Instruction, encode
from ..isa import BY_VALUE, MAX_VERTEX_CODE_WORDS, OPDESC_LAYOUT, Opcode, OpcodeInfo, picasso_pads
from .errors import AsmError, Poisoned
from .operands import Alias, Operand
from .source import Lexer, Line, Tok
from .state import MAX_BLOCKS, Block, BlockKind, DvleState, Procedure, Relocation
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


class AssemblerCore:
    """The state of one assembly run and the operations statements share."""

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
        #: Index of the source being read (in the list given to ``run``).
        self.source = 0
        self.labels: dict[str, int] = {}
        self.label_relocs: list[Relocation] = []
        self.aliases: dict[str, Alias] = {}
        self.poisoned: set[str] = set()
        self.dvle: DvleState | None = None
        self.lexer: Lexer | None = None
        #: End of the last file read (where linking errors without a place point).
        self.last_eof = Line("", 1, "")
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
