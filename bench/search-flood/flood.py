#!/usr/bin/env python3
"""Search flood (issue 18, docs/reliability.md "Search flood"), standard library only.

`--conns` keep-alive connections send GET /api/search as fast as the server answers for
`--duration` seconds, `--rounds` times in a row, while a sampler asks /readyz, /api/search
and the admin band list once a second each from another address (127.0.0.2, its own
rate-limit bucket, logged in). `--spread` sends the flood from 200 loopback addresses
(127.0.1.x) instead of one, as a distributed attacker would: the per-address limit no
longer applies and only the pool budgets protect the other paths. Prints, per round, the
flood's rate and status codes and each sampled path's p50 / p99 / max in ms; the first
line is a quiet baseline. Every loop is bounded in time; traffic goes to loopback only.
"""
import argparse
import asyncio
import json
import random
import string
import time

SAMPLER_ADDR = "127.0.0.2"


async def request(reader, writer, host, path, headers=None, body=None, method="GET"):
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", "Connection: keep-alive"]
    for k, v in (headers or {}).items():
        lines.append(f"{k}: {v}")
    data = body.encode() if body else b""
    if body is not None:
        lines.append(f"Content-Length: {len(data)}")
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + data)
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length = 0
    cookies = []
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            length = int(value.strip())
        elif name == b"set-cookie":
            cookies.append(value.strip().decode())
    payload = await reader.readexactly(length) if length else b""
    return status, payload, cookies


async def one_shot(host, port, path, headers=None, body=None, method="GET", local=SAMPLER_ADDR):
    reader, writer = await asyncio.open_connection(host, port, local_addr=(local, 0))
    try:
        return await request(reader, writer, host, path, headers, body, method)
    finally:
        writer.close()


def search_text():
    # Mostly short texts (the costly ones), some longer.
    n = random.choice([1, 2, 2, 3, 4, 6])
    return "".join(random.choice(string.ascii_lowercase) for _ in range(n))


async def flooder(host, port, local, deadline, stats):
    while time.monotonic() < deadline:
        try:
            reader, writer = await asyncio.open_connection(host, port, local_addr=(local, 0))
        except OSError:
            stats["connect_errors"] = stats.get("connect_errors", 0) + 1
            await asyncio.sleep(0.05)
            continue
        try:
            while time.monotonic() < deadline:
                status, _, _ = await asyncio.wait_for(
                    request(reader, writer, host, f"/api/search?q={search_text()}"), 35)
                stats[status] = stats.get(status, 0) + 1
        except (OSError, asyncio.IncompleteReadError, asyncio.TimeoutError, ValueError):
            stats["dropped"] = stats.get("dropped", 0) + 1
        finally:
            writer.close()


async def sampler(host, port, cookie, deadline, samples):
    paths = {
        "readyz": ("/readyz", {}),
        "search": ("/api/search?q=alpha", {}),
        "admin_list": ("/admin/api/bands?limit=20", {"Cookie": cookie}),
    }
    while time.monotonic() < deadline:
        tick = time.monotonic()
        for name, (path, headers) in paths.items():
            start = time.monotonic()
            try:
                status, _, _ = await asyncio.wait_for(one_shot(host, port, path, headers), 35)
            except (OSError, asyncio.IncompleteReadError, asyncio.TimeoutError):
                status = 0
            samples[name].append(((time.monotonic() - start) * 1000, status))
        await asyncio.sleep(max(0.0, 1.0 - (time.monotonic() - tick)))


def pct(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def report(label, samples, stats, seconds):
    parts = [f"{label:<10}"]
    if stats is not None:
        total = sum(v for k, v in stats.items() if isinstance(k, int))
        codes = ",".join(f"{k}:{v}" for k, v in sorted(stats.items(), key=lambda kv: str(kv[0])))
        parts.append(f"flood {total / seconds:7.0f} req/s [{codes}]")
    for name, rows in samples.items():
        ms = [m for m, _ in rows]
        bad = sum(1 for _, s in rows if s != 200)
        parts.append(
            f"{name} p50 {pct(ms, 50):6.1f} p99 {pct(ms, 99):7.1f} max {max(ms, default=0):7.1f}"
            + (f" ({bad} not 200)" if bad else ""))
    print(" | ".join(parts), flush=True)


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=18081)
    ap.add_argument("--duration", type=float, default=60)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--conns", type=int, default=200)
    ap.add_argument("--baseline", type=float, default=10)
    ap.add_argument("--spread", action="store_true")
    ap.add_argument("--user", default="admin")
    ap.add_argument("--password", required=True)
    a = ap.parse_args()
    host = "127.0.0.1"
    login = json.dumps({"username": a.user, "password": a.password})
    status, _, cookies = await one_shot(
        host, a.port, "/admin/auth/login", {"Content-Type": "application/json"}, login, "POST")
    if status != 200 or not cookies:
        raise SystemExit(f"admin login failed: {status}")
    cookie = cookies[0].split(";", 1)[0]

    def fresh():
        return {"readyz": [], "search": [], "admin_list": []}

    quiet = fresh()
    await sampler(host, a.port, cookie, time.monotonic() + a.baseline, quiet)
    report("baseline", quiet, None, a.baseline)
    for r in range(1, a.rounds + 1):
        samples, stats = fresh(), {}
        deadline = time.monotonic() + a.duration
        sources = [f"127.0.1.{1 + i % 200}" if a.spread else "127.0.0.1" for i in range(a.conns)]
        tasks = [asyncio.create_task(flooder(host, a.port, s, deadline, stats)) for s in sources]
        await sampler(host, a.port, cookie, deadline, samples)
        await asyncio.wait(tasks, timeout=40)
        report(f"flood {r}", samples, stats, a.duration)


if __name__ == "__main__":
    asyncio.run(main())
