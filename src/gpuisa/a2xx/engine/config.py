"""The emulator's switches for the points on which its sources disagree
(a2xx-isa.md#adreno-vs-xenos, a2xx-isa.md#open-questions).

Two presets exist: ``"adreno"`` (freedreno/Mesa conventions, the default) and ``"xenos"``
(Xenia's reading of the Xbox 360 GPU).  Every switch can also be set on its own.

* ``scalar_b_lane`` - which lane of source 3's swizzle gives the *second* operand of a
  two-operand scalar op (ADDs, MULs, MAXs, SUBs, ...).  The first operand is always lane 3
  (W).  Default 2 (Z): xenia-canary PR #1149 reports that hardware reads Z, fixing a
  rendering bug; upstream Xenia reads lane 0 (X).  Mesa's encoder writes its operands to
  both lane pairs, so Mesa-compiled code gives the same result either way (a2xx-isa.md#scalar-ops).
* ``address_unit`` - unit of the vertex fetch ``STRIDE`` and ``OFFSET`` fields: Mesa
  patches bytes (``STRIDE(12)`` for a vec3 of floats, as in the freedreno wiki listing);
  KGSL's binaries and Xenos use dwords (a2xx-isa.md#adreno-vs-xenos, open question
  a2xx-isa.md#open-stride).
* ``mini_fetch`` - honour d1.30 of a vertex fetch as Xenos' *mini fetch* (reuse the
  previous full fetch's buffer, index and stride).  Adreno binaries set this bit on every
  fetch after the first, even across buffers, so the Adreno preset ignores it
  (a2xx-isa.md#vertex-fetch).
* ``abs_constants`` - d0 bit 7 of an ALU slot: Xenos takes the absolute value of constant
  operands; Adreno calls it ``low_precision_16b_fp`` and gpuisa ignores it
  (a2xx-isa.md#adreno-vs-xenos).
* ``wide_addresses`` - Xenia's 12-bit EXEC / 13-bit jump and loop addresses and signed
  23-bit vertex fetch offsets instead of Mesa's 9/10-bit addresses and 22-bit unsigned
  offsets (a2xx-isa.md#cf, a2xx-isa.md#vertex-fetch).
* ``half_floats`` - 16-bit float vertex data: ``"ieee"`` (exponent 31 = inf/NaN) or
  ``"xenos"`` (exponent 31 is an ordinary exponent, as Xenia's ``xenos_half_to_float``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from ...errors import InputError

Target = Literal["adreno", "xenos"]
TARGETS: tuple[str, ...] = ("adreno", "xenos")
ADDRESS_UNITS: tuple[str, ...] = ("bytes", "dwords")
HALF_FLOATS: tuple[str, ...] = ("ieee", "xenos")
SCALAR_B_LANES: tuple[int, ...] = (0, 2)


@dataclass(frozen=True, slots=True)
class EmulatorConfig:
    """How the emulator resolves the ISA's open questions; see the module docstring."""

    scalar_b_lane: int = 2
    address_unit: str = "bytes"
    mini_fetch: bool = False
    abs_constants: bool = False
    wide_addresses: bool = False
    half_floats: str = "ieee"

    def __post_init__(self) -> None:
        if self.scalar_b_lane not in SCALAR_B_LANES or isinstance(self.scalar_b_lane, bool):
            raise InputError(f"scalar_b_lane must be 2 (Z) or 0 (X), not {self.scalar_b_lane!r}")
        if self.address_unit not in ADDRESS_UNITS:
            raise InputError(f"address_unit must be 'bytes' or 'dwords', not {self.address_unit!r}")
        if self.half_floats not in HALF_FLOATS:
            raise InputError(f"half_floats must be 'ieee' or 'xenos', not {self.half_floats!r}")
        for name in ("mini_fetch", "abs_constants", "wide_addresses"):
            if not isinstance(getattr(self, name), bool):
                raise InputError(f"{name} must be True or False")

    @property
    def address_bytes(self) -> int:
        """Bytes per unit of the vertex fetch stride and offset."""
        return 1 if self.address_unit == "bytes" else 4

    @classmethod
    def for_target(cls, target: str = "adreno", **overrides: object) -> EmulatorConfig:
        """The preset for ``target`` with ``overrides`` applied."""
        if target not in TARGETS:
            raise InputError(f"target must be 'adreno' or 'xenos', not {target!r}")
        base = _XENOS if target == "xenos" else _ADRENO
        try:
            return replace(base, **overrides)  # type: ignore[arg-type]
        except TypeError as exc:
            raise InputError(f"unknown emulator setting: {exc}") from None


_ADRENO = EmulatorConfig()
_XENOS = EmulatorConfig(
    address_unit="dwords",
    mini_fetch=True,
    abs_constants=True,
    wide_addresses=True,
    half_floats="xenos",
)
