"""Shared by the package's tests: the repository's golden vectors and a
bit-exact comparison."""

import os
from pathlib import Path

ROOT = Path(os.environ.get("WARP_REPO", Path(__file__).resolve().parents[3]))
VECTORS = ROOT / "tests/vectors"
REORDER_VECTORS = ROOT / "tests/vectors-reorder"
WIT = ROOT / "wit/planner.wit"
PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def differs(a, b, path="$"):
    """Path of the first difference (int vs float kept apart, floats by bits), or None."""
    if type(a) is not type(b):
        return f"{path} ({type(a).__name__} vs {type(b).__name__})"
    if isinstance(a, float):
        return None if a.hex() == b.hex() else f"{path} ({a!r} vs {b!r})"
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path} (length {len(a)} vs {len(b)})"
        for i, (x, y) in enumerate(zip(a, b)):
            d = differs(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    if isinstance(a, dict):
        if sorted(a) != sorted(b):
            return f"{path} (keys {sorted(a)} vs {sorted(b)})"
        for k in a:
            d = differs(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    return None if a == b else f"{path} ({a!r} vs {b!r})"
