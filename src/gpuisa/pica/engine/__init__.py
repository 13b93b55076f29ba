"""Bit-exact PICA200 shader emulation.

:func:`run` executes a vertex or geometry shader; :func:`run_pipeline` runs a vertex
shader followed by a geometry shader of the same SHBIN, as the PICA does.  The math of
every opcode is in :mod:`.rules` (primitive rules and one recipe per opcode), control
flow in :mod:`..flow`.  The reference engine (:mod:`.reference`) executes one invocation
at a time in plain Python; the compiled engine (:mod:`.compiled.runner`) compiles each program to
machine code with LLVM.  ``engine="auto"`` (the default) picks the one expected to finish first
(:mod:`.choice`).
"""

from ...errors import ShaderFault
from .api import ENGINES, RunResult, register_engine, run
from .pipeline import PipelineResult, run_pipeline
from .values import F24Bits

__all__ = ["ENGINES", "F24Bits", "PipelineResult", "RunResult", "ShaderFault",
           "register_engine", "run", "run_pipeline"]
