#!/usr/bin/env python3
"""LinkParse against Ada (the C++ WHATWG URL parser inside Node.js) on the benchmark corpus, in one run.

    python3 Benchmarks/bench-ada.py [--rounds N] [--corpus FILE] [--cpu K] [--ada-version V]

`make bench-ada` runs it after building BenchCompare (release). What it does:

1. Ada: downloads the `ada-url` Python package's source distribution with pip (only the sdist, no install)
   into Benchmarks/.build/ada/, takes its amalgamated ada.cpp / ada.h, and compiles Benchmarks/Ada/bench_ada.cpp
   with them (g++ -O3 -std=c++20). Nothing of Ada's is committed; a second run reuses the binary.
2. Runs the two harnesses alternately, N rounds each, each process reading the same corpus file once and
   splitting it once, with one warm-up pass before its timed round, pinned to one core with `taskset` where it
   exists. Alternation spreads drift and other load over both alike.
3. Prints the machine's load first (a loaded machine gives figures not to trust), then one line per measure,
   medians with p25-p75, and the ratio to Ada's figure of the same run:

   vs-ada measure=parse linkparse_ns=... ada_ns=... ratio=... linkparse_p25=... linkparse_p75=... ada_p25=... ada_p75=...

   parse:  LinkParse parse + href and every component, against Ada's parse + the same getters;
   params: LinkParse parse + every query parameter decoded, against Ada's parse + url_search_params iterated;
   decode: LinkParse's whole decode (parse, route among 10 routes, provider decode, PendingAuthorization.validate)
           against Ada's parse alone.

Exit status 0, or 2 when a harness cannot be built or run.
"""

import argparse
import glob
import os
import shutil
import subprocess
import sys
import tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "Benchmarks")
ADA_DIR = os.path.join(BENCH, ".build", "ada")


def fail(message):
    print(f"bench-ada: {message}", file=sys.stderr)
    sys.exit(2)


def ada_binary(version):
    """Builds (once) the Ada harness from the ada-url sdist; returns its path."""
    binary = os.path.join(ADA_DIR, "bench-ada")
    source = os.path.join(BENCH, "Ada", "bench_ada.cpp")
    if os.path.exists(binary) and os.path.getmtime(binary) >= os.path.getmtime(source):
        return binary
    os.makedirs(ADA_DIR, exist_ok=True)
    sdists = glob.glob(os.path.join(ADA_DIR, "ada_url-*.tar.gz"))
    if not sdists:
        requirement = f"ada-url=={version}" if version else "ada-url"
        print(f"bench-ada: downloading the {requirement} source distribution (pip)", file=sys.stderr)
        # --no-binary for ada-url alone: its sdist, while its build requirements may come as wheels.
        status = subprocess.call(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", "ada-url",
             requirement, "-d", ADA_DIR],
            stdout=sys.stderr)
        sdists = glob.glob(os.path.join(ADA_DIR, "ada_url-*.tar.gz"))
        if status != 0 or not sdists:
            fail("could not download the ada-url source distribution with pip")
    sdist = sorted(sdists)[-1]
    with tarfile.open(sdist) as archive:
        members = [m for m in archive.getmembers() if m.name.endswith(("ada_url/ada.cpp", "ada_url/ada.h"))]
        if len(members) != 2:
            fail(f"{sdist} has no ada_url/ada.cpp and ada_url/ada.h")
        for member in members:
            member.name = os.path.basename(member.name)
            archive.extract(member, ADA_DIR)
    compiler = shutil.which("g++") or shutil.which("clang++")
    if not compiler:
        fail("no C++ compiler (g++ or clang++)")
    print(f"bench-ada: compiling Ada ({os.path.basename(sdist)}) and its harness", file=sys.stderr)
    status = subprocess.call(
        [compiler, "-O3", "-DNDEBUG", "-std=c++20", "-I", ADA_DIR, source, os.path.join(ADA_DIR, "ada.cpp"),
         "-o", binary],
        stdout=sys.stderr)
    if status != 0:
        fail("compiling the Ada harness failed")
    return binary


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def run(command):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"{' '.join(command)} exited with {result.returncode}: {result.stderr.strip()[-500:]}")
    return result.stdout


def fields(line):
    return {k: float(v) for k, v in (part.split("=", 1) for part in line.split()[1:])}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--corpus", default=os.path.join(BENCH, "corpus", "callbacks.txt"))
    parser.add_argument("--cpu", type=int, default=None, help="the core to pin both harnesses to (default: the last)")
    parser.add_argument("--ada-version", default="4.0.0", help="the ada-url release whose sdist is built")
    parser.add_argument("--linkparse", default=os.path.join(BENCH, ".build", "release", "BenchCompare"))
    args = parser.parse_args()

    if not os.path.exists(args.corpus):
        fail(f"no corpus at {args.corpus} (python3 Benchmarks/generate-corpus.py {args.corpus})")
    if not os.path.exists(args.linkparse):
        fail(f"no {args.linkparse}: cd Benchmarks && swift build -c release --product BenchCompare")
    ada = ada_binary(args.ada_version)

    cores = os.cpu_count() or 1
    load = os.getloadavg()
    pin = []
    if shutil.which("taskset"):
        cpu = args.cpu if args.cpu is not None else cores - 1
        pin = ["taskset", "-c", str(cpu)]
    print(f"load: 1m={load[0]:.2f} 5m={load[1]:.2f} 15m={load[2]:.2f} cores={cores} "
          f"pinned={'cpu ' + pin[2] if pin else 'no (no taskset)'} rounds={args.rounds}")
    if load[0] > 0.5 * cores:
        print(f"bench-ada: the machine is loaded (1-minute load {load[0]:.2f} on {cores} cores): "
              "figures from this run are not to be trusted", file=sys.stderr)

    linkparse = {"parse": [], "params": [], "decode": []}
    peer = {"parse": [], "params": []}
    for _ in range(args.rounds):
        out = run(pin + [args.linkparse, args.corpus, "--vs-ada", "1"]).strip().splitlines()[-1]
        got = fields(out)
        for key in linkparse:
            linkparse[key].append(got[f"{key}_ns"])
        out = run(pin + [ada, args.corpus, "--rounds", "1"]).strip().splitlines()[-1]
        got = fields(out)
        for key in peer:
            peer[key].append(got[f"{key}_ns"])

    for measure, ours, theirs in [("parse", "parse", "parse"), ("params", "params", "params"),
                                  ("decode", "decode", "parse")]:
        a, b = linkparse[ours], peer[theirs]
        ma, mb = percentile(a, 0.5), percentile(b, 0.5)
        print(f"vs-ada measure={measure} linkparse_ns={ma:.1f} ada_ns={mb:.1f} ratio={ma / mb:.2f} "
              f"linkparse_p25={percentile(a, 0.25):.1f} linkparse_p75={percentile(a, 0.75):.1f} "
              f"ada_p25={percentile(b, 0.25):.1f} ada_p75={percentile(b, 0.75):.1f} ada_measure=ada-{theirs}")


if __name__ == "__main__":
    main()
