"""Program analysis shared by the assembler's warnings and ``pica check``: what each
instruction word reads and writes (:mod:`.effects`), every execution path of an entry
point under the hardware's control-flow rules (:mod:`.explore`), the decisions taken on
those paths (:mod:`.flow`), and the DVLE-level view of a program (:mod:`.model`).  It
reads the ISA table, decoded words and SHBIN records only: the assembler (a layer below
the tools) can use it."""
