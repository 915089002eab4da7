"""dash from Python: skinned-vertex data (bone joints and weights per vertex).

- :func:`read` a glTF/GLB, DashVertex JSON, DMX or raw-records file into numpy arrays;
- :func:`validate` it as ``dash-validate`` does (the same report, the same JSON);
- :func:`reduce` influences to the strongest K per vertex, as ``dashvertex reduce``;
- :class:`Manifest`: stable bone indices across exports of a rig.

Every failure on bad input or options raises :class:`DashError` (or a subclass), with a
stable ``.code`` and the location.
"""

from dashvertex._core import (
    Bones,
    DashError,
    DashIOError,
    Diagnostic,
    Difference,
    FormatError,
    Manifest,
    ManifestError,
    Model,
    OptionError,
    Primitive,
    ReduceError,
    ReduceReport,
    Report,
    __version__,
    read,
    reduce,
    targets,
    validate,
)

__all__ = [
    "Bones",
    "DashError",
    "DashIOError",
    "Diagnostic",
    "Difference",
    "FormatError",
    "Manifest",
    "ManifestError",
    "Model",
    "OptionError",
    "Primitive",
    "ReduceError",
    "ReduceReport",
    "Report",
    "__version__",
    "read",
    "reduce",
    "targets",
    "validate",
]
