from dataclasses import dataclass
from os import PathLike
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

Points = Union[npt.NDArray[np.float32], npt.NDArray[np.float64], np.ndarray]
Progress = Union[Callable[[float], None], bool, str, None]
PathType = Union[str, PathLike]

@dataclass
class Result:
    normals: npt.NDArray[np.float32]
    curvature: npt.NDArray[np.float32]
    iterations: List[npt.NDArray[np.float32]]
    kernel_weights: List[Tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]]
    offset: Tuple[float, float, float]

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
    def __init__(self, k: int = 64, radius: Optional[float] = None, max_neighbors: int = 0, iterations: int = 4,
                 model: Optional[PathType] = None, threads: int = 0, settle: float = 0.0, orient: str = "viewpoint",
                 viewpoint: Optional[Sequence[float]] = None, backend: str = "native", store_iterations: bool = False,
                 orient_neighbors: int = 10) -> None: ...
    @property
    def model_path(self) -> str: ...
    def compute(self, points: Points, weights_of: Optional[Sequence[int]] = None, progress: Progress = None,
                indices: Optional[Sequence[int]] = None) -> Result: ...

def estimate_normals(points: Points, k: int = 64, radius: Optional[float] = None, max_neighbors: int = 0,
                     iterations: int = 4, model: Optional[PathType] = None, threads: int = 0, settle: float = 0.0,
                     orient: str = "viewpoint", viewpoint: Optional[Sequence[float]] = None, backend: str = "native",
                     return_curvature: bool = False, progress: Progress = None, precision: str = "float",
                     indices: Optional[Sequence[int]] = None): ...
def orient_normals(points: Points, normals: np.ndarray, k: int = 10, viewpoint: Optional[Sequence[float]] = None,
                   seed: Optional[int] = None, closed: bool = False, threads: int = 0, return_report: bool = False): ...
def read_cloud(path: PathType) -> Cloud: ...
def write_cloud(path: PathType, points: Points, normals: np.ndarray, curvature: Optional[np.ndarray] = None,
                like: Optional[Union[Cloud, PathType]] = None) -> None: ...
def estimate_normals_file(input: PathType, output: PathType, max_memory: Optional[float] = None,
                          scratch: Optional[PathType] = None, progress: Progress = "auto", **options) -> dict: ...
def backend_available(name: str) -> bool: ...
def default_model_path(k: int = 64) -> str: ...
