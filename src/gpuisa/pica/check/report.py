"""Findings as text (compiler style), JSON, or SARIF 2.1.0 (what code-scanning services
read)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from ... import __version__
from ...errors import Diagnostic, SourceLocation
from .findings import BinarySpot, Finding, Severity, SourceSpot
from .registry import CHECKS

FORMATS = ("text", "json", "sarif")
_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}
_SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def render_text(f: Finding) -> str:
    label = f"{f.severity.label}: {f.message} [{f.check}]"
    w = f.where
    if isinstance(w, SourceSpot):
        text = Diagnostic(f.severity.label, f"{f.message} [{f.check}]",
                          SourceLocation(w.file, w.line, w.column), w.text, w.length).render()
        if f.note:
            text += f"\n{w}: note: {f.note}"
        return text + _related_text(f)
    text = f"{w}: {label}"
    if w.address is not None and w.word is not None:
        text += f"\n  {w.address:03X}: {w.word:08X}  {w.disassembly}"
    if f.note:
        text += f"\n{w}: note: {f.note}"
    return text + _related_text(f)


def _related_text(f: Finding) -> str:
    """The related places as notes, as a compiler prints the other places of one error."""
    return "".join(f"\n{r.where}: note: {r.message}" for r in f.related)





def summary(findings: Sequence[Finding]) -> str:
    counts = [sum(1 for f in findings if f.severity is s) for s in reversed(Severity)]
    parts = [f"{n} {s.label}{'s' if n != 1 else ''}" for n, s in zip(counts, reversed(Severity),
                                                                     strict=True)]
    return ", ".join(parts)


def _place(w: SourceSpot | BinarySpot) -> dict:
    if isinstance(w, SourceSpot):
        return {"file": w.file, "line": w.line, "column": w.column}
    place: dict = {"file": w.file}
    if w.dvle is not None:
        place["dvle"] = w.dvle
    if w.address is not None:
        place["address"] = w.address
    if w.word is not None:
        place.update(word=f"{w.word:08X}", disassembly=w.disassembly)
    return place


def to_json(findings: Sequence[Finding]) -> str:
    items = [{"id": f.check, "severity": f.severity.label, "title": CHECKS[f.check].title,
              "message": f.message, "note": f.note, **_place(f.where),
              "related": [{"message": r.message, **_place(r.where)} for r in f.related]}
             for f in findings]
    return json.dumps({"tool": "pica check", "version": __version__, "findings": items},
                      indent=2) + "\n"


def _uri(path: str) -> str:
    return path.replace("\\", "/")


def _sarif_location(w: SourceSpot | BinarySpot) -> dict:
    physical: dict = {"artifactLocation": {"uri": _uri(w.file)}}
    if isinstance(w, SourceSpot):
        region: dict = {"startLine": w.line, "startColumn": w.column,
                        "endColumn": w.column + w.length}
        if w.text is not None:
            region["snippet"] = {"text": w.text}
        physical["region"] = region
    elif w.address is not None:
        # program addresses count 32-bit words from the start of the shader program
        physical["address"] = {"absoluteAddress": w.address, "kind": "instruction",
                               "name": f"0x{w.address:03X}"}
    location: dict = {"physicalLocation": physical}
    if isinstance(w, BinarySpot) and w.dvle is not None:
        location["logicalLocations"] = [{"name": f"DVLE {w.dvle}", "kind": "module"}]
    return location


def to_sarif(findings: Sequence[Finding]) -> str:
    ids = sorted(CHECKS)
    rules = [{"id": c.id, "name": c.title.replace(" ", "-"),
              "shortDescription": {"text": c.title},
              "fullDescription": {"text": c.explain},
              "help": {"text": f"{c.explain}\nSource: {c.source}"},
              "defaultConfiguration": {"level": _SARIF_LEVEL[c.severity],
                                       "enabled": c.default}}
             for c in (CHECKS[i] for i in ids)]
    results = []
    for f in findings:
        message = f.message + (f" ({f.note})" if f.note else "")
        result = {"ruleId": f.check, "ruleIndex": ids.index(f.check),
                  "level": _SARIF_LEVEL[f.severity], "message": {"text": message},
                  "locations": [_sarif_location(f.where)]}
        if f.related:
            result["relatedLocations"] = [
                {"id": k, **_sarif_location(r.where), "message": {"text": r.message}}
                for k, r in enumerate(f.related)]
        results.append(result)
    log = {"$schema": _SARIF_SCHEMA, "version": "2.1.0",
           "runs": [{"tool": {"driver": {"name": "pica check", "version": __version__,
                                         "rules": rules}},
                     "results": results}]}
    return json.dumps(log, indent=2) + "\n"


def render(findings: Sequence[Finding], fmt: str) -> str:
    if fmt == "json":
        return to_json(findings)
    if fmt == "sarif":
        return to_sarif(findings)
    return "".join(render_text(f) + "\n" for f in findings)
