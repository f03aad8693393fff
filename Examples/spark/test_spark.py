#!/usr/bin/env python3
"""`make spark-test`: `linkparse` as a pipeline stage, its published schemas, and the Spark job, on small data.

    python test_spark.py [--linkparse PATH]

Checks, each counted:
- `--pipeline`: a run whose lines all fail still answers every line and exits 0 (the default mode's 1 is
  unchanged); a 1 MB line, invalid UTF-8 and NUL bytes give one record each; a caller that writes a line and
  waits for its answer gets it (no deadlock); an empty input gives nothing and 0; a usage error gives 2;
- `--fields` naming every key writes the default record byte for byte;
- Schemas/linkparse-record-v1.ddl: every key real output has (samples, options, a generated log) is in it
  with its type; Schemas/linkparse-compact-v1.ddl: a projection of it, and `--fields compact` output has
  exactly its keys (each written, each in the schema);
- the Spark job (Examples/spark/linkparse_job.py, local[2]) through TRANSFORM and through RDD.pipe on a
  generated log with bad lines and a 1 MB line: one row per input line, the summary equal to linkparse's own
  count, no code or token in the output; empty partitions and a partition of invalid lines only; Parquet
  input; and without `--pipeline` the same partition fails the job, as the issue says.

Ends with `spark: N passed, M failed` and exits 1 if any failed.
"""

import argparse
import collections
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import generate_log  # noqa: E402
import linkparse_job  # noqa: E402

ROOT = linkparse_job.ROOT
SAMPLES = os.path.join(ROOT, "samples", "callbacks.txt")
SAMPLES_JSON = os.path.join(ROOT, "samples", "callbacks.jsonl")
ROUTES = os.path.join(HERE, "routes.txt")
ALL_KEYS = "line,ok,href,scheme,username,password,host,port,path,query,fragment,params,callback,route,error"


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, condition, detail=""):
        if condition:
            self.passed += 1
            print(f"  ok    {name}", flush=True)
        else:
            self.failed += 1
            print(f"  FAIL  {name}: {detail}", flush=True)

    def run(self, name, function):
        """Runs a group of checks; an exception counts as one failure."""
        print(f"== {name}", flush=True)
        started = time.monotonic()
        try:
            function()
        except Exception:
            self.failed += 1
            print(f"  FAIL  {name} raised:\n{traceback.format_exc()}", flush=True)
        print(f"   ({name}: {time.monotonic() - started:.1f} s)", flush=True)


def linkparse(binary, args, stdin=b""):
    result = subprocess.run([binary, *args], input=stdin, capture_output=True, timeout=120)
    return result.returncode, result.stdout, result.stderr


def records(stdout):
    return [json.loads(line) for line in stdout.decode("utf-8").splitlines()]


# ---- --pipeline and --fields, without Spark

def pipeline_checks(checks, binary, work):
    bad = b"\n".join([b"https://exa mple.com/", b"http://host:99999/", b"", b"::", b"https://[::1/x"] * 100) + b"\n"
    status, out, err = linkparse(binary, ["--pipeline"], bad)
    lines = out.splitlines()
    checks.check("--pipeline: 500 invalid lines give 500 records and exit 0",
                 status == 0 and len(lines) == 500 and all(not r["ok"] for r in records(out)),
                 f"status {status}, {len(lines)} lines, {err[:200]!r}")
    status, out, _ = linkparse(binary, [], bad)
    checks.check("default mode: the same input still exits 1", status == 1 and len(out.splitlines()) == 500,
                 f"status {status}")
    status, out, _ = linkparse(binary, ["--pipeline", "--fields", "compact"], bad)
    checks.check("--pipeline --fields compact: 500 records, exit 0",
                 status == 0 and [r["error"]["code"] for r in records(out)][:2]
                 == ["forbidden-host-code-point", "invalid-port"], f"status {status}, {out[:200]!r}")

    hostile = [b"https://id.example.ru/cb?pad=" + b"a" * (1 << 20), b"https://a.ru/\xff\xfe?code=\xc3",
               b"https://a.ru/\x00x?code=\x00", b"\x00", b"\xff"]
    for options in (["--pipeline"], ["--pipeline", "--fields", "compact", "--redact"]):
        status, out, _ = linkparse(binary, options, b"\n".join(hostile) + b"\n")
        lines = out.splitlines()
        parsed = records(out)
        checks.check(f"{' '.join(options)}: a 1 MB line, invalid UTF-8 and NUL bytes give one record each",
                     status == 0 and len(lines) == len(hostile) and [r["line"] for r in parsed] == [1, 2, 3, 4, 5],
                     f"status {status}, {len(lines)} lines")

    status, out, err = linkparse(binary, ["--pipeline"], b"")
    checks.check("--pipeline: empty input gives no output and exit 0", status == 0 and out == b"", f"status {status}")
    status, _, err = linkparse(binary, ["--pipeline", "--fields", "callback.error.nope"], b"x\n")
    checks.check("--pipeline: a usage error still exits 2", status == 2 and b"--fields" in err, f"{status} {err!r}")
    status, _, err = linkparse(binary, ["--pipeline", os.path.join(work, "missing.txt")])
    checks.check("--pipeline: an unreadable file still exits 2", status == 2, f"status {status}")

    # A caller that writes one line and waits for its answer: the answer must come before the next line.
    process = subprocess.Popen([binary, "--pipeline", "--fields", "compact"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE)
    answers = []
    for k in range(3):
        process.stdin.write(b"https://a.ru/cb?code=c%d&state=s\n" % k)
        process.stdin.flush()
        ready, _, _ = select.select([process.stdout], [], [], 10)
        answers.append(process.stdout.readline() if ready else b"")
    process.stdin.close()
    rest = process.stdout.read()
    status = process.wait(timeout=30)
    checks.check("--pipeline: each answer comes before the next line is written (no deadlock)",
                 all(a.startswith(b'{"line":%d,' % (k + 1)) for k, a in enumerate(answers)) and rest == b""
                 and status == 0, f"{answers} {rest!r} {status}")

    for inputs, options in (([SAMPLES], []), ([SAMPLES], ["--redact"]), ([SAMPLES], ["--routes", ROUTES]),
                            ([SAMPLES_JSON], ["--input-format", "json"])):
        _, full, _ = linkparse(binary, options + inputs)
        _, projected, _ = linkparse(binary, options + ["--fields", ALL_KEYS] + inputs)
        checks.check(f"--fields with every key is the default record, byte for byte ({' '.join(options)})",
                     full == projected and len(full) > 0, f"{len(full)} vs {len(projected)} bytes")

    _, out, _ = linkparse(binary, ["--fields", "callback.provider,line"],
                          b"myapp://authorized?cancelled\nhttp://h:99999/\nhttps://a.ru/\n")
    checks.check("--fields keeps the record's own key order, and null objects",
                 out == b'{"line":1,"callback":{"provider":"tid"}}\n{"line":2}\n{"line":3,"callback":null}\n',
                 repr(out))


# ---- the schemas

def leaf_paths(dtype, prefix=""):
    from pyspark.sql.types import StructType
    paths = set()
    for field in dtype.fields:
        path = prefix + field.name
        if isinstance(field.dataType, StructType):
            paths |= leaf_paths(field.dataType, path + ".")
        else:
            paths.add(path)
    return paths


def conform(value, dtype, path, problems, present):
    """Checks a JSON value against a Spark type; records the non-null leaf paths seen in `present`."""
    from pyspark.sql import types as T
    if value is None:
        return
    if isinstance(dtype, T.StructType):
        if not isinstance(value, dict):
            return problems.append(f"{path}: {value!r} is not an object")
        fields = {f.name: f.dataType for f in dtype.fields}
        for key, item in value.items():
            child = f"{path}.{key}" if path else key
            if key not in fields:
                # Sber ID's pass-through extras are the partner's own keys (documented in the schema file).
                if path == "callback" and value.get("provider") == "sber" and value.get("outcome") == "success":
                    continue
                problems.append(f"{child} is not in the schema")
            else:
                conform(item, fields[key], child, problems, present)
        return
    present.add(path)
    if isinstance(dtype, T.ArrayType):
        if not isinstance(value, list):
            return problems.append(f"{path}: {value!r} is not an array")
        for item in value:
            conform(item, dtype.elementType, path + "[]", problems, set())
    elif isinstance(dtype, T.MapType):
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            problems.append(f"{path}: {value!r} is not a map of strings")
    elif isinstance(dtype, T.StringType):
        # VK ID's expires_in is a number (the schema file says why STRING reads it).
        if not isinstance(value, str) and not (path == "callback.expires_in" and isinstance(value, int)):
            problems.append(f"{path}: {value!r} is not a string")
    elif isinstance(dtype, (T.LongType, T.IntegerType)):
        limit = 2**31 if isinstance(dtype, T.IntegerType) else 2**63
        if isinstance(value, bool) or not isinstance(value, int) or not -limit <= value < limit:
            problems.append(f"{path}: {value!r} is not a {dtype.simpleString()}")
    elif isinstance(dtype, T.BooleanType):
        if not isinstance(value, bool):
            problems.append(f"{path}: {value!r} is not a boolean")
    else:
        problems.append(f"{path}: the test does not know the type {dtype}")


def schema_checks(checks, spark, binary, log):
    from pyspark.sql.types import _parse_datatype_string
    full = _parse_datatype_string(linkparse_job.read_schema(linkparse_job.FULL_SCHEMA))
    compact = _parse_datatype_string(linkparse_job.read_schema(linkparse_job.COMPACT_SCHEMA))
    checks.check("the schema files parse as Spark DDL", len(full.fields) == 15 and len(compact.fields) == 6,
                 f"{len(full.fields)} and {len(compact.fields)} fields")

    runs = [
        [SAMPLES], ["--redact", SAMPLES], ["--routes", ROUTES, SAMPLES], ["--input-format", "json", SAMPLES_JSON],
        ["--state", "Qk7x2LmN9pRtVw3a", "--redirect-uri", "https://client.example/cb", "--issuer",
         "https://honest.as.example", SAMPLES],
        ["--routes", ROUTES, "--redact", log],
    ]
    problems, present, count = [], set(), 0
    for args in runs:
        _, out, _ = linkparse(binary, args)
        for record in records(out):
            conform(record, full, "", problems, present)
            count += 1
    checks.check(f"every key of {count} full records is in linkparse-record-v1.ddl with its type", not problems,
                 "; ".join(sorted(set(problems))[:10]))

    def flat_types(dtype, prefix=""):
        from pyspark.sql.types import StructType
        out = {}
        for field in dtype.fields:
            out[prefix + field.name] = field.dataType
            if isinstance(field.dataType, StructType):
                out.update(flat_types(field.dataType, prefix + field.name + "."))
        return out
    full_types = flat_types(full)
    mismatched = [p for p, t in flat_types(compact).items()
                  if p not in full_types or (not hasattr(t, "fields") and full_types[p] != t)]
    checks.check("linkparse-compact-v1.ddl is a projection of linkparse-record-v1.ddl", not mismatched,
                 str(mismatched))

    problems, present = [], set()
    for args in (["--routes", ROUTES, "--redact", log], ["--routes", ROUTES, SAMPLES]):
        _, out, _ = linkparse(binary, ["--fields", "compact", *args])
        for record in records(out):
            conform(record, compact, "", problems, present)
    checks.check("every key of --fields compact output is in linkparse-compact-v1.ddl", not problems,
                 "; ".join(sorted(set(problems))[:10]))
    missing = leaf_paths(compact) - present
    checks.check("every key of linkparse-compact-v1.ddl is written by --fields compact", not missing, str(missing))


# ---- the Spark job

def expected_summary(binary, log):
    """The job's summary, computed from linkparse's own output on the file."""
    _, out, _ = linkparse(binary, linkparse_job.linkparse_command(binary, routes=ROUTES)[1:] + [log])
    counts = collections.Counter()
    for r in records(out):
        callback = r.get("callback")
        if not r["ok"]:
            provider = outcome = "invalid-url"
        elif callback is None:
            provider = outcome = "none"
        else:
            provider, outcome = callback["provider"], callback["outcome"]
        code = ((callback or {}).get("error") or {}).get("code") or (r.get("error") or {}).get("code")
        counts[(provider, outcome, code)] += 1
    return counts


def job_checks(checks, spark, binary, work, log, lines):
    # As on a cluster: spark-submit ships the binary, the routes and the schema with --files, and the job
    # names them ./linkparse and ./routes.txt (a TRANSFORM script runs in the directory of those files).
    # Started first and waited for last: its own JVM starts while the checks below run in this session.
    small = os.path.join(work, "small.log")
    with open(small, "wb") as f:
        generate_log.generate(f, 1000, seed=3)
    import pyspark
    submit = os.path.join(os.path.dirname(sys.executable), "spark-submit")
    files = ",".join([binary, ROUTES, linkparse_job.COMPACT_SCHEMA])
    environment = dict(os.environ, SPARK_HOME=os.path.dirname(pyspark.__file__), PYSPARK_PYTHON=sys.executable,
                       PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    submitted = subprocess.Popen(
        [submit, "--master", "local[2]", "--conf", "spark.ui.enabled=false", "--conf",
         "spark.ui.showConsoleProgress=false", "--files", files, os.path.join(HERE, "linkparse_job.py"),
         "--input", small, "--output", os.path.join(work, "out-submit"), "--linkparse", "./linkparse",
         "--routes", "./routes.txt"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=work,
        env=environment)
    try:
        job_checks_in_session(checks, spark, binary, work, log, lines)
    finally:
        try:
            stdout, stderr = submitted.communicate(timeout=600)
        except subprocess.TimeoutExpired:
            submitted.kill()
            stdout, stderr = submitted.communicate()
    checks.check("spark-submit --files linkparse,routes.txt,…: the job with ./linkparse prints 1000 records",
                 submitted.returncode == 0 and "== linkparse job: 1000 records" in stdout,
                 f"exit {submitted.returncode}: {stdout[-300:]} {stderr[-600:]}")


def job_checks_in_session(checks, spark, binary, work, log, lines):
    from pyspark.sql import functions as F
    expected = expected_summary(binary, log)
    for via in ("transform", "pipe"):
        out = os.path.join(work, f"out-{via}")
        summary, rejections = linkparse_job.run(spark, log, out, binary=binary, routes=ROUTES, via=via)
        rows = spark.read.parquet(os.path.join(out, "records"))
        count = rows.count()
        checks.check(f"job via {via}: {lines} input lines give {lines} rows", count == lines, f"{count} rows")
        got = {(r["provider"], r["outcome"], r["error_code"]): r["count"] for r in summary.collect()}
        checks.check(f"job via {via}: the summary equals linkparse's own count", got == dict(expected),
                     f"{sorted(set(got.items()) ^ set(expected.items()))[:6]}")
        reasons = {r["reason"] for r in rejections.collect()}
        checks.check(f"job via {via}: redirect and state rejections are found",
                     {"redirect:unregistered-endpoint", "state:duplicate-parameter"} <= reasons, str(reasons))
        text = rows.select(F.to_json(F.struct(*rows.columns)).alias("j"))
        leaks = text.where(F.col("j").contains("SECRETx")).count()
        checks.check(f"job via {via}: no code or token reaches the output (--redact)", leaks == 0, f"{leaks} rows")
        partitions = sorted(os.listdir(os.path.join(out, "records")))
        checks.check(f"job via {via}: Parquet partitioned by provider", "provider=invalid-url" in partitions
                     and "provider=vk" in partitions, str(partitions))

    # Empty partitions, and a partition of invalid lines only.
    edge = os.path.join(work, "edge")
    os.makedirs(edge, exist_ok=True)
    with open(os.path.join(edge, "invalid.txt"), "wb") as f:
        f.write(b"\n".join([b"https://exa mple.com/", b"http://h:99999/", b"\xff\x00"] * 40) + b"\n")
    urls = linkparse_job.read_urls(spark, edge).repartition(16)
    command = linkparse_job.linkparse_command(binary)
    schema = linkparse_job.read_schema(linkparse_job.COMPACT_SCHEMA)
    got = linkparse_job.pipe_records(spark, urls, command, schema).groupBy("ok").count().collect()
    checks.check("16 partitions (some empty) of invalid lines only: 120 rows, none ok",
                 [(r["ok"], r["count"]) for r in got] == [(False, 120)], str(got))
    one = linkparse_job.read_urls(spark, edge).coalesce(1)
    spark.sparkContext.setLogLevel("OFF")  # the failure below is expected: no stack traces
    try:
        linkparse_job.pipe_records(spark, one, linkparse_job.linkparse_command(binary, pipeline=False), schema).count()
        failed = None
    except Exception as error:  # noqa: BLE001 - Spark raises its own wrapped errors
        failed = str(error)
    spark.sparkContext.setLogLevel("ERROR")
    checks.check("without --pipeline, the partition of invalid lines fails the task (exit status 1)",
                 failed is not None and "status 1" in failed, (failed or "the job succeeded")[:300])

    # Parquet input with a URL column (nulls and a CR-LF included).
    parquet = os.path.join(work, "urls.parquet")
    spark.createDataFrame([("https://a.ru/cb?code=SECRETx1&state=s",), (None,), ("https://a.ru/cb?error=x\r\n",),
                           ("https://exa mple.com/",)], "url string").write.mode("overwrite").parquet(parquet)
    summary, _ = linkparse_job.run(spark, parquet, os.path.join(work, "out-parquet"), binary=binary,
                                   input_format="parquet", url_column="url")
    got = collections.Counter()
    for r in summary.collect():
        got[(r["provider"], r["outcome"])] += r["count"]
    checks.check("Parquet input: one row per URL, nulls and CR-LF included",
                 dict(got) == {("oauth2", "success"): 1, ("oauth2", "error"): 1, ("invalid-url", "invalid-url"): 2},
                 str(got))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--linkparse", default=linkparse_job.DEFAULT_BINARY)
    parser.add_argument("--lines", type=int, default=20000)
    args = parser.parse_args()
    binary = os.path.abspath(args.linkparse)
    checks = Checks()
    work = tempfile.mkdtemp(prefix="linkparse-spark-test-")
    started = time.monotonic()
    try:
        log = os.path.join(work, "callbacks.log")
        with open(log, "wb") as out:
            generate_log.generate(out, args.lines, seed=11, long_line_bytes=1 << 20)
        lines = args.lines + 1
        checks.run("linkparse --pipeline and --fields", lambda: pipeline_checks(checks, binary, work))

        from pyspark.sql import SparkSession
        spark = (SparkSession.builder.master("local[2]").appName("linkparse-test")
                 .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
                 .config("spark.sql.shuffle.partitions", "4").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        checks.run("schemas against real output", lambda: schema_checks(checks, spark, binary, log))
        checks.run("the Spark job in local[2]", lambda: job_checks(checks, spark, binary, work, log, lines))
        spark.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"== spark tests: {time.monotonic() - started:.0f} s")
    print(f"spark: {checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
