"""A local fleet of real Apache Superset instances (dev, staging, prod) with demo content."""

from sstools.sandbox.errors import SandboxError
from sstools.sandbox.fleet import InstanceStatus, Sandbox, SandboxSettings

__all__ = ["InstanceStatus", "Sandbox", "SandboxError", "SandboxSettings"]
