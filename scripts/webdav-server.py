#!/usr/bin/env python3
"""A real WebDAV server on loopback for the WebDAV tests (docs/webdav.md): wsgidav on cheroot, Basic auth only.

    webdav-server.py ROOT USER PASSWORD [LIFETIME_SECONDS]

Serves the folder ROOT at / on 127.0.0.1, on a port the system picks, with one account (USER, PASSWORD) and
Basic authentication (no Digest, as 坚果云 and most self-hosted servers are used by Legado). Prints
"PORT <n>" on a line of its own once it listens, then serves until its standard input closes (the test that
started it ended, or died) or LIFETIME_SECONDS (default 120) have passed, whichever is first: it never
outlives the test by more than that.

wsgidav and cheroot come from PyPI: scripts/install-deps.sh installs them into .build/webdav-venv, whose
python3 runs this file.
"""
import os
import sys
import threading

from cheroot import wsgi
from wsgidav.wsgidav_app import WsgiDAVApp


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    root, user, password = sys.argv[1], sys.argv[2], sys.argv[3]
    lifetime = float(sys.argv[4]) if len(sys.argv) > 4 else 120.0
    os.makedirs(root, exist_ok=True)
    config = {
        "host": "127.0.0.1",
        "port": 0,
        "provider_mapping": {"/": root},
        "http_authenticator": {"accept_basic": True, "accept_digest": False, "default_to_digest": False},
        "simple_dc": {"user_mapping": {"*": {user: {"password": password}}}},
        "verbose": 0,
        "logging": {"enable": False},
        "lock_storage": True,
        "property_manager": True,
    }
    app = WsgiDAVApp(config)
    server = wsgi.Server(("127.0.0.1", 0), app, numthreads=4, request_queue_size=16, timeout=10)
    server.prepare()
    port = server.bind_addr[1]
    print(f"PORT {port}", flush=True)

    def stop_when_stdin_closes():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        finally:
            server.stop()

    threading.Thread(target=stop_when_stdin_closes, daemon=True).start()
    timer = threading.Timer(lifetime, server.stop)
    timer.daemon = True
    timer.start()
    try:
        server.serve()
    finally:
        timer.cancel()
    return 0


if __name__ == "__main__":
    sys.exit(main())
