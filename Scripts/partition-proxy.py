#!/usr/bin/env python3
"""A Unix-socket relay in front of a PostgreSQL server that can be cut and healed: the fleet's
network-partition fault tests put one host behind it.

Usage: partition-proxy.py LISTEN_SOCKET TARGET_SOCKET
  SIGUSR1 cuts the link, SIGUSR2 heals it, SIGTERM ends the relay.

A cut behaves as a partition does on TCP, not as a refused connection: nothing is forwarded in
either direction and nothing is closed. Bytes a side sends stay queued (as TCP keeps
retransmitting unacknowledged segments) and arrive when the link heals; new connections are
accepted but get no answer until then (as a SYN with no reply keeps a client waiting). So a
statement a client gave up on during the cut may still reach the server afterwards, which is
exactly what the store must survive.
"""
import asyncio
import os
import signal
import sys

CHUNK = 65536


async def pump(reader, writer, healed):
    try:
        while True:
            await healed.wait()
            data = await reader.read(CHUNK)
            if not data:
                break
            # Read just before a cut: held until the link heals.
            await healed.wait()
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()


async def relay(client_reader, client_writer, target, healed):
    await healed.wait()
    try:
        server_reader, server_writer = await asyncio.open_unix_connection(target)
    except OSError:
        client_writer.close()
        return
    await asyncio.gather(
        pump(client_reader, server_writer, healed), pump(server_reader, client_writer, healed)
    )


async def main(listen, target):
    # A parent may spawn us with these signals blocked (a test process's threads block signals
    # they leave to a dispatcher, and the mask is inherited): a blocked SIGUSR1 would never cut.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1, signal.SIGUSR2, signal.SIGTERM})
    healed = asyncio.Event()
    healed.set()
    done = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGUSR1, healed.clear)
    loop.add_signal_handler(signal.SIGUSR2, healed.set)
    loop.add_signal_handler(signal.SIGTERM, done.set)
    if os.path.exists(listen):
        os.unlink(listen)
    server = await asyncio.start_unix_server(
        lambda r, w: relay(r, w, target, healed), path=listen
    )
    os.chmod(listen, 0o777)
    await done.wait()
    server.close()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        sys.exit(2)
    asyncio.run(main(sys.argv[1], sys.argv[2]))
