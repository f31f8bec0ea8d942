"""graphcons: memory consolidation native to Neo4j."""

from .api import Graphcons
from .errors import GraphconsError, ValidationError
from .memory import Memory, MemoryInput

__all__ = ["Graphcons", "GraphconsError", "Memory", "MemoryInput", "ValidationError"]
__version__ = "0.1.0"
