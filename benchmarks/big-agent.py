#!/usr/bin/env python3
"""An agent that answers GET /...?bytes=N with N bytes, chunked, written 64 KiB at a time
(benchmarks/streaming-vs-nginx.sh). Usage: big-agent.py PORT"""
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BLOCK = bytes((97 + i % 26) for i in range(1 << 16))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        left = int(query.get("bytes", ["1048576"])[0])
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            while left > 0:
                block = BLOCK[:min(left, len(BLOCK))]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(block), block))
                left -= len(block)
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
