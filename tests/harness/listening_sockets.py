"""The sockets a set of processes listens on, read from /proc as `ss -ltnup` reads it: each
process's socket inodes (/proc/PID/fd) looked up in the TCP and UDP tables of its own network
namespace (/proc/PID/net/*). Used by test_listening_sockets.py."""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

TCP_LISTEN = "0A"
UDP_UNCONNECTED = "07"  # a bound UDP socket that takes datagrams from anyone (`ss -lu` lists it)
TABLES = {"tcp": TCP_LISTEN, "tcp6": TCP_LISTEN, "udp": UDP_UNCONNECTED, "udp6": UDP_UNCONNECTED}


@dataclass(frozen=True)
class Listener:
    pid: int
    command: str
    table: str  # tcp, tcp6, udp, udp6
    host: str
    port: int
    namespace: str  # the process's network namespace, "net:[INODE]"
    interfaces: tuple[str, ...]  # that namespace's network interfaces

    def reachable_from(self, own_namespace: str) -> bool:
        """Bound beyond loopback in our namespace, or in another one that has more than
        loopback (a namespace whose only interface is lo reaches no network)."""
        if is_loopback(self.host):
            return False
        return self.namespace == own_namespace or self.interfaces != ("lo",)


def descendants(root: int) -> set[int]:
    """root and every live process below it."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parent = int(stat[stat.rfind(")") + 2:].split()[1])  # the name may hold spaces
            children.setdefault(parent, []).append(int(entry))
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        found.add(pid)
        todo += children.get(pid, [])
    return found


def _host(hex_address: str) -> str:
    """/proc/net/tcp writes addresses as 32-bit words in host (little-endian) order."""
    raw = bytes.fromhex(hex_address)
    words = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
    return str(ipaddress.ip_address(words))


def listeners(pid: int) -> list[Listener]:
    """What pid listens on now ([] when it is gone)."""
    try:
        namespace = os.readlink(f"/proc/{pid}/ns/net")
        inodes = set()
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[len("socket:["):-1])
        if not inodes:
            return []
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        with open(f"/proc/{pid}/net/dev") as lines:
            interfaces = tuple(line.split(":")[0].strip() for line in list(lines)[2:])
    except OSError:
        return []
    found = []
    for table, state in TABLES.items():
        try:
            lines = Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]
        except OSError:  # gone, or no IPv6 here
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == state and fields[9] in inodes:
                address, port = fields[1].split(":")
                found.append(Listener(pid, command.strip(), table, _host(address), int(port, 16), namespace,
                                      interfaces))
    return found


def is_loopback(host: str) -> bool:
    address = ipaddress.ip_address(host)
    mapped = getattr(address, "ipv4_mapped", None)  # ::ffff:127.0.0.1, a JVM's IPv4 socket
    return (mapped or address).is_loopback
