"""The whole suite, in its fixed order: facts first, then breadth."""

from __future__ import annotations

from collections.abc import Iterator

from .catalog_facts import choice_groups, hardware_groups, seed_groups
from .catalog_flow import flow_groups, geometry_groups, random_groups
from .catalog_ops import operand_groups
from .spec import Group

#: Version of the suite's contents and format; bump when either changes.
SUITE_VERSION = 2  # 2: semantic attributes after the output map


def groups() -> Iterator[Group]:
    yield from seed_groups()
    yield from hardware_groups()
    yield from choice_groups()
    yield from operand_groups()
    yield from flow_groups()
    yield from geometry_groups()
    yield from random_groups()
