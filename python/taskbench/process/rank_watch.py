"""Which local rank of an MPI launch ended first: the one that failed.

Launchers do not always say. MPICH's Hydra prints the PID of the lowest rank that failed, and
its clean-up SIGKILLs the other ranks within a millisecond of the first death, so after a rank
is killed the launcher's report may well name another one (seen on the development VM). The
order in which the ranks ended is what identifies the culprit, and the kernel tells it: each
MPI process connects to this socket once it knows its rank (the core does it when
TASKBENCH_RANK_WATCH names the socket), says "rank R pid P", and keeps the connection open;
when the process ends, however it ends, its connection closes. A thread here, asleep in
select() in between, notes the closings in the order it sees them. Ranks whose connections it
finds closed in the same wake-up are a tie it cannot order.

Ranks on other hosts cannot connect to a Unix socket here: their launcher's report is all there
is about them.
"""

from __future__ import annotations

import os
import re
import selectors
import socket
import threading
from pathlib import Path

WATCH_VARIABLE = "TASKBENCH_RANK_WATCH"
_HELLO = re.compile(rb"rank (\d+) pid (\d+)\n")


class RankWatch:
    def __init__(self, folder: Path):
        self.path = folder / "ranks.sock"
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(self.path))
        self._server.listen(1024)  # connections wait here until start() is called
        self._wake_read, self._wake_write = os.pipe()
        self._thread: threading.Thread | None = None
        self.ranks: dict[int, int] = {}  # pid -> rank, every rank that said hello
        self.endings: list[list[tuple[int, int]]] = []  # [(rank, pid)...] per wake-up, in order

    def start(self) -> None:
        """Starts watching: after the launch was started, so no thread exists at its fork."""
        self._thread = threading.Thread(target=self._serve, name="rank-watch", daemon=True)
        self._thread.start()

    def first_to_end(self) -> tuple[int, int] | None:
        """(rank, pid) of the rank that ended before all others, or None (none seen, or a tie)."""
        if self.endings and len(self.endings[0]) == 1:
            return self.endings[0][0]
        return None

    def stop(self) -> tuple[int, int] | None:
        """Stops watching (once the launch has ended); returns first_to_end()."""
        if self._thread is not None:
            os.write(self._wake_write, b"x")
            self._thread.join(timeout=5)
            self._thread = None
        return self.first_to_end()

    def close(self) -> None:
        """Stops watching and releases the socket."""
        self.stop()
        self._server.close()
        os.close(self._wake_read)
        os.close(self._wake_write)
        try:
            self.path.unlink()
        except OSError:
            pass

    def _serve(self) -> None:
        selector = selectors.DefaultSelector()
        selector.register(self._server, selectors.EVENT_READ)
        selector.register(self._wake_read, selectors.EVENT_READ)
        received: dict[socket.socket, bytes] = {}
        stopping = False
        while not stopping:
            ended = []
            for key, _ in selector.select():
                if key.fileobj is self._server:
                    connection, _ = self._server.accept()
                    received[connection] = b""
                    selector.register(connection, selectors.EVENT_READ)
                elif key.fileobj == self._wake_read:
                    stopping = True
                else:
                    connection = key.fileobj
                    data = connection.recv(256)
                    if data:
                        received[connection] += data
                        self._hello(received[connection])
                        continue
                    selector.unregister(connection)
                    connection.close()
                    hello = _HELLO.match(received.pop(connection))
                    if hello:
                        ended.append((int(hello.group(1)), int(hello.group(2))))
            if ended:
                self.endings.append(sorted(ended))
        for connection in received:
            connection.close()
        selector.close()

    def _hello(self, data: bytes) -> None:
        hello = _HELLO.match(data)
        if hello:
            self.ranks[int(hello.group(2))] = int(hello.group(1))
