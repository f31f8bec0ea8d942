"""graphcons: memory consolidation native to Neo4j."""

from graphcons.api import Graphcons
from graphcons.core.errors import GraphconsError, ValidationError
from graphcons.core.memory import Memory, MemoryInput

__all__ = ["Graphcons", "GraphconsError", "Memory", "MemoryInput", "ValidationError"]
__version__ = "0.1.0"
