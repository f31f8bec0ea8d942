"""The HTTP service (issue 16): graphcons as a memory service agents call over HTTP."""

from graphcons.service.app import create_app, serve

__all__ = ["create_app", "serve"]
