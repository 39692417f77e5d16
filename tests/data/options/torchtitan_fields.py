#!/usr/bin/env python3
"""Prints the options of a torchtitan configuration source read on stdin, one section.field a line.

A torchtitan/config/job_config.py (or config_manager.py) is walked from its JobConfig dataclass,
nested dataclasses joined with '.'; a torchtitan/config/configs.py (main after 2026-02, Python
configurations) gives the fields of the sections Trainer.Config takes from it. For example:

    git show 5e60eac3d:torchtitan/config/job_config.py | python3 torchtitan_fields.py
"""
import ast
import sys

CONFIGS_SECTIONS = {"TrainingConfig": "training", "ParallelismConfig": "parallelism",
                    "CompileConfig": "compile", "CommConfig": "comm", "DebugConfig": "debug"}


def fields(cls):
    for st in cls.body:
        if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
            yield st.target.id, st.annotation


def type_name(ann):
    if isinstance(ann, ast.Name):
        return ann.id
    if isinstance(ann, ast.Attribute):
        return ann.attr
    if isinstance(ann, ast.Subscript):  # Annotated[X, ...]
        inner = ann.slice.elts[0] if isinstance(ann.slice, ast.Tuple) else ann.slice
        return type_name(inner)
    return None


def main():
    tree = ast.parse(sys.stdin.read())
    classes = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    out = set()

    def walk(cls, prefix, depth):
        for name, ann in fields(cls):
            t = type_name(ann)
            if t in classes and t != cls.name and depth < 4:
                walk(classes[t], prefix + name + ".", depth + 1)
            else:
                out.add(prefix + name)

    if "JobConfig" in classes:
        walk(classes["JobConfig"], "", 0)
    else:
        for cls_name, section in CONFIGS_SECTIONS.items():
            if cls_name in classes:
                out.update(section + "." + name for name, _ in fields(classes[cls_name]))
    print("\n".join(sorted(out)))


if __name__ == "__main__":
    main()
