"""Control flow of one shader lane, written once for every engine.

:mod:`.stacks` is the stack machine (IF/CALL/LOOP ring buffers, what each flow
instruction pushes, the check after every instruction); :mod:`.emission` is the geometry
unit's SETEMIT/EMIT state (vertex buffer, primitive emission, output banking).  Both are
plain Python functions on flat integer sequences: the reference engine calls them as
they are (on lists), the compiled engine's LLVM IR realises them a second time (tested
against them: ``compiled.flowir``, ``compiled.emissionir``), and the assembler's lint
and ``pica check`` use them to follow paths.
That is why this package sits beside :mod:`..isa`, below the assembler, rather than in
:mod:`..engine`.
"""
