#!/usr/bin/env python3
"""Adds a collector's first-sight batch to the real-world corpus.

    bench/first_sight_merge.py N OUT [OUT...]

Each OUT is a collector's output as bench/first_sight_collectors.md describes it: OUT/files/<kind>/...
(the copied files), OUT/expected.json (the facts each must yield) and OUT/SOURCES.md (where each
came from). The files are copied into tests/data/realworld/, the entries written to
tests/data/realworld/fresh<N>-expected.json and the sources appended to SOURCES.md under a heading
for batch N. An entry whose file is byte for byte one the corpus already holds is left out (with
its folder's other files, if no other entry uses them) and the copy named: a file the project has
used is no first sight, whatever its name. Nothing is written when a file would overwrite one already there, an entry names a file
the batch does not hold, an entry is listed twice, or the batch exists.
"""
import datetime
import hashlib
import json
import os
import shutil
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "realworld")


def files_of(out):
    base = os.path.join(out, "files")
    for folder, _, names in os.walk(base):
        for name in names:
            yield os.path.relpath(os.path.join(folder, name), base)


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def corpus_digests():
    held = {}
    for folder, _, names in os.walk(ROOT):
        for name in names:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, ROOT)
            if rel in ("SOURCES.md", "expected.json") or rel.endswith("-expected.json"):
                continue
            held.setdefault(digest(path), rel)
    return held


def entry_files(rel, held):
    """The files an entry brings: its own, or every file of its folder (<kind>/<folder>/...)."""
    parts = rel.split("/")
    if len(parts) <= 2:
        return [rel]
    folder = "/".join(parts[:2]) + "/"
    return [f for f in held if f.startswith(folder)]


def refusal_lines(where, entry):
    """`entry` with its refused_at (and its alternatives') as the scorer reads them, a list of line
    numbers written as strings; collectors also write them as integers."""
    for alt in entry.get("any_of", []):
        refusal_lines(where, alt)
    if "refused_at" not in entry:
        return
    lines = entry["refused_at"]
    if not isinstance(lines, list):
        lines = [lines]
    for line in lines:
        if isinstance(line, bool) or not isinstance(line, (int, str)) or not str(line).isdigit():
            sys.exit(f"{where}: refused_at {json.dumps(entry['refused_at'])}: expected line numbers")
    entry["refused_at"] = [str(line) for line in lines]


def main(argv):
    if len(argv) < 3 or not argv[1].isdigit():
        sys.exit(__doc__)
    batch, outs = argv[1], argv[2:]
    manifest = os.path.join(ROOT, f"fresh{batch}-expected.json")
    if os.path.exists(manifest):
        sys.exit(f"{manifest}: batch {batch} exists")
    corpus = corpus_digests()
    entries, sources, copies = {}, [], []
    for out in outs:
        path = os.path.join(out, "expected.json")
        try:
            with open(path, encoding="utf-8") as f:
                expected = json.load(f)
        except OSError as e:
            sys.exit(f"{path}: {e.strerror}")
        except json.JSONDecodeError as e:
            sys.exit(f"{path}:{e.lineno}:{e.colno}: not JSON: {e.msg}")
        if not isinstance(expected, dict):
            sys.exit(f"{path}: expected a JSON object of entries by file")
        held = set(files_of(out))
        for rel in expected:
            if rel not in held:
                sys.exit(f"{out}/expected.json: {rel} names no file of the batch")
            if rel in entries:
                sys.exit(f"{out}/expected.json: {rel} is listed twice")
            if not isinstance(expected[rel], dict):
                sys.exit(f"{out}/expected.json: {rel}: expected an object of facts")
            refusal_lines(f"{out}/expected.json: {rel}", expected[rel])
        dropped = []
        for rel in expected:
            known = corpus.get(digest(os.path.join(out, "files", rel)))
            if known is not None:
                print(f"left out {rel}: byte for byte the corpus's {known}")
                dropped.append(rel)
        kept = [rel for rel in expected if rel not in dropped]
        used = set(dropped)
        for rel in dropped:  # its folder's other files, unless a kept entry shares the folder
            for f in entry_files(rel, held):
                if not any(f in entry_files(k, held) for k in kept):
                    used.add(f)
        expected = {rel: e for rel, e in expected.items() if rel not in dropped}
        for rel in sorted(held - used):
            if os.path.exists(os.path.join(ROOT, rel)):
                sys.exit(f"{out}: {rel} is already in tests/data/realworld")
            copies.append((os.path.join(out, "files", rel), os.path.join(ROOT, rel)))
        entries.update(expected)
        if not os.path.isfile(os.path.join(out, "SOURCES.md")):
            sys.exit(f"{out}/SOURCES.md: missing (a line of sources for every file)")
        with open(os.path.join(out, "SOURCES.md"), encoding="utf-8") as f:
            lines = [l for l in f.read().splitlines()
                     if l.startswith("- ") and not any(l.startswith(f"- `{u}`") for u in used)]
        sources.append(f"# Sources (batch {os.path.basename(os.path.normpath(out))})")
        sources += lines
    for src, dest in copies:
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(src, dest)
    tmp = manifest + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(entries, f, indent=1, ensure_ascii=False)
        f.write("\n")
    os.replace(tmp, manifest)  # written whole or not at all
    with open(os.path.join(ROOT, "SOURCES.md"), "a", encoding="utf-8") as f:
        f.write(f"\n### Batch {batch} (first-sight, collected {datetime.date.today()})\n\n")
        f.write("\n".join(sources) + "\n")
    print(f"{manifest}: {len(entries)} entries, {len(copies)} files")


if __name__ == "__main__":
    main(sys.argv)
