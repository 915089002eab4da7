"""The extension zip that build_extension.py makes: manifest, licence, the wheel it
lists, and an add-on that imports from the zip's folder."""

import importlib
import os
import subprocess
import sys
import tempfile
import tomllib
import unittest
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(os.path.dirname(HERE), "build_extension.py")


@unittest.skipUnless(os.environ.get("DASH_WHEEL"), "DASH_WHEEL (the dashvertex wheel) not set")
class ExtensionZipTest(unittest.TestCase):
    def test_zip_contents_and_import(self):
        """The zip has a valid manifest listing the bundled wheel, the GPL licence, and
        the add-on package, which registers from the unpacked folder."""
        wheel = os.environ["DASH_WHEEL"]
        with tempfile.TemporaryDirectory() as out:
            python = os.environ.get("DASH_PYTHON", "/usr/bin/python3")
            r = subprocess.run([python, BUILD, wheel, "-o", out], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            path = r.stdout.strip()
            self.assertTrue(path.endswith("-linux-x64.zip"), path)
            with zipfile.ZipFile(path) as z:
                names = set(z.namelist())
                manifest = tomllib.loads(z.read("blender_manifest.toml").decode())
                self.assertIn("GNU GENERAL PUBLIC LICENSE", z.read("LICENSE").decode()[:200])
                z.extractall(os.path.join(out, "pkg", "dash_ext_probe"))
            self.assertEqual(manifest["license"], ["SPDX:GPL-3.0-or-later"])
            self.assertEqual(manifest["wheels"], [f"./wheels/{os.path.basename(wheel)}"])
            for w in manifest["wheels"]:
                self.assertIn(w[2:], names)
            self.assertIn("__init__.py", names)
            sys.path.insert(0, os.path.join(out, "pkg"))
            try:
                mod = importlib.import_module("dash_ext_probe")
                self.assertEqual(mod.bl_info["blender"], (3, 4, 0))
                self.assertTrue(callable(mod.check) and callable(mod.limit) and callable(mod.export))
            finally:
                sys.path.pop(0)
                for name in [n for n in sys.modules if n.startswith("dash_ext_probe")]:
                    del sys.modules[name]
