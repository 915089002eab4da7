"""Type stubs of dashvertex's native module (hand-written; tests/test_stubs.py runs
mypy's stubtest against the built module, so they cannot drift from it)."""

import os
from typing import Any, Optional, Sequence, Tuple, Union, final

from typing_extensions import TypeAlias

import numpy as np
import numpy.typing as npt

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
    "JobResult",
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

__version__: str

_Source: TypeAlias = Union[str, os.PathLike[str], bytes, bytearray, memoryview]

class DashError(Exception):
    code: str
    location: Optional[str]
    file: Optional[str]
    pointer: Optional[str]
    line: Optional[int]
    column: Optional[int]
    offset: Optional[int]
    vertex: Optional[int]

class DashIOError(DashError): ...
class FormatError(DashError): ...
class OptionError(DashError): ...
class ReduceError(DashError): ...
class ManifestError(DashError): ...
class OutputError(DashError): ...

@final
class Bones:
    @property
    def names(self) -> list[str]: ...
    @property
    def parents(self) -> list[Optional[int]]: ...
    def index(self, name: str) -> int: ...
    def __len__(self) -> int: ...

@final
class Primitive:
    @property
    def positions(self) -> npt.NDArray[np.float32]: ...
    @property
    def joints(self) -> npt.NDArray[Union[np.uint16, np.uint32]]: ...
    @property
    def weights(self) -> npt.NDArray[np.float32]: ...
    @property
    def mesh(self) -> int: ...
    @property
    def primitive(self) -> int: ...
    @property
    def skin(self) -> Optional[int]: ...
    @property
    def sets(self) -> int: ...
    @property
    def set_numbers(self) -> list[int]: ...
    @property
    def weight_storage(self) -> str: ...
    @property
    def bones(self) -> Optional[Bones]: ...
    def __len__(self) -> int: ...

@final
class Model:
    @property
    def format(self) -> str: ...
    @property
    def primitives(self) -> list[Primitive]: ...
    @property
    def bones(self) -> Optional[Bones]: ...
    @property
    def skins(self) -> list[Bones]: ...

@final
class Diagnostic:
    @property
    def code(self) -> str: ...
    @property
    def severity(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def help(self) -> Optional[str]: ...
    @property
    def khronos(self) -> list[str]: ...
    @property
    def vertex(self) -> Optional[int]: ...
    @property
    def set(self) -> Optional[int]: ...
    @property
    def slot(self) -> Optional[int]: ...
    @property
    def bone(self) -> Optional[int]: ...
    @property
    def offset(self) -> Optional[int]: ...
    @property
    def pointer(self) -> Optional[str]: ...
    @property
    def line(self) -> Optional[int]: ...
    @property
    def column(self) -> Optional[int]: ...
    @property
    def location(self) -> str: ...

@final
class Report:
    @property
    def valid(self) -> bool: ...
    @property
    def errors(self) -> list[Diagnostic]: ...
    @property
    def warnings(self) -> list[Diagnostic]: ...
    @property
    def diagnostics(self) -> list[Diagnostic]: ...
    @property
    def codes(self) -> dict[str, int]: ...
    @property
    def counts(self) -> dict[str, int]: ...
    @property
    def truncated(self) -> bool: ...
    @property
    def file(self) -> str: ...
    @property
    def format(self) -> Optional[str]: ...
    @property
    def profile(self) -> str: ...
    def to_json(self) -> str: ...
    def __bool__(self) -> bool: ...

@final
class ReduceReport:
    @property
    def vertices(self) -> int: ...
    @property
    def changed(self) -> int: ...
    @property
    def dropped_over_limit(self) -> int: ...
    @property
    def below_threshold(self) -> int: ...
    @property
    def rounded_away(self) -> int: ...
    @property
    def merged(self) -> int: ...
    @property
    def negative(self) -> int: ...
    @property
    def empty(self) -> int: ...
    @property
    def first_empty(self) -> Optional[int]: ...
    @property
    def max_influences_in(self) -> int: ...
    @property
    def largest_dropped(self) -> Optional[dict[str, Any]]: ...
    @property
    def first_negative(self) -> Optional[dict[str, Any]]: ...
    @property
    def sets(self) -> int: ...
    @property
    def fit(self) -> Optional[dict[str, Any]]: ...

@final
class Difference:
    @property
    def kind(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def index(self) -> int: ...
    @property
    def old_name(self) -> Optional[str]: ...
    @property
    def old_index(self) -> Optional[int]: ...
    @property
    def description(self) -> str: ...

@final
class Manifest:
    def __init__(self) -> None: ...
    @staticmethod
    def load(path: Union[str, os.PathLike[str]]) -> Manifest: ...
    @staticmethod
    def from_json(text: str) -> Manifest: ...
    def to_json(self) -> str: ...
    def save(self, path: Union[str, os.PathLike[str]]) -> None: ...
    def index(self, name: str) -> int: ...
    def assign(
        self,
        names: Sequence[Union[str, Tuple[str, Optional[str]]]],
        locked: bool = False,
    ) -> list[int]: ...
    def diff(self, other: Manifest) -> list[Difference]: ...
    @property
    def names(self) -> list[str]: ...
    @property
    def removed(self) -> list[int]: ...
    def __len__(self) -> int: ...
    def __contains__(self, name: str, /) -> bool: ...

def read(
    source: _Source, *, name: Optional[str] = None, threads: Optional[int] = None
) -> Model: ...
def validate(
    source: _Source,
    *,
    profile: Optional[str] = None,
    target: Optional[str] = None,
    manifest: Union[Manifest, str, os.PathLike[str], bytes, None] = None,
    locked: bool = False,
    max_diagnostics: int = 200,
    name: Optional[str] = None,
    threads: Optional[int] = None,
) -> Report: ...
def reduce(
    joints: Optional[npt.ArrayLike],
    weights: npt.ArrayLike,
    *,
    max_influences: int = 4,
    normalize: str = "unit",
    min_weight: Optional[float] = None,
    quantize: Optional[str] = None,
    empty: str = "error",
    threads: Optional[int] = None,
    fit: bool = False,
    positions: Optional[npt.ArrayLike] = None,
    poses: Optional[npt.ArrayLike] = None,
    motion_poses: Optional[npt.ArrayLike] = None,
    fit_motion_weight: float = 1.0,
) -> Tuple[
    npt.NDArray[Union[np.uint16, np.uint32]], npt.NDArray[np.float32], ReduceReport
]: ...
def targets() -> list[str]: ...

_Path: TypeAlias = Union[str, os.PathLike[str]]

@final
class JobResult:
    @property
    def written(self) -> bool: ...
    @property
    def messages(self) -> list[tuple[str, str]]: ...
    @property
    def report(self) -> Optional[dict[str, Any]]: ...
    @property
    def max_influences(self) -> Optional[int]: ...
    @property
    def manifest_changes(self) -> list[str]: ...

def reduce_file(
    input: _Path,
    output: _Path,
    *,
    max_influences: Optional[int] = None,
    normalize: Optional[str] = None,
    quantize: Optional[str] = None,
    min_weight: Optional[float] = None,
    empty: str = "error",
    manifest: Optional[_Path] = None,
    locked: bool = False,
    target: Optional[str] = None,
    to: Optional[str] = None,
    embed: bool = False,
    report: Union[bool, _Path, None] = None,
    max_error: Optional[float] = None,
    poses: Optional[_Path] = None,
    mesh: Optional[int] = None,
    primitive: Optional[int] = None,
    drop_source_attributes: bool = True,
    resources: Optional[str] = None,
    threads: Optional[int] = None,
    fit: bool = False,
    fit_motion_weight: float = 1.0,
) -> JobResult: ...
def fix_file(
    input: _Path,
    output: Optional[_Path] = None,
    *,
    profile: str = "dash",
    bad_weights: str = "zero",
    out_of_range: str = "error",
    zero_sum: Optional[str] = None,
    skinned_flag: str = "error",
    ibm_tolerance: float = 1e-4,
    bones: Optional[int] = None,
    target: Optional[str] = None,
    to: Optional[str] = None,
    embed: bool = False,
    report: Optional[_Path] = None,
    dry_run: bool = False,
    resources: Optional[str] = None,
    threads: Optional[int] = None,
) -> JobResult: ...
def remap_file(
    input: _Path,
    manifest: _Path,
    output: _Path,
    *,
    locked: bool = False,
    embed: bool = False,
    resources: Optional[str] = None,
    threads: Optional[int] = None,
) -> JobResult: ...
def convert_file(
    input: _Path,
    output: _Path,
    *,
    from_format: Optional[str] = None,
    to: Optional[str] = None,
    form: Optional[str] = None,
    compact: bool = False,
    drop_unreferenced: bool = False,
    embed: bool = False,
    resources: Optional[str] = None,
    mesh: Optional[int] = None,
    primitive: Optional[int] = None,
    threads: Optional[int] = None,
) -> JobResult: ...
