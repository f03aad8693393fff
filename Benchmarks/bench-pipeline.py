#!/usr/bin/env python3
"""`linkparse` against a Node.js script doing the same job, through a pipe: lines per second.

    python3 Benchmarks/bench-pipeline.py --linkparse PATH [--default-build PATH] [--rounds N] [--repeat N]
        [--corpus FILE] [--node NODE]

`make bench-pipeline` runs it with the static `linkparse` (`make build-static`), and with the default release build
as `--default-build`. What it does:

1. Writes the benchmark corpus REPEAT times (default 20: 200,000 lines) into Benchmarks/.build/pipeline-input.txt.
2. Checks that both programs write the same bytes for it: `linkparse --pipeline --fields FIELDS` and
   Benchmarks/Node/pipeline.mjs (`new URL` and `searchParams`, Node's WHATWG parser, which is Ada) write one JSON
   record per line with the same keys and values (FIELDS: line, ok, href, scheme, username, password, host, port,
   path, query, fragment, params).
3. Runs each as a pipeline stage, `cat input | PROGRAM | cat > /dev/null`, alternately, N rounds each (default 5),
   timing the whole pipeline's wall clock, and with them, interleaved and timed the same way, the default build (when
   given: it must write the same bytes) and an ideal stage made of `cat` that does no work,
   `sh -c 'exec 3<&0; cat <&3 > /dev/null & cat EXPECTED; wait'`: it reads its input and writes linkparse's own
   output (kept as Benchmarks/.build/pipeline-expected.jsonl), so its time is the pipes' and the copies' alone, with
   the pipes as the shell makes them (64 KiB). `linkparse` widens its pipes to 1 MiB and writes from a second thread,
   so it can be faster than this stage. Prints the machine's load first, then lines per second (medians), and

   vs-node measure=pipeline linkparse_lines_per_s=... node_lines_per_s=... ratio=... lines=... bytes_out=...
   vs-node measure=pipeline-default linkparse_lines_per_s=... node_lines_per_s=... ratio=...
   vs-node measure=ceiling stage_lines_per_s=... node_lines_per_s=... ratio=...

   where ratio is linkparse's lines per second over Node's, and on the last line the ideal stage's over Node's.

Exit status 0; 1 when the two outputs differ; 2 when a program cannot run.
"""

import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "Benchmarks")
FIELDS = "line,ok,href,scheme,username,password,host,port,path,query,fragment,params"


def fail(message, status=2):
    print(f"bench-pipeline: {message}", file=sys.stderr)
    sys.exit(status)


def output_digest(command, path, keep=None):
    """The sha256 and size of what `command` writes for the file at `path` on its stdin (written to `keep` too
    when given)."""
    with open(path, "rb") as source:
        run = subprocess.run(command, stdin=source, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if run.returncode not in (0, 1):
        fail(f"{' '.join(command)} exited {run.returncode}: {run.stderr.decode(errors='replace')[-500:]}")
    if keep is not None:
        with open(keep, "wb") as target:
            target.write(run.stdout)
    return hashlib.sha256(run.stdout).hexdigest(), len(run.stdout)


def timed_pipeline(command, path):
    """Seconds for `cat path | command | cat > /dev/null`."""
    quoted = " ".join("'" + part.replace("'", "'\\''") + "'" for part in command)
    script = f"set -o pipefail; cat '{path}' | {quoted} | cat > /dev/null"
    began = time.perf_counter()
    status = subprocess.call(["bash", "-c", script])
    elapsed = time.perf_counter() - began
    if status not in (0, 1):
        fail(f"the pipeline {script!r} exited {status}")
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--linkparse", required=True, help="the linkparse executable measured (a release build)")
    parser.add_argument("--default-build", help="another linkparse executable, timed beside it (the default build)")
    parser.add_argument("--node", default=shutil.which("node") or "node", help="the node executable")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--corpus", default=os.path.join(BENCH, "corpus", "callbacks.txt"))
    args = parser.parse_args()
    for executable in filter(None, [args.linkparse, args.default_build]):
        if not os.access(executable, os.X_OK):
            fail(f"{executable} is not an executable")
    if shutil.which(args.node) is None:
        fail(f"{args.node} not found (Debian: apt-get install nodejs)")

    with open(args.corpus, "rb") as source:
        corpus = source.read()
    if not corpus.endswith(b"\n"):
        corpus += b"\n"
    os.makedirs(os.path.join(BENCH, ".build"), exist_ok=True)
    path = os.path.join(BENCH, ".build", "pipeline-input.txt")
    with open(path, "wb") as target:
        for _ in range(args.repeat):
            target.write(corpus)
    lines = corpus.count(b"\n") * args.repeat

    linkparse = [args.linkparse, "--pipeline", "--fields", FIELDS]
    node = [args.node, os.path.join(BENCH, "Node", "pipeline.mjs")]
    node_version = subprocess.run([args.node, "--version"], capture_output=True, text=True).stdout.strip()
    expected = os.path.join(BENCH, ".build", "pipeline-expected.jsonl")
    # The ideal stage: reads all its input (as a stage must, or the writer upstream would stop) while it writes
    # the expected output; `wait` ends it when both are done. (The reader's input goes through descriptor 3: sh
    # gives a background command /dev/null as its standard input.)
    ceiling = ["sh", "-c", 'exec 3<&0; cat <&3 > /dev/null & cat "$0"; wait', expected]
    ours, ours_size = output_digest(linkparse, path, keep=expected)
    theirs, theirs_size = output_digest(node, path)
    if ours != theirs:
        fail(f"the outputs differ ({ours_size} bytes from linkparse, {theirs_size} from node): compare them with "
             f"`{' '.join(linkparse)} < {path}` and `{' '.join(node)} < {path}`", 1)
    programs = {"linkparse": linkparse}
    if args.default_build:
        default = [args.default_build] + linkparse[1:]
        digest, size = output_digest(default, path)
        if digest != ours:
            fail(f"the default build writes other bytes than {args.linkparse} ({size} against {ours_size})", 1)
        programs["default build"] = default
    print(f"bench-pipeline: {lines} lines ({len(corpus) * args.repeat} bytes in, {ours_size} bytes out, "
          f"{ours_size / lines:.0f} a record), byte for byte the same from both; node {node_version}")

    with open("/proc/loadavg") as load:
        print(f"bench-pipeline: load average {' '.join(load.read().split()[:3])} on {os.cpu_count()} cores "
              "(a busy machine gives figures not to trust)")
    programs.update({"node": node, "ceiling": ceiling})
    times = {name: [] for name in programs}
    for _ in range(args.rounds):
        for name, command in programs.items():
            times[name].append(timed_pipeline(command, path))
    rate = {name: lines / statistics.median(values) for name, values in times.items()}
    for name, values in times.items():
        print(f"bench-pipeline: {name}: median {statistics.median(values):.3f} s, {rate[name]:,.0f} lines/s "
              f"(rounds: {', '.join(f'{value:.3f}' for value in values)})")
    print(f"bench-pipeline: linkparse takes {rate['ceiling'] / rate['linkparse']:.0%} of the time of the ideal stage "
          "made of cat (which only reads its input and writes the expected output, through 64 KiB pipes)")
    print(f"vs-node measure=pipeline linkparse_lines_per_s={rate['linkparse']:.0f} "
          f"node_lines_per_s={rate['node']:.0f} ratio={rate['linkparse'] / rate['node']:.2f} lines={lines} "
          f"bytes_out={ours_size}")
    if "default build" in rate:
        print(f"vs-node measure=pipeline-default linkparse_lines_per_s={rate['default build']:.0f} "
              f"node_lines_per_s={rate['node']:.0f} ratio={rate['default build'] / rate['node']:.2f}")
    print(f"vs-node measure=ceiling stage_lines_per_s={rate['ceiling']:.0f} node_lines_per_s={rate['node']:.0f} "
          f"ratio={rate['ceiling'] / rate['node']:.2f}")


if __name__ == "__main__":
    main()
