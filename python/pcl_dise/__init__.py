"""pcl_dise: surface normals by Deep Iterative Surface Normal Estimation (DISE), from NumPy.

    >>> import numpy as np, pcl_dise
    >>> normals = pcl_dise.estimate_normals(points)            # points: (N, 3) float32 or float64
    >>> normals = pcl_dise.orient_normals(points, normals)     # one consistent side

The computation is the C++ library's (the same bytes as ``dise_normals``); the GIL is released
while it runs, Ctrl-C stops it with ``KeyboardInterrupt``. Errors are ``ValueError`` (shapes,
dtypes, options), ``FileNotFoundError`` / ``OSError`` (files) or ``RuntimeError``.
Guide: docs/python.md.
"""

from __future__ import annotations

import errno
import numbers
import os
import sys
import time
from dataclasses import dataclass, field
from os import PathLike
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

from . import _native
from ._version import __version__

__all__ = [
    "Cloud",
    "Estimator",
    "Result",
    "__version__",
    "backend_available",
    "bfloat16_available",
    "default_model_path",
    "estimate_normals",
    "estimate_normals_file",
    "native_instruction_set",
    "orient_normals",
    "read_cloud",
    "write_cloud",
]

ProgressCallback = Callable[[float], None]
# The types the signatures name (the package's annotations are its type information: py.typed).
_Points = Union[npt.NDArray[np.float32], npt.NDArray[np.float64], np.ndarray]
_Progress = Union[ProgressCallback, bool, str, None]
_PathType = Union[str, "PathLike[str]"]


# ---- arguments --------------------------------------------------------------------------------

def _points(points, name: str = "points") -> np.ndarray:
    """(N, 3) float32 or float64 C-contiguous rows from an array or a PDAL-style structured array."""
    if isinstance(points, np.ndarray) and points.dtype.names is not None:
        names = points.dtype.names
        if not all(c in names for c in ("X", "Y", "Z")):
            raise ValueError(f"{name}: a structured array needs fields X, Y and Z (has {', '.join(names)})")
        points = np.stack([np.asarray(points[c], dtype=np.float64) for c in ("X", "Y", "Z")], axis=1)
    array = np.asarray(points)
    if array.dtype not in (np.float32, np.float64):
        raise ValueError(f"{name} must be float32 or float64, not {array.dtype} (convert with .astype(np.float64))")
    if array.ndim != 2 or array.shape[1] != 3:
        raise ValueError(f"{name} must have shape (N, 3), not {array.shape}")
    if array.shape[0] == 0:
        raise ValueError(f"{name} is empty")
    if array.shape[0] >= 2**31:
        raise ValueError(f"{name}: at most 2**31 - 1 points in memory; use estimate_normals_file for more")
    return np.ascontiguousarray(array)


def _viewpoint(viewpoint) -> Optional[Tuple[float, float, float]]:
    if viewpoint is None:
        return None
    v = np.asarray(viewpoint, dtype=np.float64).reshape(-1)
    if v.shape != (3,):
        raise ValueError(f"viewpoint must be 3 finite numbers, not {viewpoint!r}")
    return (float(v[0]), float(v[1]), float(v[2]))


def _whole(value, name: str) -> int:
    """A whole number, 1 or more (tile_points)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a whole number, 1 or more, not {value!r}")
    return int(value)


def _number(value, name: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, not {value!r}") from None


# Every setting of a normals run as the library declares it (core/setting_declarations.h): its
# keyword, kind, default and where it is offered; test_setting_surfaces.py checks the signatures
# below and the stub against them.
_DECLARATIONS = {d["name"]: d for d in _native.setting_declarations()}


def _setting_text(declaration: dict, value) -> str:
    """A keyword's value as the text the library reads; the library checks its kind and range."""
    name, kind = declaration["name"], declaration["kind"]
    if kind == "point":
        try:
            return ",".join(repr(float(v)) for v in np.asarray(value, dtype=np.float64).reshape(-1))
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be 3 numbers X,Y,Z, not {value!r}") from None
    if kind == "path":
        return os.fspath(value)
    if isinstance(value, bool) and kind in ("integer", "number"):
        raise ValueError(f"{name} must be a number, not {value!r}")
    if kind == "number" and isinstance(value, numbers.Real):
        return repr(float(value))
    if kind == "integer" and isinstance(value, numbers.Integral):
        return str(int(value))
    return str(value)


def _given(values: Dict[str, Any], surface: str) -> Dict[str, Any]:
    """The settings among a function's arguments (its locals() on entry), by their declared names."""
    return {name: value for name, value in values.items() if name in _DECLARATIONS and _DECLARATIONS[name][surface]}


def _settings(surface: str, orient_by_input: Optional[str] = None, **given) -> "_native.NormalSettings":
    """The library's NormalSettings from keywords named as the declarations name them (None: not
    set, the declared default; surface: "in_memory" or "file", where each must be offered),
    validated by the library with its rules and messages (its OptionsError is a ValueError).
    orient_by_input: the input's path, whose format decides the orientation where none is given."""
    settings = _native.NormalSettings()
    for name, value in given.items():
        declaration = _DECLARATIONS.get(name)
        if declaration is None or not declaration[surface]:
            raise TypeError(f"unexpected keyword argument {name!r}")
        if value is not None:
            settings.set(name, _setting_text(declaration, value))
    if orient_by_input is not None and given.get("orient") is None:
        settings.default_orientation_for(orient_by_input)
    settings.validate()
    model = settings.get("model")
    if model and not os.path.isfile(model):
        raise FileNotFoundError(errno.ENOENT, "model file not found", model)
    return settings


class _ProgressBar:
    """One redrawing line on a terminal (stderr), a plain line every few seconds elsewhere."""

    def __init__(self, label: str):
        self.label, self.start, self.last = label, time.monotonic(), -1.0
        self.terminal = sys.stderr.isatty()

    def __call__(self, done: float) -> None:
        now = time.monotonic()
        if done < 1.0 and now - self.last < (0.2 if self.terminal else 5.0):
            return
        self.last = now
        elapsed = now - self.start
        eta = f", {elapsed * (1 - done) / done:.0f} s left" if 0 < done < 1 else ""
        text = f"{self.label}: {100 * done:5.1f}% ({elapsed:.0f} s{eta})"
        sys.stderr.write(("\r" + text + ("\n" if done >= 1 else "")) if self.terminal else text + "\n")
        sys.stderr.flush()


def _progress(progress) -> Optional[ProgressCallback]:
    if progress == "auto":  # a bar where a person watches
        progress = sys.stderr.isatty()
    if progress is True:
        return _ProgressBar("pcl_dise")
    if progress in (None, False):
        return None
    if not callable(progress):
        raise ValueError("progress must be a callable taking the share done (0..1), True, False, None or 'auto'")
    return progress


# ---- estimation -------------------------------------------------------------------------------

@dataclass
class Result:
    """What Estimator.compute returns.

    normals: (N, 3) float32, unit, NaN rows where a point has no normal (PCL's rule: fewer than 3
    neighbours or no spread, or a non-finite coordinate). curvature: (N,) float32 (|lambda_min| /
    trace of the last weighted covariance). iterations: with ``store_iterations``, L + 1 arrays
    (N, 3), iteration 0 the PCA. kernel_weights: for each index of ``weights_of``, the point's
    neighbours (indices into the cloud) and their weights in the last iteration. offset: the
    whole-unit offset subtracted in double before the coordinates became floats.
    orientation_confidence: with ``orient="mst"`` or ``"closed"``, (N,) float32 in [0, 1]: how
    sure each point's side is (NaN without a normal; see :func:`orient_normals`); else None.
    error_bound: (N,) float32 degrees: the angle within which each normal lies with 90%
    probability, from the model's calibration (docs/models.md#error-bounds; NaN without a normal);
    None where the model carries no calibration or ``iterations=0``.
    """

    normals: npt.NDArray[np.float32]
    curvature: npt.NDArray[np.float32]
    iterations: List[npt.NDArray[np.float32]] = field(default_factory=list)
    kernel_weights: List[Tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]] = field(default_factory=list)
    offset: Tuple[float, float, float] = (0.0, 0.0, 0.0)
    orientation_confidence: Optional[npt.NDArray[np.float32]] = None
    error_bound: Optional[npt.NDArray[np.float32]] = None


class Estimator:
    """DISE normal estimation with its model loaded once, reusable across clouds.

    Arguments as for :func:`estimate_normals`, and ``store_iterations`` (keep every iteration's
    normals in :class:`Result`). ``model_path`` says which model file it loaded.
    """

    def __init__(self,
                 # settings: in_memory (made by scripts/settings_table.py --write from the declarations)
                 k: Optional[int] = None, radius: Optional[float] = None, max_neighbors: int = 0, iterations: int = 4,
                 model: Optional[_PathType] = None, threads: int = 0, settle: float = 0.0, orient: str = "viewpoint",
                 viewpoint: Optional[Sequence[float]] = None, backend: str = "native", *, precision: str = "float",
                 orient_neighbors: int = 10, orient_seed: int = -1,
                 # end of the settings
                 store_iterations: bool = False) -> None:
        options = _settings("in_memory", **_given(locals(), "in_memory"))
        unavailable = _native.backend_unavailable_message(options.get("backend")) if options.get("iterations") != "0" \
            else ""
        if unavailable:
            raise ValueError(unavailable)
        self._native = _native.Estimator(options, bool(store_iterations))

    @property
    def model_path(self) -> str:
        """The model file loaded ('' with iterations=0)."""
        return self._native.model_path

    def compute(self, points: _Points, weights_of: Optional[Sequence[int]] = None, progress: _Progress = None,
                indices: Optional[Sequence[int]] = None) -> Result:
        """Normals of ``points`` ((N, 3) float32 / float64, or a structured array with X, Y, Z).

        weights_of: point indices whose kernel weights to return (with ``indices``, points among
        them). progress: a callable taking the share done (0..1), True for a progress bar on
        stderr, or None. indices: only these points' normals, one row each, in this order; their
        neighbours come from the whole cloud and only what their normals read is estimated (the
        same values as estimating every point and picking them; not with orient "mst" or "closed").
        """
        array = _points(points)
        rows = None
        if indices is not None:
            rows = [int(i) for i in np.asarray(indices, dtype=np.int64).reshape(-1)]
        wanted = None
        if weights_of is not None:
            wanted = [int(i) for i in weights_of]
            if any(i < 0 or i >= len(array) for i in wanted):
                raise ValueError(f"weights_of: indices must lie in [0, {len(array)})")
            if rows is not None:
                row_of = {point: row for row, point in reversed(list(enumerate(rows)))}
                if any(i not in row_of for i in wanted):
                    raise ValueError("weights_of: with indices, the points must be among them")
                wanted = [row_of[i] for i in wanted]
        r = self._native.compute(array, _progress(progress), wanted, rows)
        x, y, z = r["offset"]
        return Result(r["normals"], r["curvature"], list(r["iterations"]), list(r["kernel_weights"]), (x, y, z),
                      r["confidence"], r["error_bound"])


def estimate_normals(points: _Points,
                     # settings: in_memory (made by scripts/settings_table.py --write from the declarations)
                     k: Optional[int] = None, radius: Optional[float] = None, max_neighbors: int = 0,
                     iterations: int = 4, model: Optional[_PathType] = None, threads: int = 0, settle: float = 0.0,
                     orient: str = "viewpoint", viewpoint: Optional[Sequence[float]] = None, backend: str = "native",
                     *, precision: str = "float", orient_neighbors: int = 10, orient_seed: int = -1,
                     # end of the settings
                     return_curvature: bool = False, progress: _Progress = None,
                     indices: Optional[Sequence[int]] = None, return_error: bool = False) -> Any:
    """Surface normals of a point cloud by DISE.

    points: (N, 3) float32 or float64 (any order or strides; C-contiguous arrays are read in
        place), or a structured array with fields X, Y, Z (as PDAL gives them). float64
        coordinates far from the origin (UTM) are moved by a whole-unit offset in double before
        they become floats, as ``dise_normals`` does.
    return_curvature: also return the (N,) float32 curvature.
    return_error: also return each normal's error bound, (N,) float32 degrees within which it lies
        with 90% probability (:class:`Result`'s ``error_bound``; None where the model carries no
        calibration or ``iterations=0``).
    progress: a callable taking the share done (0..1), True for a progress bar, or None.
    indices: only these points' normals (as PCL's setIndices): their neighbours come from the whole
        cloud, only what their normals read is estimated, and each gets the value estimating every
        point would give it (not with orient "mst" or "closed", which orient the whole cloud).

    Settings (every tool's, under the same names; None: not set):
    k: neighbours per point, the point itself not counted (not set: 64, or every point within
        radius).
    radius: every point within this distance instead of the k nearest (not with k).
    max_neighbors: with radius: keep at most the nearest this many (0: all).
    iterations: DISE iterations after the PCA, 0 .. 255 (0: plain PCA).
    model: model file (.safetensors; not set: the shipped model for k, the k = 64 one for radius).
    backend: where the iterations run: native (CPU), torch or cuda where this build has them.
    threads: CPU threads (0: every core).
    settle: adaptive mode: a point stops iterating once its normal turns by less than this many
        degrees (0: exact).
    precision: float, or bf16: the network's products in bfloat16 where the processor has
        AVX512_BF16 (faster; accuracy in docs/benchmarks.md; elsewhere it runs in float and says
        so).
    orient: viewpoint: each normal faces the viewpoint; up: faces +z (aerial LiDAR); mst: one
        consistent side along a minimum spanning tree (closed shapes face outward); closed: mst,
        then each point takes the side an outside grid shows it (closed shapes, not scans); none:
        the plane fit's own sign. Files: up for .las and .laz without a viewpoint, else viewpoint.
    viewpoint: X,Y,Z the normals face, in the cloud's coordinates (not set: the cloud's sensor
        origin; with mst or closed, the seed).
    orient_neighbors: mst, closed: the neighbours of each point in the spanning tree's graph.
    orient_seed: mst, closed: a point whose normal is taken as oriented (-1: the viewpoint's
        nearest, else the topmost).

    Returns (N, 3) float32 unit normals, one row per point (or per index), NaN rows where a point
    has none (and the curvature, and the error bound, in that order, where asked for).
    """
    estimator = Estimator(**_given(locals(), "in_memory"))
    result = estimator.compute(points, progress=progress, indices=indices)
    returned = (result.normals,) + ((result.curvature,) if return_curvature else ()) + \
        ((result.error_bound,) if return_error else ())
    return returned if len(returned) > 1 else result.normals


def orient_normals(points: _Points, normals: np.ndarray, k: int = 10, viewpoint: Optional[Sequence[float]] = None,
                   seed: Optional[int] = None, closed: bool = False, threads: int = 0, return_report: bool = False,
                   return_confidence: bool = False) -> Any:
    """Orients any normals consistently (only signs change): a minimum spanning tree over each
    point's k nearest, each connected part seeded at ``seed`` (its part), else at the point nearest
    the viewpoint, else at the topmost point facing +z; ``closed=True`` then takes each point's
    side from the outside of closed shapes (for solids; not for scans). docs/orientation.md.

    points: (N, 3) float32 / float64; normals: (N, 3), NaN rows left as they are.
    Returns (N, 3) float32 normals; with return_report also a dict of counts (``low_confidence``:
    points whose confidence is below 0.5, ``undecided``: points no outside-grid vote decided) and of
    how ``closed`` decided (``outside_grid``, ``grid_cell``; ``parity_checked``: ray parity ran,
    without a grid or on the patches a grid left unsure; else ``wall_middles``: each side from the
    middle of its wall, thin walls under noise; ``winding_flipped``: unsure points turned by the
    winding number of the sure ones), with
    return_confidence also (N,) float32 confidences in [0, 1], in that order: with ``closed``, the
    margin of the point's outside-grid vote among its neighbours' (half its patch's where it had
    none, 0 where undecided), else how clearly its normal agreed with the neighbour it took its side
    from; NaN for a row without a normal.
    """
    array = _points(points)
    n = np.asarray(normals)
    if n.shape != array.shape:
        raise ValueError(f"normals must have the points' shape {array.shape}, not {n.shape}")
    if not np.issubdtype(n.dtype, np.floating):
        raise ValueError(f"normals must be floating point, not {n.dtype}")
    if int(k) != k or k < 1:
        raise ValueError(f"k must be a positive integer, not {k!r}")
    if seed is not None and (int(seed) != seed or not 0 <= seed < len(array)):
        raise ValueError(f"seed must be a point index in [0, {len(array)}), not {seed!r}")
    if int(threads) != threads or threads < 0:
        raise ValueError(f"threads must be a non-negative integer (0: all cores), not {threads!r}")
    r = _native.orient(array, np.ascontiguousarray(n, dtype=np.float32), int(k), _viewpoint(viewpoint),
                       -1 if seed is None else int(seed), bool(closed), int(threads))
    out = (r["normals"],) + ((dict(r["report"]),) if return_report else ()) + \
        ((r["confidence"],) if return_confidence else ())
    return out if len(out) > 1 else out[0]


# ---- files ------------------------------------------------------------------------------------

@dataclass
class Cloud:
    """A cloud file's contents (read_cloud).

    points: (N, 3) float64 in the file's coordinates. fields: every other per-point value by name,
    as the file stores it (PCD fields, PLY vertex properties, LAS dimensions with PDAL's names and
    described extra bytes, .xyz columns), each (N,) in its stored dtype. viewpoint: the PCD
    VIEWPOINT (tx, ty, tz, qw, qx, qy, qz). width, height: an organized cloud's layout. path and
    format: where it came from (a LAS source keeps its records when written with ``like``).
    """

    points: npt.NDArray[np.float64]
    fields: Dict[str, np.ndarray]
    viewpoint: npt.NDArray[np.float64]
    width: int
    height: int
    path: str
    format: str

    @property
    def sensor_origin(self) -> npt.NDArray[np.float64]:
        """The viewpoint's position (3,)."""
        return self.viewpoint[:3]


def _path(path: _PathType, must_exist: bool) -> str:
    path = os.fspath(path)
    if must_exist and not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, "no such file", path)
    return path


def read_cloud(path: _PathType) -> Cloud:
    """Reads a .pcd, .ply, .las, .laz or .xyz file: coordinates in float64 and every other field.

    A .laz file (LASzip-compressed LAS, COPC included) reads as its LAS would (``format`` "las").
    Raises FileNotFoundError for a missing file and OSError for one that cannot be read
    (malformed, truncated, corrupt or waveform LAZ, unknown extension).
    """
    path = _path(path, True)
    r = _native.read_cloud(path)
    fields = {}
    for name, (dtype, values) in r["fields"].items():
        fields[name] = values.astype(np.dtype(dtype))
    return Cloud(r["points"], fields, np.asarray(r["viewpoint"]), int(r["width"]), int(r["height"]), path, r["format"])


def write_cloud(path: _PathType, points: _Points, normals: np.ndarray, curvature: Optional[np.ndarray] = None,
                like: Optional[Union[Cloud, _PathType]] = None) -> None:
    """Writes points with their normals by extension: .las or .laz (LAS 1.4, compressed as LAZ for
    .laz; normals and curvature as extra bytes NormalX, NormalY, NormalZ, Curvature), .ply and .pcd (binary; double coordinates
    where they are large), .xyz (text "x y z nx ny nz curvature").

    like: the Cloud (or path) the points came from: a LAS or LAZ output keeps that LAS or LAZ
    file's every record, header and VLR, and a PCD output its viewpoint and organized layout. The file appears
    only when complete (an error leaves none).
    """
    path = _path(path, False)
    array = np.ascontiguousarray(_points(points), dtype=np.float64)
    n = np.ascontiguousarray(np.asarray(normals), dtype=np.float32)
    if n.shape != array.shape:
        raise ValueError(f"normals must have the points' shape {array.shape}, not {n.shape}")
    c = np.full(len(array), np.nan, np.float32) if curvature is None else np.ascontiguousarray(curvature, np.float32)
    if c.shape != (len(array),):
        raise ValueError(f"curvature must have shape ({len(array)},), not {c.shape}")
    source = read_cloud(like) if isinstance(like, (str, os.PathLike)) else like
    layout = _native.NormalsFileLayout()
    if source is not None:
        if len(source.points) != len(array):
            raise ValueError(f"like holds {len(source.points)} points, not {len(array)}")
        if source.path and _native.keeps_records(source.path, path):
            if not np.array_equal(source.points, array, equal_nan=True):
                raise ValueError("a LAS output like its source keeps the source's records: the points must be the source's")
            layout.las_source = source.path
        layout.viewpoint = tuple(float(v) for v in source.viewpoint)
        layout.width, layout.height = int(source.width), int(source.height)
    _native.write_cloud(path, array, n, c, layout)


def estimate_normals_file(input: _PathType, output: _PathType, max_memory: Optional[float] = None,
                          scratch: Optional[_PathType] = None, progress: _Progress = "auto",
                          tile_points: Optional[int] = None, error_bound: bool = False, *,
                          # settings: file (made by scripts/settings_table.py --write from the declarations)
                          k: Optional[int] = None, radius: Optional[float] = None, max_neighbors: int = 0,
                          iterations: int = 4, model: Optional[_PathType] = None, backend: str = "native",
                          threads: int = 0, settle: float = 0.0, precision: str = "float",
                          orient: Optional[str] = None, viewpoint: Optional[Sequence[float]] = None,
                          orient_neighbors: int = 10, orient_seed: int = -1,
                          # end of the settings
                          ) -> dict:
    """Normals for a cloud file, written to another: ``dise_normals`` from Python, the same job
    (jobs/normals_file.h) deciding in the same way whether the cloud runs in memory or in tiles.

    Without ``max_memory`` and ``tile_points`` the cloud runs in memory. With ``max_memory`` (MB)
    a cloud whose in-memory run would need more runs in tiles with halos sized to the budget, in
    bounded memory and with the same results bit for bit (a 100-million-point LAS file works);
    ``tile_points`` asks for tiles of at most that many points, whatever the memory.
    ``orient="mst"``/``"closed"`` and ``settle`` need the cloud in memory (a ``ValueError`` where it
    would run in tiles). A LAS or LAZ input written to LAS or LAZ keeps its records. ``orient``
    defaults (None) to "up" for a LAS or LAZ input without a ``viewpoint`` (an aerial survey has no
    sensor pose; its sensor is above), else "viewpoint". The settings (keywords only) are those of
    :func:`estimate_normals`, with the same defaults. ``max_memory`` 0 or None: in memory.
    ``error_bound=True`` also writes each normal's error bound (degrees; :attr:`Result.error_bound`)
    as a float field ``error_bound`` (.pcd, .ply) or extra byte ``NormalErrorBound`` (.las, .laz); a
    ``ValueError`` for a text output, ``iterations=0`` or a model without a calibration.
    progress: a callable taking the share done (0..1), True for a progress bar, None for none,
    "auto" (the default) for a bar where stderr is a terminal. Returns a dict of counts (``tiles``:
    0 where it ran in memory).
    """
    given = dict(locals())
    input_path, output_path = _path(input, True), _path(output, False)
    o = _settings("file", orient_by_input=input_path, **_given(given, "file"))
    tiles = 0 if tile_points is None else _whole(tile_points, "tile_points")
    return dict(_native.estimate_file(input_path, output_path, o, _number(max_memory or 0.0, "max_memory"), tiles,
                                      os.fspath(scratch) if scratch else "", _progress(progress),
                                      bool(error_bound)))


def backend_available(name: str) -> bool:
    """Whether this build has the backend ("native", "torch", "cuda") and it can run here."""
    return _native.backend_available(name)  # an unknown name: the library's ValueError


def bfloat16_available() -> bool:
    """Whether ``precision="bf16"`` runs in bfloat16 here (the processor has AVX512_BF16)."""
    return _native.bfloat16_available()


def native_instruction_set(precision: str = "float") -> str:
    """The instruction set the native backend's network runs with here ("AVX-512", "AVX2",
    "portable"; with precision "bf16": "AVX-512 BF16" where the processor has it)."""
    return _native.native_instruction_set(precision)


def default_model_path(k: int = 64) -> str:
    """The shipped model file for k neighbours."""
    return _native.default_model_path(int(k))
