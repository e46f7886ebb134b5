from dataclasses import dataclass
from os import PathLike
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt


__version__: str

_Points = Union[npt.NDArray[np.float32], npt.NDArray[np.float64], np.ndarray]
_Progress = Union[Callable[[float], None], bool, str, None]
_PathType = Union[str, PathLike]

@dataclass
class Result:
    normals: npt.NDArray[np.float32]
    curvature: npt.NDArray[np.float32]
    iterations: List[npt.NDArray[np.float32]] = ...
    kernel_weights: List[Tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]] = ...
    offset: Tuple[float, float, float] = ...
    orientation_confidence: Optional[npt.NDArray[np.float32]] = ...
    error_bound: Optional[npt.NDArray[np.float32]] = ...

@dataclass
class Cloud:
    points: npt.NDArray[np.float64]
    fields: Dict[str, np.ndarray]
    viewpoint: npt.NDArray[np.float64]
    width: int
    height: int
    path: str
    format: str
    @property
    def sensor_origin(self) -> npt.NDArray[np.float64]: ...

class Estimator:
    def __init__(self, k: Optional[int] = None, radius: Optional[float] = None, max_neighbors: int = 0,
                 iterations: int = 4, model: Optional[_PathType] = None, threads: int = 0, settle: float = 0.0,
                 orient: str = "viewpoint", viewpoint: Optional[Sequence[float]] = None, backend: str = "native",
                 store_iterations: bool = False, orient_neighbors: int = 10, precision: str = "float",
                 orient_seed: int = -1) -> None: ...
    @property
    def model_path(self) -> str: ...
    def compute(self, points: _Points, weights_of: Optional[Sequence[int]] = None, progress: _Progress = None,
                indices: Optional[Sequence[int]] = None) -> Result: ...

def estimate_normals(points: _Points, k: Optional[int] = None, radius: Optional[float] = None, max_neighbors: int = 0,
                     iterations: int = 4, model: Optional[_PathType] = None, threads: int = 0, settle: float = 0.0,
                     orient: str = "viewpoint", viewpoint: Optional[Sequence[float]] = None, backend: str = "native",
                     return_curvature: bool = False, progress: _Progress = None, precision: str = "float",
                     indices: Optional[Sequence[int]] = None, orient_neighbors: int = 10,
                     orient_seed: int = -1, return_error: bool = False) -> Any: ...
def orient_normals(points: _Points, normals: np.ndarray, k: int = 10, viewpoint: Optional[Sequence[float]] = None,
                   seed: Optional[int] = None, closed: bool = False, threads: int = 0, return_report: bool = False,
                   return_confidence: bool = False) -> Any: ...
def read_cloud(path: _PathType) -> Cloud: ...
def write_cloud(path: _PathType, points: _Points, normals: np.ndarray, curvature: Optional[np.ndarray] = None,
                like: Optional[Union[Cloud, _PathType]] = None) -> None: ...
def estimate_normals_file(input: _PathType, output: _PathType, max_memory: Optional[float] = None,
                          scratch: Optional[_PathType] = None, progress: _Progress = "auto",
                          tile_points: Optional[int] = None, error_bound: bool = False, *,
                          k: Optional[int] = None, radius: Optional[float] = None, max_neighbors: int = 0,
                          iterations: int = 4, model: Optional[_PathType] = None, threads: int = 0, settle: float = 0.0,
                          orient: Optional[str] = None, viewpoint: Optional[Sequence[float]] = None,
                          backend: str = "native", precision: str = "float", orient_neighbors: int = 10,
                          orient_seed: int = -1) -> dict: ...
def backend_available(name: str) -> bool: ...
def bfloat16_available() -> bool: ...
def native_instruction_set(precision: str = "float") -> str: ...
def default_model_path(k: int = 64) -> str: ...
