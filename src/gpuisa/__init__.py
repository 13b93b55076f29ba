"""gpuisa: tools for the PICA200 (Nintendo 3DS) and Adreno A2XX shader ISAs."""

from .errors import GpuIsaError

__version__ = "0.1.0"
__all__ = ["GpuIsaError", "__version__"]
