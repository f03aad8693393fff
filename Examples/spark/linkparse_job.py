#!/usr/bin/env python3
"""Audits logged callback URLs with Apache Spark: every partition is piped through `linkparse`.

    spark-submit linkparse_job.py --input LOG --output DIR [--linkparse PATH] [--routes FILE] [options]

Reads text (one URL per line) or Parquet (`--input-format parquet --url-column url`), pipes each partition
through `linkparse --pipeline --fields compact --redact` (Spark SQL's TRANSFORM, or PySpark's `RDD.pipe` with
`--via pipe`), reads its JSON lines with the published schema (Schemas/linkparse-compact-v1.ddl: no inference
pass) and writes:

    DIR/records/provider=…/outcome=…/*.parquet   one row per input line (redacted: no code or token)
    DIR/summary/                                 counts per provider × outcome × error code
    DIR/rejections/                              redirect and state rejections, by reason

`provider` is the callback's provider, `none` for a URL that carries no callback and `invalid-url` for a line
that is not a URL; `outcome` likewise. With `--routes`, a callback whose URL matches none of the service's
callback endpoints is counted as an open-redirect attempt. `--pipeline` is what lets Spark run it: without
it, `linkparse` exits 1 when any line of a partition fails to parse, and Spark fails the task.

The binary: by default .build/release/linkparse beside this repository, by its absolute path (local mode).
On a cluster, ship it with `spark-submit --files linkparse,routes.txt,linkparse-compact-v1.ddl` and pass
`--linkparse ./linkparse --routes ./routes.txt`: Spark runs a TRANSFORM script in the directory the
`--files` are fetched to (SparkFiles.getRootDirectory(), on every master, local included). Or install it on
every worker at the same absolute path. `--via pipe` runs it from the Python worker's directory: give it an
absolute path. See docs/spark.md.
"""

import argparse
import os
import shlex
import sys
import time

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_BINARY = os.path.join(ROOT, ".build", "release", "linkparse")
COMPACT_SCHEMA = os.path.join(ROOT, "Schemas", "linkparse-compact-v1.ddl")
FULL_SCHEMA = os.path.join(ROOT, "Schemas", "linkparse-record-v1.ddl")

# The rejections the summary singles out.
REDIRECT_CODES = ["redirect-mismatch", "untrusted-sso-host"]
STATE_CODES = ["state-mismatch"]


def read_schema(path):
    """A schema file's DDL (Spark's parser skips its `--` comments): from the repository, or, for a driver
    without it (spark-submit --deploy-mode cluster), from the files shipped with `--files`."""
    if not os.path.exists(path):
        from pyspark import SparkFiles
        shipped = SparkFiles.get(os.path.basename(path))
        path = shipped if os.path.exists(shipped) else os.path.basename(path)
    with open(path, encoding="utf-8") as f:
        return f.read()


def linkparse_command(binary, routes=None, fields="compact", redact=True, pipeline=True, extra=()):
    """The command line each partition is piped through, as a list."""
    command = [binary]
    if pipeline:
        command.append("--pipeline")
    if fields:
        command += ["--fields", fields]
    if redact:
        command.append("--redact")
    if routes:
        command += ["--routes", routes]
    return command + list(extra)


def read_urls(spark, path, input_format="text", url_column="url"):
    """The input as one string column, `value`: a line of text, or a Parquet column. A null URL becomes an
    empty line, and CR and LF are removed (the URL Standard removes them anyway): one line per row."""
    if input_format == "parquet":
        frame = spark.read.parquet(path).select(F.col(url_column).cast("string").alias("value"))
    else:
        frame = spark.read.text(path)
    return frame.select(F.regexp_replace(F.coalesce("value", F.lit("")), "[\r\n]", "").alias("value"))


def pipe_records(spark, urls, command, schema, via="transform"):
    """Every partition of `urls` piped through `command`; its JSON lines read with `schema`."""
    if via == "pipe":
        # PySpark's RDD.pipe: its own process per partition, fed by a thread; checkCode=True makes a
        # non-zero exit fail the task (as Scala's RDD.pipe always does). The environment must name no PATH
        # for an absolute binary path.
        lines = urls.rdd.map(lambda row: row[0]).pipe(shlex.join(command), checkCode=True)
        return spark.read.schema(schema).json(lines)
    # Spark SQL's TRANSFORM: the rows go to the process from a writer thread and its lines come back, all
    # in the JVM (no Python worker); a non-zero exit fails the task. The script runs under `bash -c`.
    urls.createOrReplaceTempView("linkparse_input")
    script = shlex.join(command).replace("\\", "\\\\").replace("'", "\\'")
    piped = spark.sql(f"SELECT TRANSFORM(value) USING '{script}' AS (record STRING) FROM linkparse_input")
    return piped.select(F.from_json("record", schema).alias("r")).select("r.*")


def with_partitions(records):
    """Adds the columns the output is partitioned and summarized by."""
    callback = F.col("callback")
    provider = (F.when(~F.col("ok"), "invalid-url").when(callback.isNull(), "none")
                .otherwise(callback.getField("provider")))
    outcome = (F.when(~F.col("ok"), "invalid-url").when(callback.isNull(), "none")
               .otherwise(callback.getField("outcome")))
    error_code = F.coalesce(callback.getField("error").getField("code"), F.col("error").getField("code"))
    return records.withColumns({"provider": provider, "outcome": outcome, "error_code": error_code})


def summarize(records, has_routes):
    """The two summary tables of a records frame (as `with_partitions` gives)."""
    summary = (records.groupBy("provider", "outcome", "error_code").count()
               .orderBy(F.desc("count"), "provider", "outcome", "error_code"))
    callback = F.col("callback")
    error = callback.getField("error")
    reason = (F.when(error.getField("code").isin(REDIRECT_CODES), F.concat(F.lit("redirect:"), error.getField("code")))
              .when(error.getField("code").isin(STATE_CODES), F.concat(F.lit("state:"), error.getField("code")))
              .when(error.getField("parameter") == "state", F.concat(F.lit("state:"), error.getField("code")))
              .when((F.col("outcome") == "success") & callback.getField("state").isNull(), F.lit("state:missing")))
    if has_routes:
        reason = reason.when(callback.isNotNull() & F.col("route").isNull(), F.lit("redirect:unregistered-endpoint"))
    rejections = (records.select(reason.alias("reason"), "provider").where(F.col("reason").isNotNull())
                  .groupBy("reason", "provider").count().orderBy(F.desc("count"), "reason", "provider"))
    return summary, rejections


def run(spark, input_path, output, binary=DEFAULT_BINARY, routes=None, input_format="text", url_column="url",
        redact=True, via="transform", extra_args=()):
    """Runs the job; returns (input rows, output rows, summary rows, rejection rows) and writes DIR/…."""
    command = linkparse_command(binary, routes=routes, redact=redact, extra=extra_args)
    if spark.conf.get("spark.sql.maxConcurrentOutputFileWriters", "0") == "0":
        # Writes the provider/outcome partitions with a writer each instead of sorting every row by them.
        spark.conf.set("spark.sql.maxConcurrentOutputFileWriters", "64")
    urls = read_urls(spark, input_path, input_format, url_column)
    records = with_partitions(pipe_records(spark, urls, command, read_schema(COMPACT_SCHEMA), via))
    records.write.mode("overwrite").partitionBy("provider", "outcome").parquet(os.path.join(output, "records"))
    # The summaries read the Parquet just written: the pipe runs once.
    written = spark.read.parquet(os.path.join(output, "records"))
    summary, rejections = summarize(written, has_routes=routes is not None)
    summary.coalesce(1).write.mode("overwrite").parquet(os.path.join(output, "summary"))
    rejections.coalesce(1).write.mode("overwrite").parquet(os.path.join(output, "rejections"))
    return spark.read.parquet(os.path.join(output, "summary")), spark.read.parquet(os.path.join(output, "rejections"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", required=True, help="text file(s) or Parquet, any path Spark reads")
    parser.add_argument("--output", required=True, help="output directory (overwritten)")
    parser.add_argument("--input-format", choices=["text", "parquet"], default="text")
    parser.add_argument("--url-column", default="url", help="the URL column of Parquet input")
    parser.add_argument("--linkparse", default=DEFAULT_BINARY,
                        help="the binary: an absolute path in local mode, ./linkparse with --files on a cluster")
    parser.add_argument("--routes", help="routes file of the service's callback endpoints (Examples/spark/routes.txt)")
    parser.add_argument("--no-redact", action="store_true", help="keep codes and tokens (off by default)")
    parser.add_argument("--via", choices=["transform", "pipe"], default="transform",
                        help="Spark SQL TRANSFORM (JVM only) or PySpark RDD.pipe")
    parser.add_argument("--master", default=None, help="e.g. local[2] (spark-submit's --master otherwise)")
    parser.add_argument("--linkparse-arg", action="append", default=[],
                        help="one more argument for linkparse (repeat), e.g. --linkparse-arg=--redirect-uri=…")
    args = parser.parse_args(argv)

    builder = SparkSession.builder.appName("linkparse-audit")
    if args.master:
        builder = builder.master(args.master)
    spark = builder.getOrCreate()
    started = time.monotonic()
    summary, rejections = run(
        spark, args.input, args.output, binary=args.linkparse, routes=args.routes, input_format=args.input_format,
        url_column=args.url_column, redact=not args.no_redact, via=args.via, extra_args=args.linkparse_arg)
    seconds = time.monotonic() - started
    rows = summary.agg(F.sum("count")).first()[0] or 0
    print(f"== linkparse job: {rows} records in {seconds:.1f} s -> {args.output}")
    print("== provider × outcome × error code")
    summary.show(60, truncate=False)
    print("== redirect and state rejections")
    rejections.show(30, truncate=False)
    spark.stop()


if __name__ == "__main__":
    sys.exit(main())
