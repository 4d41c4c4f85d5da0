"""The bot's test fixtures: the fake GitHub on 127.0.0.1, and no socket to anywhere else."""

from __future__ import annotations

import ipaddress
import socket

import pytest
from tests.bot.fake_github import FakeGitHub, State

TOKEN = "ghp_iconbenchTEST0123456789secretvalue"


def _loopback(address: object) -> bool:
    host = address[0] if isinstance(address, tuple) else address
    if host in {"localhost"}:
        return True
    try:
        return ipaddress.ip_address(str(host)).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True)
def only_loopback(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Refuse (and record) every name lookup and connection that is not to 127.0.0.1/::1."""
    refused: list[object] = []
    real_connect = socket.socket.connect
    real_create = socket.create_connection

    def connect(self: socket.socket, address: object) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(address):
            refused.append(address)
            raise ConnectionRefusedError(f"test: no traffic to {address!r}")
        return real_connect(self, address)

    def create_connection(address: tuple, *args: object, **kwargs: object) -> socket.socket:
        if not _loopback(address):
            refused.append(address)
            raise ConnectionRefusedError(f"test: no traffic to {address!r}")
        return real_create(address, *args, **kwargs)

    real_getaddrinfo = socket.getaddrinfo

    def getaddrinfo(host: object, port: object, *args: object, **kwargs: object) -> list:
        if not _loopback((host, port)):
            refused.append((host, port))
            raise socket.gaierror(f"test: no name lookups but loopback ({host!r})")
        return real_getaddrinfo(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "create_connection", create_connection)
    return refused


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch):
    """A fresh fake GitHub serving GridTools/gt4py#1234, with the token in the environment."""
    state = State(token=TOKEN)
    monkeypatch.setenv("ICONBENCH_GITHUB_TOKEN", TOKEN)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("GITHUB_SERVER_URL", raising=False)
    with FakeGitHub(state) as server:
        yield server
