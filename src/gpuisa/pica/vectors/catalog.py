"""The whole suite, in its fixed order: facts first, then breadth."""

from __future__ import annotations

from collections.abc import Iterator

from .catalog_facts import choice_groups, seed_groups
from .catalog_flow import flow_groups, geometry_groups, random_groups
from .catalog_hardware import hardware_groups, reported_groups
from .catalog_ops import operand_groups
from .spec import Group

#: Version of the suite's contents and format; bump when either changes.
SUITE_VERSION = 4
# 2: semantic attributes after the output map
# 3: "hardware" only for inputs a cited hardware test program feeds (issue 27); the rest
#    of the former hw/ cases are seed/ or model/ cases
# 4: cases whose f24 expectation depends on the float24 rounding carry both
#    (cases.jsonl "f24_by_rounding")


#: The catalogs, in the suite's order.
CATALOGS = (seed_groups, hardware_groups, reported_groups, choice_groups, operand_groups,
            flow_groups, geometry_groups, random_groups)


def groups() -> Iterator[Group]:
    for catalog in CATALOGS:
        yield from catalog()
