"""``cli/lazy_ssl.py``: asyncio imported without OpenSSL, which loads when TLS is first used."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pi_harness.testing.self_signed import self_signed_certificate

PLAIN = """
import sys
from pi_harness.cli.lazy_ssl import import_asyncio
asyncio = import_asyncio()
assert "ssl" not in sys.modules

async def main() -> bytes:
    async def echo(reader, writer):
        writer.write(await reader.readline())
        await writer.drain()
        writer.close()
    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"plain\\n")
    line = await reader.readline()
    writer.close()
    server.close()
    return line

print(asyncio.run(main()).decode().strip(), "ssl" in sys.modules)
"""

TLS = """
import sys
from pi_harness.cli.lazy_ssl import import_asyncio
asyncio = import_asyncio()
if sys.argv[3] == "imported-first":
    import ssl  # by someone else, before asyncio touches it
assert ("ssl" in sys.modules) == (sys.argv[3] == "imported-first")

async def main() -> bytes:
    import ssl
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(sys.argv[1], sys.argv[2])
    client_context = ssl.create_default_context(cafile=sys.argv[1])

    async def echo(reader, writer):
        writer.write(await reader.readline())
        await writer.drain()
        writer.close()
    server = await asyncio.start_server(echo, "127.0.0.1", 0, ssl=server_context)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=client_context, server_hostname="localhost")
    writer.write(b"secret\\n")
    line = await reader.readline()
    writer.close()
    server.close()
    return line

print(asyncio.run(main()).decode().strip(), asyncio.sslproto.ssl is sys.modules["ssl"])
"""


def _run(code: str, *args: str) -> str:
    result = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_plain_connections_work_without_loading_ssl() -> None:
    assert _run(PLAIN) == "plain False"


def _certificate(directory: Path) -> tuple[Path, Path]:
    pytest.importorskip("cryptography")
    return self_signed_certificate(directory)


@pytest.mark.parametrize("order", ["imported-later", "imported-first"])
def test_tls_connections_load_ssl_when_used(tmp_path: Path, order: str) -> None:
    cert_file, key_file = _certificate(tmp_path)
    assert _run(TLS, str(cert_file), str(key_file), order) == "secret True"
