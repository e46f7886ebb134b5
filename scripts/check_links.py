#!/usr/bin/env python3
"""Fails, listing them, where a relative link of the README or docs/ (a file, or a heading anchor
in it), or a docs/ or README reference in the sources, scripts and Python package, does not
resolve. Anchors follow GitHub's rule: the heading lower-cased, punctuation but hyphens and
underscores dropped, spaces as hyphens, a repeated heading numbered -1, -2 ..."""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
REFERENCE = re.compile(r"\b((?:docs/[\w./-]+\.md|README\.md)(?:#[\w-]+)?)")
# A section named in words: a document, a comma, the section's name in quotes.
SECTION = re.compile(r"\b(README(?:\.md)?|docs/[\w./-]+\.md),\s*['\"]([^'\"]+)['\"]")


def headings(markdown: pathlib.Path) -> list:
    """The headings, and the bold leads that open paragraphs or list items ("**Search.** ...")."""
    fenced, out = False, []
    for line in markdown.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            out.append(line.lstrip("#").strip())
        elif not fenced:
            lead = re.match(r"^\s*(?:[-*]|\d+\.)?\s*\*\*([^*]+)\*\*", line)
            if lead:
                out.append(lead.group(1))
    return out


def anchors(markdown: pathlib.Path) -> set:
    found, seen, fenced = set(), {}, False
    for line in markdown.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if fenced or not line.startswith("#"):
            continue
        text = line.lstrip("#").strip().lower()
        slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def problem(source: pathlib.Path, target: str, base: pathlib.Path):
    path, _, anchor = target.partition("#")
    resolved = (base / path).resolve() if path else source
    if not resolved.exists():
        return f"{target}: no such file"
    if anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
        return f"{target}: no heading '#{anchor}' in {resolved.relative_to(root)}"
    return None


failures = []
for md in [root / "README.md", root / "CHANGELOG.md", *sorted((root / "docs").glob("*.md"))]:
    for target in LINK.findall(md.read_text(encoding="utf-8")):
        if re.match(r"^[a-z]+:", target) or target.startswith("mailto:"):
            continue
        why = problem(md, target, md.parent)
        if why:
            failures.append(f"{md.relative_to(root)}: {why}")
code = [p for d in ("include", "src", "apps", "python", "scripts", "examples", "test", "fuzz")
        for p in (root / d).rglob("*") if p.suffix in (".h", ".hpp", ".cpp", ".cu", ".cuh", ".py", ".sh", ".pyi")]
for source in sorted(p for p in code if p != pathlib.Path(__file__).resolve()):
    text = source.read_text(encoding="utf-8", errors="replace")
    for target in REFERENCE.findall(text):
        why = problem(source, target, root)
        if why:
            failures.append(f"{source.relative_to(root)}: {why}")
    for document, section in SECTION.findall(text):
        path = root / (document if document.endswith(".md") else document + ".md")
        if not path.exists() or not any(section.lower() in h.lower() for h in headings(path)):
            failures.append(f"{source.relative_to(root)}: {document}, '{section}': no such section")
if failures:
    print("\n".join(failures), file=sys.stderr)
    print(f"check_links: {len(failures)} links or references do not resolve", file=sys.stderr)
    sys.exit(1)
print("check_links: every relative link and docs/README reference resolves")
