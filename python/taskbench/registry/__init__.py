"""The registry: every systems/<folder>/system.toml, and whether each system can run here.

entry.py reads one file (facts.py checks the keys the harness's own code asks for), resolve.py
says whether an entry can run here and why not, catalog.py holds them all by name (Registry);
locations.py finds the build and the registry folder, external.py other suites' ports.
"""

from taskbench.registry.catalog import Registry, entry_processors, read_entries, registry_entries
from taskbench.registry.entry import read_registry_file
from taskbench.registry.resolve import resolve
from taskbench.registry.system import System

__all__ = ["Registry", "System", "entry_processors", "read_entries", "read_registry_file", "registry_entries",
           "resolve"]
