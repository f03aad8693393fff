#!/usr/bin/env python3
"""Checks the hosted-fuzzing configuration: every YAML file under .github/ and .clusterfuzzlite/ parses, and
the ClusterFuzzLite files say what Fuzz/README.md promises.

    python3 Scripts/check-yaml.py        # `make check-fuzz-config` runs it (installing PyYAML if missing)

- every *.yml / *.yaml file loads (yaml.safe_load);
- .clusterfuzzlite/project.yaml: language swift, sanitizers address only;
- each .github/workflows/cflite_*.yml: a trigger and jobs, every job building with
  google/clusterfuzzlite/actions/build_fuzzers@v1 (language swift) and running run_fuzzers@v1; the PR workflow
  in code-change mode for about 10 minutes with AddressSanitizer, the batch workflow on a schedule in batch
  mode for an hour, the prune workflow on a schedule in prune mode.

Exit status: 0 all good; 1 a file does not parse or a check fails (each problem is printed).
"""
import pathlib
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
BUILD = "google/clusterfuzzlite/actions/build_fuzzers@v1"
RUN = "google/clusterfuzzlite/actions/run_fuzzers@v1"
# workflow file: (run_fuzzers mode, fuzz-seconds as written, needs a schedule)
WORKFLOWS = {
    "cflite_pr.yml": ("code-change", "600", False),
    "cflite_batch.yml": ("batch", "${{ github.event.inputs.fuzz-seconds || 3600 }}", True),
    "cflite_prune.yml": ("prune", "600", True),
}


def steps_using(workflow, action):
    for job in (workflow.get("jobs") or {}).values():
        for step in job.get("steps") or []:
            if step.get("uses") == action:
                yield step.get("with") or {}


def check_workflow(path, workflow, problems):
    mode, seconds, scheduled = WORKFLOWS[path.name]
    # YAML 1.1 reads the key `on` as the boolean true.
    triggers = workflow.get("on", workflow.get(True))
    if not triggers:
        problems.append(f"{path}: no trigger (`on:`)")
    elif scheduled and "schedule" not in triggers:
        problems.append(f"{path}: expected a schedule trigger")
    builds = list(steps_using(workflow, BUILD))
    runs = list(steps_using(workflow, RUN))
    if not builds or not runs:
        problems.append(f"{path}: needs a step using {BUILD} and one using {RUN}")
    for build in builds:
        if build.get("language") != "swift":
            problems.append(f"{path}: build_fuzzers without language: swift")
    for run in runs:
        if run.get("mode") != mode:
            problems.append(f"{path}: run_fuzzers mode {run.get('mode')!r}, expected {mode!r}")
        if str(run.get("fuzz-seconds")) != seconds:
            problems.append(f"{path}: fuzz-seconds {run.get('fuzz-seconds')!r}, expected {seconds!r}")
        if run.get("sanitizer", "address") not in ("address", "${{ matrix.sanitizer }}"):
            problems.append(f"{path}: sanitizer {run.get('sanitizer')!r} (Swift targets: address only)")


def main():
    problems = []
    files = sorted(
        p for d in (".github", ".clusterfuzzlite") for p in (ROOT / d).rglob("*") if p.suffix in (".yml", ".yaml")
    )
    for path in files:
        try:
            document = yaml.safe_load(path.read_text())
        except yaml.YAMLError as error:
            problems.append(f"{path}: does not parse: {error}")
            continue
        if not isinstance(document, dict):
            problems.append(f"{path}: not a mapping")
            continue
        if path.name == "project.yaml":
            if document.get("language") != "swift" or document.get("sanitizers", ["address"]) != ["address"]:
                problems.append(f"{path}: expected language: swift and sanitizers: [address]")
        elif path.name in WORKFLOWS:
            check_workflow(path, document, problems)
    missing = [name for name in WORKFLOWS if not (ROOT / ".github/workflows" / name).exists()]
    missing += [p for p in ("project.yaml", "Dockerfile", "build.sh") if not (ROOT / ".clusterfuzzlite" / p).exists()]
    problems += [f"missing: {name}" for name in missing]
    for problem in problems:
        print(f"check-yaml: {problem}", file=sys.stderr)
    print(f"check-yaml: {len(files)} YAML files parsed, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
