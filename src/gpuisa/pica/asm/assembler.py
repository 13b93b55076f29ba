"""The assembler driver: files, statements, linking, the SHBIN.

One :class:`Assembler` runs picasso's model (pica-assembly.md#model, pica-assembly.md#blocks,
pica-assembly.md#linking): files are read in order into one code buffer and one operand-descriptor
table; procedures are global, labels, aliases and local constants per file.  Unlike picasso it does
not stop at the first error: a failing statement is reported and skipped, and assembly goes on so
that every error of the run is reported.  Output is produced only when there was none.

The state and the operations statements share are :mod:`.core`'s; the statement handlers
live in :mod:`.instructions` and :mod:`.directives`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..isa import BY_VALUE, MAX_CODE_WORDS
from ..program import Program
from ..shbin import Dvle, ShaderType, Shbin, Uniform
from . import directives, instructions
from .core import AssemblerCore, Options
from .errors import AsmError, Poisoned
from .header import header_text
from .lint import lint
from .operands import B_BASE, C_BASE, I_BASE, is_identifier
from .source import Lexer, Line, Marker, Statement, Tok
from .state import BlockKind, DvleState, Procedure

__all__ = ["Assembler", "Options", "Output"]


@dataclass(frozen=True, slots=True)
class Output:
    """What a successful run produces."""

    shbin: Shbin
    header: str
    #: For every code word: the statement that produced it.
    word_toks: tuple[Tok, ...]


class Assembler(AssemblerCore):
    """One assembly run over a list of ``(name, text)`` sources."""

    # -- files ----------------------------------------------------------------------------

    def run(self, sources: Sequence[tuple[str, str]]) -> Output | None:
        self.units = -1
        self.read(sources)
        return self.finish()

    def read(self, sources: Sequence[tuple[str, str]], first: int = 0,
             lexer: Lexer | None = None) -> None:
        """Read ``sources[first:]``; with ``lexer``, source ``first`` was begun and is
        read on from where that lexer starts."""
        for index in range(first, len(sources)):
            name, text = sources[index]
            self.source = index
            if lexer is None:
                self.units += 1
                lexer = Lexer(text, name, strict=self.strict)
                self.lexer = lexer
                self.begin_file(None, Tok("", 0, Line(name, 1, "")))
            self.lexer = lexer
            for item in lexer:
                self.item(item)
            self.last_eof = lexer.eof
            self.end_file(self.last_eof)
            lexer = None

    def item(self, item: Statement | Marker) -> None:
        if isinstance(item, Marker):
            for label in item.labels:
                self.define_label(label)
        elif item.name is not None and item.name.text.lower() == ".unit":
            self.unit_directive(item)
        else:
            self.statement(item)

    def finish(self) -> Output | None:
        """Link what was read and make the SHBIN (None after an error)."""
        self.link(self.last_eof)
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
