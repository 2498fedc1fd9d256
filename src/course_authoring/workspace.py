"""The learner's workspace: their own copies of the lessons and exercises, never overwritten.

Lesson: none; this is what ``make lab`` runs before it opens JupyterLab in the workspace.
``python -m course_authoring.workspace --root . --workspace workspace`` copies into the workspace
(a folder git ignores) every lesson ``notebooks/NN_*.ipynb``, every exercise
``exercises/NN_*_exercises.ipynb`` and the ``scripts/`` notebook 08 launches, but only the ones
missing there: a file the learner already has is never replaced. When the course has changed a
file since it was copied, the fresh copy goes next to the learner's as ``NAME (updated).ipynb``
(only if that name is free) and the run says so; the learner's own file stays as it was.

The workspace holds ``.ipynb`` files only (one entry per lesson in JupyterLab's file browser) and
a ``.jupytext.toml`` that turns pairing off there, so saving never adds a ``.py`` twin. The
kernel imports ``course_utils`` from the environment, so a notebook runs from the workspace as
it does from ``notebooks/``; its working folder is the workspace, where ``scripts/`` is copied.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

MANIFEST = ".course-workspace.json"  # what the course's copy of each file was when last handed over
JUPYTEXT_CONFIG = ".jupytext.toml"
JUPYTEXT_TEXT = (
    "# The workspace holds notebooks only: no .py twin is written when you save.\n"
    "# (The course's own folders pair each notebook with a .py file; see ../jupytext.toml.)\n"
    'formats = "ipynb"\n'
)


@dataclass(frozen=True)
class FileAction:
    """What happened to one course file."""

    name: str  # the path inside the workspace
    action: str  # "copied" | "kept" | "updated-copy" | "update-waiting"
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.action:14s} {self.name}" + (f"  ({self.detail})" if self.detail else "")


def course_files(root: Path) -> dict[str, Path]:
    """Every file a workspace holds, by its name inside the workspace."""
    files = {}
    for pattern in ("notebooks/[0-9][0-9]_*.ipynb", "exercises/[0-9][0-9]_*_exercises.ipynb"):
        for path in sorted(root.glob(pattern)):
            files[path.name] = path
    scripts = root / "src" / "course_utils" / "scripts"  # notebook 08's, shipped in the package too
    for path in sorted(scripts.glob("*.py")) if scripts.is_dir() else ():
        files[f"scripts/{path.name}"] = path
    if not files:
        raise ValueError(
            f"No course notebooks under {root} (looked for notebooks/NN_*.ipynb and exercises/). "
            "Run this from the course's folder (the one with the Makefile), or pass --root."
        )
    return files


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def updated_name(name: str) -> str:
    """Where a fresh copy goes when the learner has their own: ``NAME (updated).ipynb``."""
    path = Path(name)
    return str(path.with_name(f"{path.stem} (updated){path.suffix}"))


def sync(root: Path, workspace: Path) -> list[FileAction]:
    """Copy the course files missing from ``workspace``; offer updates beside the learner's files.

    Never writes over an existing file: a learner's copy, an earlier ``(updated)`` copy, anything.
    """
    workspace.mkdir(parents=True, exist_ok=True)
    manifest_path = workspace / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        manifest = {}
    config = workspace / JUPYTEXT_CONFIG
    if not config.exists():
        config.write_text(JUPYTEXT_TEXT, encoding="utf-8")

    steps = []
    for name, source in course_files(root).items():
        target = workspace / name
        digest = _digest(source)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            manifest[name] = digest
            steps.append(FileAction(name, "copied"))
        elif manifest.get(name) == digest or _digest(target) == digest:
            manifest[name] = digest
            steps.append(FileAction(name, "kept"))
        else:
            # The course's file changed since the learner got theirs (or the record of it is lost):
            # hand over the fresh one beside it, under a free name only.
            fresh = workspace / updated_name(name)
            if not fresh.exists():
                shutil.copyfile(source, fresh)
            if _digest(fresh) == digest:
                manifest[name] = digest
                steps.append(FileAction(name, "updated-copy", f"the course changed it: the new version is {fresh.name}; yours is unchanged"))
            else:
                # Both names are the learner's now: say how to get the new version, write nothing.
                steps.append(
                    FileAction(
                        name,
                        "update-waiting",
                        f"the course changed it and {fresh.name} is taken; to get the new version: "
                        f"cp '{source}' '{workspace / updated_name(updated_name(name))}'",
                    )
                )
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path("."), help="the course's folder (with notebooks/)")
    parser.add_argument("--workspace", type=Path, default=Path("workspace"))
    args = parser.parse_args(argv)
    try:
        steps = sync(args.root, args.workspace)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    copied = [s for s in steps if s.action == "copied"]
    if copied:
        print(f"{args.workspace}/: copied {len(copied)} course file(s) you did not have yet")
    for step in steps:
        if step.action in ("updated-copy", "update-waiting"):
            print(f"{args.workspace}/{step}")
    print(f"Your workspace is {args.workspace}/: your answers there are yours; no make target overwrites them.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
