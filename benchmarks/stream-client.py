#!/usr/bin/env python3
"""Clients for benchmarks/streaming-vs-nginx.sh, standard library only (asyncio, raw sockets).

  sse   URL STREAMS BODY         STREAMS concurrent POSTs of BODY; each SSE event is timestamped
                                 as its chunk arrives. Prints one line: time to first event
                                 (median / p90 / max ms, from the request's send), and per stream
                                 how many gaps between token events were within 10 ms of GAP_MS.
  big   URL                      GET URL, reads the whole answer, prints bytes, seconds, MB/s.
  many  URL CONNECTIONS          CONNECTIONS concurrent GETs opened at once; prints how many were
                                 answered 200 and when the last one was (s after the start).
"""
import asyncio
import statistics
import sys
import time
import urllib.parse


def target(url):
    u = urllib.parse.urlsplit(url)
    return u.hostname, u.port, (u.path or "/") + ("?" + u.query if u.query else "")


async def read_head(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
    return status, headers


async def chunks(reader, headers):
    """Yields the body's chunks as they arrive (chunked or Content-Length or to EOF)."""
    if headers.get("transfer-encoding", "").lower() == "chunked":
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                return
            data = await reader.readexactly(size)
            await reader.readexactly(2)
            yield data
    elif "content-length" in headers:
        left = int(headers["content-length"])
        while left > 0:
            data = await reader.read(min(left, 1 << 16))
            if not data:
                raise EOFError("answer cut after %d bytes short" % left)
            left -= len(data)
            yield data
    else:
        while True:
            data = await reader.read(1 << 16)
            if not data:
                return
            yield data


async def one_sse(url, body, gap_ms):
    host, port, path = target(url)
    reader, writer = await asyncio.open_connection(host, port)
    payload = body.encode()
    writer.write(("POST %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\n"
                  "Content-Length: %d\r\nConnection: close\r\n\r\n" % (path, host, port, len(payload))).encode() + payload)
    await writer.drain()
    sent = time.perf_counter()
    status, headers = await read_head(reader)
    times = []
    buffered = b""
    async for data in chunks(reader, headers):
        now = time.perf_counter()
        buffered += data
        while b"\n\n" in buffered:
            event, buffered = buffered.split(b"\n\n", 1)
            if event.startswith(b"data: ") and event != b"data: [DONE]":
                times.append(now)
    writer.close()
    if status != 200 or not times:
        return None
    gaps = [(b - a) * 1000 for a, b in zip(times, times[1:])]
    ok = sum(1 for g in gaps if abs(g - gap_ms) <= 10)
    return (times[0] - sent) * 1000, ok, len(gaps)


async def sse(url, streams, body, gap_ms):
    results = await asyncio.gather(*(one_sse(url, body, gap_ms) for _ in range(streams)))
    good = [r for r in results if r]
    if not good:
        print("sse %s: no stream answered" % url)
        return
    ttfe = sorted(r[0] for r in good)
    oks = [r[1] for r in good]
    print("sse %s: %d/%d streams; first event median %.1f ms, p90 %.1f ms, max %.1f ms; gaps within 10 ms of %d ms: "
          "min %d/%d, median %d/%d per stream" % (
              url, len(good), streams, statistics.median(ttfe), ttfe[int(0.9 * (len(ttfe) - 1))], ttfe[-1], gap_ms,
              min(oks), good[0][2], statistics.median(oks), good[0][2]))


async def big(url):
    host, port, path = target(url)
    reader, writer = await asyncio.open_connection(host, port, limit=1 << 20)
    writer.write(("GET %s HTTP/1.1\r\nHost: %s:%d\r\nConnection: close\r\n\r\n" % (path, host, port)).encode())
    await writer.drain()
    start = time.perf_counter()
    status, headers = await read_head(reader)
    total = 0
    async for data in chunks(reader, headers):
        total += len(data)
    took = time.perf_counter() - start
    writer.close()
    print("big %s: status %d, %d bytes in %.2f s, %.0f MB/s" % (url, status, total, took, total / took / 1e6))


async def one_get(url, start):
    host, port, path = target(url)
    try:
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(("GET %s HTTP/1.1\r\nHost: %s:%d\r\nConnection: close\r\n\r\n" % (path, host, port)).encode())
        await writer.drain()
        status, headers = await read_head(reader)
        async for _ in chunks(reader, headers):
            pass
        writer.close()
        return status, time.perf_counter() - start
    except Exception as e:  # noqa: BLE001 - a refused or reset connection is a result here
        return type(e).__name__, time.perf_counter() - start


async def many(url, connections):
    start = time.perf_counter()
    results = await asyncio.gather(*(one_get(url, start) for _ in range(connections)))
    ok = [t for s, t in results if s == 200]
    other = {}
    for s, _ in results:
        if s != 200:
            other[s] = other.get(s, 0) + 1
    print("many %s: %d/%d answered 200, the last %.2f s after the start; others: %s" % (
        url, len(ok), connections, max(ok) if ok else float("nan"), other or "none"))


def main():
    mode = sys.argv[1]
    if mode == "sse":
        asyncio.run(sse(sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]) if len(sys.argv) > 5 else 20))
    elif mode == "big":
        asyncio.run(big(sys.argv[2]))
    elif mode == "many":
        import resource
        resource.setrlimit(resource.RLIMIT_NOFILE, (8192, 8192))
        asyncio.run(many(sys.argv[2], int(sys.argv[3])))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
