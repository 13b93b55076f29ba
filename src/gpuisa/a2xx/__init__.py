"""Adreno A2XX shader ISA tools."""
