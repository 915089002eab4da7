"""Build the Blender extension zip of the add-on, with the dashvertex wheels in it:

    python3 blender/build_extension.py WHEEL [WHEEL ...] [-o OUT_DIR]

The zip holds ``blender_manifest.toml`` (its ``wheels`` and ``platforms`` rewritten from
the wheels given), the add-on's modules, its licence and ``wheels/``. Blender 4.2+
installs it with Edit ▸ Preferences ▸ Get Extensions ▸ Install from Disk (or
``blender --command extension install-file``); Blender 3.4–4.1 can use the same folder
as a legacy add-on with the wheel's contents on its Python path.
"""

import argparse
import os
import re
import sys
import tomllib
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ADDON = os.path.join(HERE, "dashvertex_blender")

#: Wheel platform tag → Blender extension platform.
PLATFORMS = {
    "win_amd64": "windows-x64", "win_arm64": "windows-arm64",
    "macosx_x86_64": "macos-x64", "macosx_arm64": "macos-arm64",
}


def platform_of(wheel):
    """The Blender platform a wheel file is for (from its platform tag)."""
    tag = os.path.basename(wheel)[:-len(".whl")].split("-")[-1]
    if tag.startswith(("manylinux", "musllinux")):
        if not tag.endswith("x86_64"):
            raise SystemExit(f"{wheel}: only x86_64 Linux wheels map to a Blender platform")
        return "linux-x64"
    for key, value in PLATFORMS.items():
        if tag.startswith(key.split("_")[0]) and tag.endswith(key.split("_", 1)[-1]):
            return value
    raise SystemExit(f"{wheel}: no Blender platform for the tag {tag!r}")


def manifest_text(wheels):
    """The add-on's manifest with `wheels` and their platforms written in."""
    with open(os.path.join(ADDON, "blender_manifest.toml"), encoding="utf-8") as f:
        text = f.read()
    names = ", ".join(f'"./wheels/{os.path.basename(w)}"' for w in wheels)
    platforms = ", ".join(f'"{p}"' for p in sorted({platform_of(w) for w in wheels}))
    text = re.sub(r"(?m)^wheels = \[.*\]$", f"wheels = [{names}]", text)
    text = re.sub(r"(?m)^platforms = \[.*\]$", f"platforms = [{platforms}]", text)
    manifest = tomllib.loads(text)
    for key in ("schema_version", "id", "version", "name", "tagline", "maintainer", "type",
                "blender_version_min", "license"):
        if not manifest.get(key):
            raise SystemExit(f"blender_manifest.toml: {key} is missing or empty")
    return text, manifest


def build(wheels, out_dir):
    """Write the extension zip into `out_dir`; returns its path."""
    for w in wheels:
        if not (w.endswith(".whl") and os.path.isfile(w)):
            raise SystemExit(f"{w}: not a wheel file")
    if not any(os.path.basename(w).startswith("dashvertex-") for w in wheels):
        raise SystemExit("no dashvertex wheel given")
    text, manifest = manifest_text(wheels)
    platforms = "-".join(manifest["platforms"])
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{manifest['id']}-{manifest['version']}-{platforms}.zip")
    with zipfile.ZipFile(path + ".part", "w", zipfile.ZIP_DEFLATED) as z:
        for root, dirs, files in os.walk(ADDON):
            dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", "wheels"))
            for name in sorted(files):
                if name.endswith((".pyc", ".zip")) or name == "blender_manifest.toml":
                    continue
                full = os.path.join(root, name)
                z.write(full, os.path.relpath(full, ADDON))
        z.writestr("blender_manifest.toml", text)
        for w in wheels:
            z.write(w, f"wheels/{os.path.basename(w)}")
    os.replace(path + ".part", path)
    return path


def main(argv=None):
    """Command line: the wheels, then ``-o OUT_DIR`` (default ``blender/dist``)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("wheels", nargs="+", help="the dashvertex wheel(s) to bundle")
    p.add_argument("-o", "--out-dir", default=os.path.join(HERE, "dist"))
    args = p.parse_args(argv)
    print(build(args.wheels, args.out_dir))


if __name__ == "__main__":
    sys.exit(main())
