#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A tiny HTTP/1.1 keep-alive server for lca-load's end-to-end test: not
lca-httpd, so lca-load is shown to load any server. Writes its port to
PORT_FILE, counts the requests it answers, and writes the count to
PORT_FILE.count on SIGTERM."""
import http.server
import signal
import sys
import threading

count = 0
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        global count
        body = b"fixture\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        with lock:
            count += 1

    def log_message(self, *args):
        pass


def main():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True

    def stop(*_):
        with open(sys.argv[1] + ".count", "w") as f:
            f.write("%d\n" % count)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write("%d\n" % srv.server_address[1])
    import os
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    srv.serve_forever()


if __name__ == "__main__":
    main()
