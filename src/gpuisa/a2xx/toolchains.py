"""What each toolchain writes where Mesa's text shows nothing (a2xx-formats.md#toolchain-defaults).

Mesa's disassembly leaves out bits that real programs set: the filler of an unused scalar
slot, the bank of an unused third source, the vertex fetch's prefetch count, mini-fetch,
index-rounding and ``signed_rf_mode`` bits, the exec's vertex-cache bits, bit 6 of a
constant index written ``|C63|``.  Each compiler fills them its own way; ``a2xx asm
--toolchain`` picks the set, so that Mesa's text of a shader reassembles to the words its
compiler wrote.  Evidence, per toolchain:

* ``adreno``: the Adreno GLES driver's compiler, as freedreno captured its programs
  (tests/a2xx/data/adreno-captures.txt; :data:`isa.ALU_DEFAULTS` and the fetch defaults
  beside them cite the words): a vertex fetch's d1 bits 14 (``signed_rf_mode``) and 15
  (index rounding) clear, 4 of 4 fetches.
* ``adreno-kernel``: the programs the vendor compiled for the Adreno 200 kernel driver
  (its four GMEM save/restore shaders): as ``adreno`` but the first vertex fetch rounds
  its index (d1 bit 15: ``0x1cb81000 0x00398a88``, ``0x18981000 0x0039ba88``) and a later
  one sets ``signed_rf_mode`` (d1 bit 14: ``0x12982000 0x40257b08``).
* ``xdk``: Microsoft's XDK compiler, the forty-four containers of
  tests/a2xx/data/xdk-listings.txt (the counts below are of the first thirty-five):
  every vector-only slot has scalar opcode 50 (RETAIN_PREV, d0 bits 26-31 = 0x32:
  ``0xc80f8000``); every vertex fetch is a full fetch with prefetch count 0, no index
  rounding and ``signed_rf_mode`` 0
  (``0x00081000 0x00000688 0x00000000``, 18 fetches); c252-c255 are written
  ``0xfc``-``0xff`` (Mesa prints ``|C60|``-``|C63|``), also as the constant of
  ``addsc``/``mulsc``/``subsc`` (``ADD_CONST_0 R2.___w = |R63.wyzx|`` is c255: d2
  ``0xe20000ff``, Scaleform's FBox2InnerShadowKnockout, 25 of 25 such operands); each
  exec sets its ``vc`` bit for a vertex fetch; one slot follows the last instruction
  (zero, or the three words of the listing's ``// PDB hint`` with a debug database);
  a one-source vector operation's unprinted second source is R0 with swizzle and
  negate 0 (d1 bits 8-15 = 0, 20 of 20, e.g. ``FRACv``: ``0x00c50000 0xe8040000``); an
  export whose scalar line is RETAIN_PREV (writing the constant components Xenia shows
  as ``oPos.x001``) sets d0 bit 14 (``0xc889c03e``, 10 of 10; the one export with a real
  scalar operation clears it); every texture fetch is 2D (d2 bits 14-15 = 1, 41 of 41
  fetches; Mesa's text cannot tell, so assembly reports it as a guess).  What no rule
  gives, ``a2xx disasm`` writes as ``; xdk:`` lines (a2xx-formats.md#xdk-notes).
* ``mesa``: Mesa's own A2XX compiler (ir2, ``ir2_assemble.c`` of freedreno, read at
  flto/mesa c903b7cd): an instruction starts from zero, so an unused scalar slot is
  opcode 0 (ADDs) and an unused third source is constant 0; vertex fetches as
  ``adreno`` (prefetch 3 and a full fetch first, then prefetch 2 and mini fetches, no
  index rounding or ``signed_rf_mode``); ``relative_addr`` set on an ALU instruction
  exporting to eA (export 32).
* ``fdre``: freedreno's own early assembler (fdre-a2xx's ``fdasm`` at freedreno
  ea734436), words written by building it and assembling seven programs
  (tests/a2xx/data/fdre-words.txt): ALU fills as ``adreno`` (MAXs and a temp third
  source: ``0x140f8000 0x00000000 0x22000000``), but a full vertex fetch has prefetch
  count 1 and a mini fetch 0 (``0x89481000 0x00253b48``, then ``0x03482000
  0x40393a88``, where the driver it imitated writes 3 and 2: ``0x1d481000``,
  ``0x11482000``); the full fetch is the program's first instruction slot or none (a
  program that starts with an ALU instruction has only mini fetches: ``0x01481000
  0x40393a88``); a texture fetch whose text names no location samples at the centroid
  (d2 ``0x00000000``: ``0x10001001 0x1ffff688 0x00000000``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from . import isa


@dataclass(frozen=True, slots=True)
class Toolchain:
    """The fills of one compiler for the bits Mesa's text does not show."""

    name: str
    alu: Mapping[str, int]
    vertex_fetch: Mapping[str, int]  # a program's first vertex fetch
    vertex_mini_fetch: Mapping[str, int]  # the vertex fetches after it
    texture_fetch: Mapping[str, int]
    export_address_relative: bool  # relative_addr on an ALU instruction exporting eA
    vertex_cache_bits: bool  # an exec's vc bit set for each vertex fetch it runs
    high_constants: bool  # |Cn| is c(192+n): bit 6 set beside bit 7
    trailing_zero_slot: bool  # one all-zero slot after the last instruction
    # A one-source vector operation's unprinted src2 (None: it repeats src1).
    unused_src2: Mapping[str, int] | None = None
    export_constant_bit: bool = False  # d0 bit 14 on an export whose scalar is RETAIN_PREV
    # The full vertex fetch is the first instruction slot or none (else: the first
    # vertex fetch, wherever it is).
    full_fetch_in_first_slot_only: bool = False

    @property
    def full_or_mini(self) -> frozenset[str]:
        """The vertex fetch fields that tell the first fetch from later ones."""
        return frozenset(
            name
            for name, value in self.vertex_mini_fetch.items()
            if self.vertex_fetch.get(name) != value
        )


ADRENO = Toolchain(
    "adreno",
    isa.ALU_DEFAULTS,
    isa.VERTEX_FETCH_DEFAULTS,
    isa.VERTEX_MINI_FETCH_DEFAULTS,
    isa.TEXTURE_FETCH_DEFAULTS,
    export_address_relative=False,
    vertex_cache_bits=False,
    high_constants=False,
    trailing_zero_slot=False,
)
ADRENO_KERNEL = Toolchain(
    "adreno-kernel",
    isa.ALU_DEFAULTS,
    {**isa.VERTEX_FETCH_DEFAULTS, "is_index_rounded": 1},
    {**isa.VERTEX_MINI_FETCH_DEFAULTS, "signed_rf_mode_all": 1},
    isa.TEXTURE_FETCH_DEFAULTS,
    export_address_relative=False,
    vertex_cache_bits=False,
    high_constants=False,
    trailing_zero_slot=False,
)
_XDK_FETCH = {
    **isa.VERTEX_FETCH_DEFAULTS,
    "prefetch_count": 0,
    "is_mini_fetch": 0,
}
XDK = Toolchain(
    "xdk",
    isa.XDK_ALU_DEFAULTS,
    _XDK_FETCH,
    _XDK_FETCH,
    {**isa.TEXTURE_FETCH_DEFAULTS, "dimension": isa.FetchDimension.D2},
    export_address_relative=False,
    vertex_cache_bits=True,
    high_constants=True,
    trailing_zero_slot=True,
    unused_src2={"src2_reg": 0, "src2_sel": 1, "src2_swiz": 0, "src2_reg_negate": 0},
    export_constant_bit=True,
)
MESA = Toolchain(
    "mesa",
    isa.MESA_ALU_DEFAULTS,
    isa.VERTEX_FETCH_DEFAULTS,
    isa.VERTEX_MINI_FETCH_DEFAULTS,
    isa.TEXTURE_FETCH_DEFAULTS,
    export_address_relative=True,
    vertex_cache_bits=False,
    high_constants=False,
    trailing_zero_slot=False,
)
FDRE = Toolchain(
    "fdre",
    isa.ALU_DEFAULTS,
    {**isa.VERTEX_FETCH_DEFAULTS, "prefetch_count": 1},
    {**isa.VERTEX_MINI_FETCH_DEFAULTS, "prefetch_count": 0},
    {**isa.TEXTURE_FETCH_DEFAULTS, "sample_location": isa.SampleLocation.CENTROID},
    export_address_relative=False,
    vertex_cache_bits=False,
    high_constants=False,
    trailing_zero_slot=False,
    full_fetch_in_first_slot_only=True,
)


def writes_export_constants(v: Mapping[str, int]) -> bool:
    """An export whose scalar operation is RETAIN_PREV: its scalar write mask picks the
    components written as constants (Xenia's ``oPos.x001``); the XDK sets d0 bit 14 on
    it (the ``xdk`` evidence above; its listing's reader keeps the same rule)."""
    return bool(v["export_data"] and v["scalar_write_mask"]
                and v["scalar_opc"] == isa.ScalarOpcode.RETAIN_PREV)


def names_centroid(v: Mapping[str, int]) -> bool:
    """An ALU instruction without a scalar operation (RETAIN_PREV writing nothing) and
    without an export: in a pixel shader with a centroid interpolator the XDK names that
    interpolator's register as its scalar destination (evidence: xdk_asm's docstring).
    Mesa's text does not show it; a ``; xdk: centroid rN`` line gives N
    (a2xx-formats.md#xdk-notes)."""
    return bool(not v["export_data"] and not v["scalar_write_mask"]
                and v["scalar_opc"] == isa.ScalarOpcode.RETAIN_PREV)


TOOLCHAINS: Mapping[str, Toolchain] = {
    t.name: t for t in (ADRENO, ADRENO_KERNEL, XDK, MESA, FDRE)
}
