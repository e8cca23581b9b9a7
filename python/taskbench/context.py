"""What every command needs: where things are, the registry, the store, the console."""

from __future__ import annotations

import functools
import os
import shlex
from dataclasses import dataclass
from pathlib import Path

from taskbench import provenance
from taskbench.console import Console
from taskbench.errors import EXIT_USAGE, UserError
from taskbench.paths import make_parents, remove_made_folders
from taskbench.registry import Registry
from taskbench.registry.locations import Layout, find_layout
from taskbench.store import Store

DEFAULT_DB = "taskbench.db"


@dataclass
class Context:
    db_path: str
    build_dir: str | None
    console: Console
    # Set by the commands that only read the store, before they first use it: it is then opened
    # read-only (it may be a file that no one may write) and nothing is created or upgraded.
    read_only: bool = False
    made_folder: Path | None = None  # the topmost folder made for the store, removed with it if empty

    @functools.cached_property
    def layout(self) -> Layout:
        return find_layout(self.build_dir)

    @functools.cached_property
    def registry(self) -> Registry:
        return Registry(self.layout)

    @functools.cached_property
    def store(self) -> Store:
        if Path(self.db_path).is_dir():
            raise UserError(f"--db {self.db_path}: is a folder; the store is a file (e.g. "
                            f"{Path(self.db_path) / 'taskbench.db'})", EXIT_USAGE)
        if not self.read_only:  # a reader never creates anything: a missing store is its one line
            self.made_folder = make_parents(self.db_path, "--db")
        return Store(self.db_path, read_only=self.read_only)

    def close(self) -> None:
        """Closes the store, if it was opened; one that was removed as empty (Store.close) takes
        the folders made for it along, and is never said to have had them made: said only of a
        store that stays."""
        if "store" not in self.__dict__:
            return
        self.store.close()
        if self.made_folder and not self.store.path.exists():
            remove_made_folders(self.store.path.parent, self.made_folder)
        elif self.made_folder:
            self.console.note(f"made the folder {self.made_folder} for the store {self.db_path}")

    @functools.cached_property
    def git_revision(self) -> str | None:
        return provenance.git_revision(self.layout.source_root)

    def command(self, *words: str) -> str:
        """A `taskbench` command line for a hint, to copy as it is: with this one's --db and
        --build-dir where they are not the defaults (without them it would use another store)."""
        parts = ["taskbench"]
        if os.path.abspath(self.db_path) != os.path.abspath(DEFAULT_DB):
            parts += ["--db", shlex.quote(self.db_path)]
        if self.build_dir:
            parts += ["--build-dir", shlex.quote(self.build_dir)]
        return " ".join([*parts, *words])


def make_context(db: str | None, build_dir: str | None, quiet: bool) -> Context:
    return Context(db or os.environ.get("TASKBENCH_DB") or DEFAULT_DB, build_dir, Console(quiet))
