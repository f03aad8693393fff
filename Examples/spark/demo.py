#!/usr/bin/env python3
"""`make spark-demo`: the linkparse job on a generated log in local[2], timed beside the two jobs a Spark user
would write instead, in the same run on the same data.

    python demo.py [--lines 1000000] [--work .build/spark] [--linkparse PATH] [--master local[2]]

1. linkparse: Examples/spark/linkparse_job.py (TRANSFORM through `linkparse --pipeline --fields compact
   --redact --routes routes.txt`, schema-read JSON, Parquet partitioned by provider and outcome, summaries);
2. parse_url: Spark SQL's built-in `try_parse_url` (`parse_url` fails the job on the first bad line under
   ANSI mode, Spark 4's default) extracting host, `code` and `state`, written to Parquet;
3. Python UDF: `urllib.parse` extracting the same three, written to Parquet;
and, for a like-for-like figure, 1b: linkparse extracting the same three (`--fields line,ok,host,
callback.code,callback.state`, no summaries), written to Parquet.

The input is read once before the timed jobs (so the file is in the page cache for each), and each time is
the wall time of the job's actions, Spark's start-up excluded.
"""

import argparse
import os
import sys
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import generate_log  # noqa: E402
import linkparse_job  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402


def parse_with_urllib(value):
    """What a Spark user writes in Python: host, code and state with urllib.parse (None for a bad line)."""
    try:
        parts = urllib.parse.urlsplit(value)
        query = urllib.parse.parse_qs(parts.query)
        return (parts.hostname, query.get("code", [None])[0], query.get("state", [None])[0])
    except ValueError:
        return None


class Jobs:
    """The four jobs, each on a given log, writing under `out`."""

    def __init__(self, spark, binary, routes, out):
        self.spark, self.binary, self.routes, self.out = spark, binary, routes, out

    def full_job(self, log, suffix=""):
        return linkparse_job.run(
            self.spark, log, os.path.join(self.out, "linkparse" + suffix), binary=self.binary, routes=self.routes)

    def linkparse_extract(self, log, suffix=""):
        command = linkparse_job.linkparse_command(
            self.binary, fields="line,ok,host,callback.code,callback.state", redact=False)
        parsed = linkparse_job.pipe_records(
            self.spark, linkparse_job.read_urls(self.spark, log), command,
            linkparse_job.read_schema(linkparse_job.COMPACT_SCHEMA))
        (parsed.select("host", F.col("callback.code").alias("code"), F.col("callback.state").alias("state"))
         .write.mode("overwrite").parquet(os.path.join(self.out, "linkparse-extract" + suffix)))

    def parse_url_extract(self, log, suffix=""):
        value = F.col("value")
        (self.spark.read.text(log)
         .select(F.try_parse_url(value, F.lit("HOST")).alias("host"),
                 F.try_parse_url(value, F.lit("QUERY"), F.lit("code")).alias("code"),
                 F.try_parse_url(value, F.lit("QUERY"), F.lit("state")).alias("state"))
         .write.mode("overwrite").parquet(os.path.join(self.out, "parse_url" + suffix)))

    def udf_extract(self, log, suffix=""):
        parse = F.udf(parse_with_urllib, "struct<host:string,code:string,state:string>", useArrow=False)
        (self.spark.read.text(log).select(parse("value").alias("u")).select("u.*")
         .write.mode("overwrite").parquet(os.path.join(self.out, "python_udf" + suffix)))


def timed(label, action, times):
    started = time.monotonic()
    result = action()
    times[label] = time.monotonic() - started
    print(f"== {label}: {times[label]:.1f} s", flush=True)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--work", default=os.path.join(linkparse_job.ROOT, ".build", "spark"))
    parser.add_argument("--linkparse", default=linkparse_job.DEFAULT_BINARY)
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args()

    os.makedirs(args.work, exist_ok=True)
    log = os.path.join(args.work, f"callbacks-{args.lines}.log")
    if not os.path.exists(log):
        started = time.monotonic()
        with open(log + ".tmp", "wb") as out:
            counts = generate_log.generate(out, args.lines, seed=7)
        os.replace(log + ".tmp", log)
        bad = counts.get("bad-line", 0)
        print(f"== generated {log}: {args.lines} lines ({bad} not URLs) in {time.monotonic() - started:.1f} s")
    size = os.path.getsize(log)
    routes = os.path.join(HERE, "routes.txt")

    spark = (SparkSession.builder.master(args.master).appName("linkparse-demo")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "8").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    lines = spark.read.text(log).count()  # warms the JVM and the page cache
    print(f"== input: {lines} lines, {size / 1e6:.0f} MB, {spark.read.text(log).rdd.getNumPartitions()} partitions")

    out = os.path.join(args.work, "out")
    jobs = Jobs(spark, args.linkparse, routes, out)
    # Every job once on a slice first: the JVM compiles the code each takes before any is timed.
    warm = os.path.join(args.work, "warm-up.log")
    with open(log, "rb") as source, open(warm, "wb") as target:
        target.writelines(line for _, line in zip(range(50_000), source))
    started = time.monotonic()
    for job in (jobs.full_job, jobs.linkparse_extract, jobs.parse_url_extract, jobs.udf_extract):
        job(warm, suffix="-warm-up")
    print(f"== warm-up on 50,000 lines: {time.monotonic() - started:.1f} s")

    times = {}
    summary, rejections = timed("linkparse job (pipe, schema, partitioned Parquet, summaries)",
                                lambda: jobs.full_job(log), times)
    records = spark.read.parquet(os.path.join(out, "linkparse", "records")).count()
    print(f"== {records} rows for {lines} input lines")
    print("== provider × outcome × error code")
    summary.show(60, truncate=False)
    print("== redirect and state rejections")
    rejections.show(30, truncate=False)
    if records != lines:
        print(f"spark-demo: {records} rows for {lines} lines", file=sys.stderr)
        return 1

    timed("linkparse extract (host, code, state)", lambda: jobs.linkparse_extract(log), times)
    timed("parse_url (host, code, state)", lambda: jobs.parse_url_extract(log), times)
    timed("Python UDF urllib.parse (host, code, state)", lambda: jobs.udf_extract(log), times)

    job = times["linkparse job (pipe, schema, partitioned Parquet, summaries)"]
    extract = times["linkparse extract (host, code, state)"]
    builtin = times["parse_url (host, code, state)"]
    python = times["Python UDF urllib.parse (host, code, state)"]
    print(f"== {lines} lines, {args.master}: seconds and ratios")
    for label, seconds in times.items():
        print(f"   {seconds:7.1f} s  {label}")
    print(f"   linkparse job / parse_url = {job / builtin:.2f}, Python UDF / linkparse job = {python / job:.2f}")
    print(f"   linkparse extract / parse_url = {extract / builtin:.2f}, "
          f"Python UDF / linkparse extract = {python / extract:.2f}")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
