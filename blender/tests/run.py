"""Run the add-on's tests inside Blender:

    blender -b --factory-startup --python-exit-code 1 --python blender/tests/run.py

``dashvertex`` must be importable (its wheel's contents on PYTHONPATH) and the
``dashvertex`` binary built (``$DASH_BIN_DIR`` or the repository's target/). Exits 1 on
any failure, and when no test ran.
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]


def main():
    """Register the add-on, run every ``test_*.py`` here, exit with the outcome."""
    import dashvertex_blender

    dashvertex_blender.register()
    try:
        suite = unittest.defaultTestLoader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
        result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    finally:
        dashvertex_blender.unregister()
    if result.testsRun == 0 or not result.wasSuccessful():
        sys.exit(1)


main()
