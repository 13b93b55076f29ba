"""``pica check``: static analysis of PICA200 shaders, in sources or SHBIN files.

>>> from gpuisa import pica
>>> for finding in pica.check([("shader.v.pica", text)]):
...     print(finding.check, finding.message)

Checks, their identifiers and ``--explain`` texts: :mod:`.registry`.
"""

from __future__ import annotations

from .api import CheckInput, check
from .findings import BinarySpot, Finding, Severity, SourceSpot
from .registry import CHECKS, CheckInfo, explain

__all__ = ["CHECKS", "BinarySpot", "CheckInfo", "CheckInput", "Finding", "Severity",
           "SourceSpot", "check", "explain"]
