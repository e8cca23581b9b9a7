"""Who executes a campaign: a process claims it while its store is open, so that no second
process runs the same campaign (a re-run, a `--resume`) meanwhile. The claim is a lock (flock) on
a file beside the store: the kernel drops it when its holder dies, however it dies."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
from pathlib import Path

from taskbench.errors import EXIT_ENVIRONMENT, UserError


class Claims:
    def __init__(self, store_path: Path):
        self.store_path = store_path
        self._held: dict[str, int] = {}  # campaign -> the open lock file's descriptor

    def claim(self, name: str) -> None:
        """Makes this process the one that executes campaign `name` until release_all; refuses
        at once if another live process holds it."""
        path = self._path(name)
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(fd, 32).decode(errors="replace").strip()
                os.close(fd)
                raise UserError(f"another process{f' (pid {holder})' if holder else ''} is running campaign "
                                f"'{name}' of {self.store_path}; wait for it to end or stop it", EXIT_ENVIRONMENT)
            # The holder before us removes the file when it is done: if it did so after we
            # opened it, our lock is on a file no one else will open; lock the current one.
            try:
                if os.stat(path).st_ino == os.fstat(fd).st_ino:
                    break
            except FileNotFoundError:
                pass
            os.close(fd)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._held[name] = fd

    def held(self, name: str) -> bool:
        """Whether a live process (another one) holds campaign `name`: a `running` campaign that
        none holds was interrupted (its process is gone, however it ended)."""
        try:
            fd = os.open(self._path(name), os.O_RDONLY | os.O_CLOEXEC)
        except OSError:  # no claim file: its holder removed it, or never made one
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)  # and with it the shared lock, if it was taken
        return False

    def release_all(self) -> None:
        for name in list(self._held):
            fd = self._held.pop(name)
            with contextlib.suppress(FileNotFoundError):  # removed by hand: nothing left to clean
                os.unlink(self._path(name))
            os.close(fd)

    def _path(self, name: str) -> str:
        return f"{self.store_path}-claim-{hashlib.sha1(name.encode()).hexdigest()[:16]}"
