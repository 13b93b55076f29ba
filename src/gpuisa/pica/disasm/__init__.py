"""PICA200 disassembler: SHBIN -> picasso-syntax source that assembles back exactly.

The text is ordinary picasso source plus, only where needed, the gpuisa extensions of
``docs/assembly-extensions.md`` (``.word``, ``.opdesc``, explicit uniform placement,
``.unit``).  Design:

* every DVLE becomes a translation unit with its declarations recovered from the DVLE
  tables (uniforms and inputs as aliases at their registers, constants as
  ``.setf``/``.seti``/``.setb`` in table order, outputs in table order, ``.gsh``), and
  the raw directives for whatever those cannot rebuild exactly (:mod:`.tables`),
  so that the text assembles to the same SHBIN for every file the reader accepts
  without warnings;
* flow control becomes picasso blocks, procedures and labels (:mod:`.structure`);
* swizzles print every selector bit, so the operand-descriptor table that picasso's
  allocator rebuilds is the file's table; when it would not be (files from other
  toolchains), the table is pinned with ``.opdesc`` and any instruction whose descriptor
  first-fit would not pick is printed as ``.word``.

:func:`disassemble` is in :mod:`.disassembler` (units, descriptors, the text); one
instruction's text is :mod:`.syntax`'s.
"""

from .disassembler import disassemble

__all__ = ["disassemble"]
