"""Keeps one copy of each golden file: a file of testdata/golden/<lang>/ whose bytes equal
the C++ driver's file of the same name becomes a relative link to it (docs/protocol.md,
golden files). Run it after writing a language's files afresh:

    rm -rf testdata/golden/go && drivers/go/bin/wirebench-go golden write testdata/golden/go
    uv run python scripts/golden-links.py

(Writing into a folder of links would write through them into the C++ driver's files.)
tests/test_golden.py holds the folder to this: no two regular files alike, every link to
an equal file of the reference.
"""

import filecmp
import sys
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent.parent / "testdata" / "golden"
REFERENCE = "cpp"


def link_duplicates(golden: Path = GOLDEN) -> list[Path]:
    """Replaces every file equal to the reference's by a link to it; the files linked."""
    linked = []
    for lang in sorted(p for p in golden.iterdir() if p.is_dir() and p.name != REFERENCE):
        for f in sorted(lang.iterdir()):
            ref = golden / REFERENCE / f.name
            if f.is_symlink() or not ref.is_file():
                continue
            if filecmp.cmp(f, ref, shallow=False):
                f.unlink()
                f.symlink_to(Path("..") / REFERENCE / f.name)
                linked.append(f)
    return linked


if __name__ == "__main__":
    done = link_duplicates()
    print(f"{len(done)} golden files linked to testdata/golden/{REFERENCE}/", file=sys.stderr)
