"""The type stubs agree with the built module (mypy's stubtest), and every public name
has a docstring."""

from __future__ import annotations

import inspect
import subprocess
import sys

import dashvertex


def test_stubtest_agrees_with_the_runtime(tmp_path) -> None:
    # From an empty folder: mypy must find the installed package only.
    r = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "dashvertex"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_every_public_name_has_a_docstring() -> None:
    missing = []
    for name in dashvertex.__all__:
        obj = getattr(dashvertex, name)
        if name == "__version__":
            continue
        if not (obj.__doc__ or "").strip():
            missing.append(name)
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            for member, value in vars(obj).items():
                if member.startswith("_"):
                    continue
                if not (getattr(value, "__doc__", None) or "").strip():
                    missing.append(f"{name}.{member}")
    assert not missing, missing
