"""The arithmetic of the PICA200 shader ALU, written once.

:mod:`.primitives` holds one plain-Python scalar function per hardware rule (float24
rounding, flushing, the PICA multiply, MIN/MAX, RCP/RSQ/EX2/LG2, ...), each citing its
source and naming its compiled realisation in :mod:`..compiled.lower`.  :mod:`.recipes`
writes each ALU opcode once as a composition of those rules on an arithmetic object
``m``; :mod:`.scalar` is the ``m`` that computes on Python floats (the reference
engine) and :mod:`.tree` the ``m`` that builds a tree of the rules, which the compiled
engine lowers to LLVM IR (:mod:`..compiled.alu`).
"""
