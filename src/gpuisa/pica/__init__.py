"""PICA200 (Nintendo 3DS) shader ISA tools."""

from .program import Program

__all__ = ["Program"]
