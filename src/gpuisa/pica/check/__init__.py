"""``pica check``: static analysis of PICA200 shaders, in sources or SHBIN files.

>>> from gpuisa import pica
>>> for finding in pica.check([("shader.v.pica", text)]):
...     print(finding.check, finding.message)

Checks, their identifiers and ``--explain`` texts: :mod:`.registry`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .findings import BinarySpot, Finding, Severity, SourceSpot
from .registry import CHECKS, CheckInfo, explain

if TYPE_CHECKING:
    from .api import CheckInput

__all__ = ["CHECKS", "BinarySpot", "CheckInfo", "Finding", "Severity", "SourceSpot", "check",
           "explain"]


def check(target: CheckInput, **options) -> list[Finding]:
    """Every finding for ``target`` (see :func:`.api.check`).  Imported lazily: the
    assembler's linter imports this package's exploration."""
    from .api import check as run

    return run(target, **options)
