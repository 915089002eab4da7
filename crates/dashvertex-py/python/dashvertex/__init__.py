"""dash from Python: skinned-vertex data (bone joints and weights per vertex).

- :func:`read` a glTF/GLB, DashVertex JSON, DMX or raw-records file into numpy arrays;
- :func:`validate` it as ``dash-validate`` does (the same report, the same JSON);
- :func:`reduce` influences to the strongest K per vertex, as ``dashvertex reduce``;
- :class:`Manifest`: stable bone indices across exports of a rig;
- :func:`reduce_file`, :func:`fix_file`, :func:`remap_file`, :func:`convert_file`: the
  ``dashvertex reduce``, ``fix``, ``remap`` and ``convert`` commands (the same jobs), from
  a path to written files, the same bytes.

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
    JobResult,
    Manifest,
    ManifestError,
    Model,
    OptionError,
    OutputError,
    Primitive,
    ReduceError,
    ReduceReport,
    Report,
    __version__,
    read,
    reduce,
    targets,
    validate,
    reduce_file,
    fix_file,
    remap_file,
    convert_file,
)

__all__ = [
    "Bones",
    "DashError",
    "DashIOError",
    "Diagnostic",
    "Difference",
    "FormatError",
    "JobResult",
    "Manifest",
    "ManifestError",
    "Model",
    "OptionError",
    "OutputError",
    "Primitive",
    "ReduceError",
    "ReduceReport",
    "Report",
    "__version__",
    "read",
    "reduce",
    "targets",
    "validate",
    "reduce_file",
    "fix_file",
    "remap_file",
    "convert_file",
]
