#!/usr/bin/env python3
"""Slow-client attacks on one `bandmap serve` (issue 31), measured from outside.

Scenarios (each alone, from the attacker address 127.0.0.2 while the probes come from
127.0.0.1, so a per-address cap can tell them apart):
  nonreading  N connections each pipelining 30 requests for a large answer, never reading;
  trickle     N logins sending their headers and then one body byte every 2 s;
  refused     one address locked by 5 wrong passwords, then logins with random 200-character
              usernames for the duration from N concurrent senders (--conns): the rows of
              admin_login_attempts are counted
              (the caller counts them with psql; this prints the attempts sent).
During the first two, /healthz and the band card /api/bands/1 are probed twice a second
with a 5 s timeout: latencies p50/p99/max (ms) and failures are printed.
"""
import argparse, asyncio, json, random, string, time, urllib.request

ATTACKER = "127.0.0.2"


async def open_from(port):
    return await asyncio.open_connection("127.0.0.1", port, local_addr=(ATTACKER, 0))


async def nonreading(port, n, path, stop):
    req = (f"GET {path} HTTP/1.1\r\nHost: x\r\nAccept-Encoding: identity\r\n\r\n" * 30).encode()
    held = []
    while not stop.is_set():
        while len(held) < n and not stop.is_set():
            try:
                r, w = await open_from(port)
                w.write(req)
                held.append(w)
            except OSError:
                await asyncio.sleep(0.05)
        # Connections the server closed are opened again: the attacker keeps N.
        held = [w for w in held if not w.is_closing() and not w.transport.get_extra_info("socket") is None]
        await asyncio.sleep(0.5)
    for w in held:
        w.close()


async def trickle(port, n, stop):
    head = (b"POST /admin/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 200\r\n\r\n{")
    held = []
    while not stop.is_set():
        while len(held) < n and not stop.is_set():
            try:
                r, w = await open_from(port)
                w.write(head)
                held.append(w)
            except OSError:
                await asyncio.sleep(0.05)
        alive = []
        for w in held:
            try:
                w.write(b" ")
                await asyncio.wait_for(w.drain(), 0.01)
                alive.append(w)
            except Exception:
                w.close()
        held = alive
        await asyncio.sleep(2)
    for w in held:
        w.close()


def probe_once(port, path):
    t = time.monotonic()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
            r.read()
            ok = r.status == 200
    except Exception:
        ok = False
    return ok, (time.monotonic() - t) * 1000


async def probes(port, duration):
    loop = asyncio.get_running_loop()
    out = {"/healthz": [], "/api/bands/1": []}
    fails = {k: 0 for k in out}
    end = time.monotonic() + duration
    while time.monotonic() < end:
        for path in out:
            ok, ms = await loop.run_in_executor(None, probe_once, port, path)
            out[path].append(ms)
            fails[path] += 0 if ok else 1
        await asyncio.sleep(0.5)
    return out, fails


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p / 100))] if xs else float("nan")


async def attack(args):
    stop = asyncio.Event()
    if args.scenario == "nonreading":
        task = asyncio.create_task(nonreading(args.port, args.conns, args.path, stop))
    else:
        task = asyncio.create_task(trickle(args.port, args.conns, stop))
    await asyncio.sleep(3)  # let the attack take hold
    lat, fails = await probes(args.port, args.duration)
    stop.set()
    await task
    for path, xs in lat.items():
        print(f"  {path:<14} probes {len(xs):>3}  failed {fails[path]:>3}  "
              f"p50 {pct(xs, 50):8.1f} ms  p99 {pct(xs, 99):8.1f} ms  max {max(xs):8.1f} ms")


def refused(args):
    def login(user, password):
        body = json.dumps({"username": user, "password": password}).encode()
        req = urllib.request.Request(f"http://{ATTACKER}:{args.port}/admin/auth/login", data=body,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status
        except urllib.error.HTTPError as e:
            return e.code
        except Exception:
            return 0
    for i in range(5):
        login(f"user{i}", "wrong")
    end = time.monotonic() + args.duration

    def worker(_):
        sent = 0
        while time.monotonic() < end:
            login("".join(random.choices(string.ascii_letters, k=200)), "guess")
            sent += 1
        return sent

    # Many connections at once, as a flood: each is held ~1 s per refusal by the tarpit.
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(args.conns) as pool:
        sent = sum(pool.map(worker, range(args.conns)))
    print(f"  refused logins sent: {sent} from {args.conns} connections")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("scenario", choices=["nonreading", "trickle", "refused"])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--conns", type=int, default=520)
    p.add_argument("--duration", type=float, default=20)
    p.add_argument("--path", default="/api/openapi.json")
    args = p.parse_args()
    if args.scenario == "refused":
        refused(args)
    else:
        asyncio.run(attack(args))


if __name__ == "__main__":
    main()
