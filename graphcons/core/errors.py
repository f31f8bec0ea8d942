"""Every error graphcons raises on purpose, in one place.

Each carries a message a user can act on; the CLI maps the class to an exit code.
"""


class GraphconsError(Exception):
    """Base class of graphcons' own errors."""

    exit_code = 1




class ValidationError(GraphconsError):
    """Bad input: names the field and the problem; nothing was written."""

    exit_code = 2

    def __init__(self, field: str, problem: str):
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")


class NotFound(GraphconsError):
    """A memory, proposal or other id that does not exist."""

    exit_code = 3


class ConfigError(GraphconsError):
    """The configuration file or an environment override is invalid."""

    exit_code = 4


class ServerUnavailable(GraphconsError):
    """Neo4j cannot be reached, or it lacks the GDS plugin.

    The message is for the operator (it may name the server's address); `public` is what a
    remote client is told. `maybe_written`: a write of this call was sent before the failure,
    so it may have landed (retrying the same request is safe: docs/DEPLOY.md).
    """

    exit_code = 5

    def __init__(self, message: str, *, public: str | None = None, maybe_written: bool = False):
        super().__init__(message)
        self.public = public or "Neo4j is unavailable"
        self.maybe_written = maybe_written


class Busy(ServerUnavailable):
    """Neo4j rolled a transaction back: deadlocked after every retry, or terminated. Retry later."""

    def __init__(self, message: str, *, public: str | None = None, maybe_written: bool = False):
        super().__init__(message, maybe_written=maybe_written,
                         public=public or "Neo4j rolled the transaction back after every retry (lock contention)")


class EmbedderMismatch(GraphconsError):
    """The configured embedder differs from the one the store was built with."""

    exit_code = 6


class ProviderError(GraphconsError):
    """An embedding or LLM provider failed (timeout, HTTP error, bad output)."""

    exit_code = 7


class Conflict(GraphconsError):
    """The operation cannot apply to the current state (stale proposal, wrong status)."""

    exit_code = 8


class DanglingProvenance(GraphconsError):
    """A provenance link points at a memory that does not exist."""

    exit_code = 9


class Ungrounded(GraphconsError):
    """A synthesis that cites none of the members it was shown: rejected, nothing stored (issue 4)."""

    exit_code = 10

    def __init__(self, message: str, stripped: list[str] | None = None):
        super().__init__(message)
        self.stripped = list(stripped or [])
