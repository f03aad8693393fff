#!/usr/bin/env python3
"""Anonymous login starts from many client addresses against a running example server, over real sockets.

The attack of issue 33 (anonymous starts filling the pending store and switching every login off), by hand:
ADDRESSES loopback source addresses (127.3.x.y; Linux routes all of 127/8 to lo) each send EACH starts
(`GET /login/demo`) on a keep-alive connection, eight threads at once; the server's resident memory is sampled
every 5 s; then a visitor from a fresh address (127.4.0.1) logs in through the demo provider and reads /me.

    make serve-example   (or the example with LOGIN_START_LIMIT=100000 so that every start is a real one)
    python3 Scripts/flood-starts.py --port 8080 --pid "$(pgrep -f linkparse-example-server)"

Prints the status counts, the time, RSS before / during (min, max) / after, and the visitor's callback and /me
statuses. Exit status 0 when every start was answered 302 or 429, the visitor's callback 303 and /me 200.
"""
import argparse, collections, http.client, sys, threading, time, urllib.parse

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--port", type=int, default=8080)
parser.add_argument("--pid", type=int, required=True, help="the example server's process id (for its RSS)")
parser.add_argument("--addresses", type=int, default=5000)
parser.add_argument("--each", type=int, default=40, help="starts per address")
args = parser.parse_args()
base = f"http://127.0.0.1:{args.port}"


def rss_mb():
    with open(f"/proc/{args.pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024


def request(url, jar=None, source=None):
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60,
                                      source_address=(source, 0) if source else None)
    headers = {}
    if jar and parts.port == args.port:
        headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in jar.items())
    conn.request("GET", parts.path + ("?" + parts.query if parts.query else ""), headers=headers)
    answer = conn.getresponse()
    answer.read()
    conn.close()
    if jar is not None and parts.port == args.port:
        for name, value in answer.getheaders():
            if name.lower() == "set-cookie":
                key, val = value.split(";")[0].split("=", 1)
                if "max-age=0" in value.lower():
                    jar.pop(key, None)
                else:
                    jar[key] = val
    return answer.status, {k.lower(): v for k, v in answer.getheaders()}


counts, lock, samples, done = collections.Counter(), threading.Lock(), [], threading.Event()


def flood(first):
    local = collections.Counter()
    for i in range(first, args.addresses, 8):
        conn = http.client.HTTPConnection("127.0.0.1", args.port, timeout=60,
                                          source_address=(f"127.3.{i // 250}.{i % 250 + 1}", 0))
        for _ in range(args.each):
            conn.request("GET", "/login/demo")
            answer = conn.getresponse()
            answer.read()
            local[answer.status] += 1
        conn.close()
    with lock:
        counts.update(local)


def sample():
    while not done.wait(5):
        samples.append(rss_mb())


before, began = rss_mb(), time.time()
sampler = threading.Thread(target=sample)
sampler.start()
workers = [threading.Thread(target=flood, args=(k,)) for k in range(8)]
for worker in workers:
    worker.start()
for worker in workers:
    worker.join()
done.set()
sampler.join()
took, after = time.time() - began, rss_mb()

jar = {}
status, headers = request(base + "/login/demo", jar, source="127.4.0.1")
callback = me = None
if status == 302:
    status, headers = request(headers["location"])
    if status == 302:
        callback, _ = request(headers["location"], jar, source="127.4.0.1")
        me, _ = request(base + "/me", jar, source="127.4.0.1")
samples = samples or [after]
print(f"{sum(counts.values())} starts from {args.addresses} addresses in {took:.0f} s: {dict(counts)}; "
      f"RSS before {before} MB, during {min(samples)}-{max(samples)} MB, after {after} MB; "
      f"a fresh visitor's callback {callback}, /me {me}")
sys.exit(0 if set(counts) <= {302, 429} and callback == 303 and me == 200 else 1)
