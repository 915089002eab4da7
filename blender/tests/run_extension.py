"""Run the add-on's tests on the extension zip, installed the way Blender 4.2+ installs
extensions (its wheel unpacked into the extension's own site-packages):

    BLENDER_USER_RESOURCES=$(mktemp -d) DASH_EXTENSION_ZIP=blender/dist/….zip \\
        python3 blender/tests/run_extension.py        # Python with the PyPI bpy module (4.2+)

(or ``blender -b --factory-startup --python blender/tests/run_extension.py`` with a
Blender 4.2+ binary). ``BLENDER_USER_RESOURCES`` keeps the install out of the user's
own configuration. Exits 1 on any failure, and when no test ran.
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
EXTENSION = "bl_ext.user_default.dashvertex_blender"


def install(zip_path):
    """Install and enable the extension zip; returns the add-on module."""
    import bpy

    if bpy.app.version < (4, 2, 0):
        raise SystemExit(f"Blender {bpy.app.version_string} has no extensions (4.2+)")
    result = bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default",
                                                      enable_on_install=True)
    if result != {"FINISHED"} or EXTENSION not in sys.modules:
        raise SystemExit(f"the extension did not install: {result}")
    return sys.modules[EXTENSION]


def main():
    """Install the zip, make the tests' ``dashvertex_blender`` the installed extension,
    run every ``test_addon*.py`` here, exit with the outcome."""
    zip_path = os.environ.get("DASH_EXTENSION_ZIP")
    if not zip_path:
        raise SystemExit("DASH_EXTENSION_ZIP is not set")
    module = install(os.path.abspath(zip_path))
    sys.modules["dashvertex_blender"] = module
    sys.path.insert(0, HERE)
    suite = unittest.defaultTestLoader.discover(HERE, pattern="test_addon*.py", top_level_dir=HERE)
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    code = 1 if result.testsRun == 0 or not result.wasSuccessful() else 0
    # The PyPI bpy 4.2.23 module crashes (SIGSEGV) while the interpreter shuts down once
    # the glTF exporter has run, even for the default cube alone
    # (bpy.ops.export_scene.gltf(filepath="cube.glb") then exit): leave before that.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    main()
