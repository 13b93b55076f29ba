"""The whole suite, in its fixed order: the cases backed by a source first, then breadth."""

from __future__ import annotations

from collections.abc import Iterator

from .catalog_fetch import texture_groups, vertex_format_groups
from .catalog_flow import flow_groups
from .catalog_ops import scalar_groups, vector_groups
from .catalog_sources import source_groups
from .spec import Draft

#: Version of the suite's contents and format; bump when either changes.
SUITE_VERSION = 1


#: The catalogs, in the suite's order.
CATALOGS = (source_groups, vector_groups, scalar_groups, flow_groups, vertex_format_groups,
            texture_groups)


def drafts() -> Iterator[Draft]:
    for catalog in CATALOGS:
        yield from catalog()
