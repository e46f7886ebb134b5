# The compiled module (python/src): the package's own functions in __init__.py wrap it and carry
# the types users see; its names are internal and typed as Any.
from typing import Any

def __getattr__(name: str) -> Any: ...
