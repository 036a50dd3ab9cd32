#!/usr/bin/env python3
"""Runs clang-tidy (.clang-tidy) and clazy-standalone on every translation unit of a build's
compile_commands.json; called by scripts/lint.sh, which documents the usage.

Each result is cached under ~/.cache/fieldscope/lint, keyed by a hash of the preprocessed source
(`clang++ -E -C` with the unit's own flags: it covers every header the unit includes, and -C keeps
the comments so a new `// NOLINT` is seen), the configuration (.clang-tidy, this file) and the
tools' versions. A cache hit skips both tools and replays the stored findings.
"""
import concurrent.futures
import hashlib
import json
import os
import resource
import re
import shlex
import subprocess
import sys
import time

CLANG_TIDY = "clang-tidy-14"
CLAZY = "clazy-standalone"
CLANGXX = "clang++-14"

# level0 + level1 of clazy (https://github.com/KDE/clazy#list-of-checks). In tests/ only,
# no-non-pod-global-static: test files keep read-only fixtures (paths, scopes, expected tables) as
# file-scope constants; nothing reads them before main() and the binary lives for one run.
CLAZY_CHECKS = "level0,level1"
CLAZY_CHECKS_TESTS = CLAZY_CHECKS + ",no-non-pod-global-static"

# Our sources are everything under these folders (checked in this order: the product first); headers elsewhere (Qt, system, the build tree's
# moc/rcc output) never produce findings.
SOURCE_DIRS = ("app", "core", "kube", "models", "widgets", "packaging", "bench", "fuzz", "tests")
HEADER_FILTER = r".*/(" + "|".join(SOURCE_DIRS) + r")/.*\.h$"
# Clang does not know a few GCC-only warning flags of the compile commands (-Wno-restrict), and
# the build's -Werror would turn every clazy warning into an "error".
EXTRA_ARGS = ["-Wno-unknown-warning-option", "-Wno-error"]

FINDING = re.compile(r"^(/[^:]+):(\d+):(\d+): (warning|error): ", re.MULTILINE)


def tool_version(tool):
    out = subprocess.run([tool, "--version"], capture_output=True, text=True, check=True).stdout
    return tool + "\n" + out


def units(root, build):
    """The translation units to check, one entry per source file (fuzz/replay_main.cpp is compiled
    once per fuzz target with the same flags)."""
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        entries = json.load(f)
    seen = {}
    for e in entries:
        path = os.path.normpath(os.path.join(e["directory"], e["file"]))
        rel = os.path.relpath(path, root)
        top = rel.split(os.sep, 1)[0]
        base = os.path.basename(path)
        if top not in SOURCE_DIRS or "_autogen" in rel or base.startswith(("moc_", "qrc_")):
            continue
        seen.setdefault(path, e)
    order = {d: i for i, d in enumerate(SOURCE_DIRS)}
    return sorted(seen.items(), key=lambda kv: (order[os.path.relpath(kv[0], root).split(os.sep, 1)[0]], kv[0]))


def preprocess_command(entry):
    args = entry.get("arguments") or shlex.split(entry["command"])
    out = [CLANGXX]
    skip = False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a in ("-o", "-c"):
            skip = a == "-o"
            continue
        if a == entry["file"] or os.path.normpath(os.path.join(entry["directory"], a)) == \
                os.path.normpath(os.path.join(entry["directory"], entry["file"])):
            continue
        out.append(a)
    return out + EXTRA_ARGS + ["-E", "-C", "-w", os.path.join(entry["directory"], entry["file"])]


def check_unit(root, path, entry, build, config_key, cache_dir):
    t0 = time.monotonic()
    pre = subprocess.run(preprocess_command(entry), cwd=entry["directory"], capture_output=True)
    h = hashlib.sha256()
    h.update(config_key)
    h.update(path.encode())
    h.update(pre.stdout)
    h.update(pre.stderr)
    key = h.hexdigest()
    cached = os.path.join(cache_dir, key[:2], key + ".txt")
    if pre.returncode == 0 and os.path.exists(cached):
        with open(cached, encoding="utf-8") as f:
            return path, f.read(), True, time.monotonic() - t0
    extra = [f"--extra-arg={a}" for a in EXTRA_ARGS]
    tidy = subprocess.run([CLANG_TIDY, "-p", build, "--quiet", *extra, path],
                          capture_output=True, text=True)
    in_tests = os.path.relpath(path, root).startswith("tests" + os.sep)
    clazy = subprocess.run([CLAZY, "-p", build, f"--checks={CLAZY_CHECKS_TESTS if in_tests else CLAZY_CHECKS}", *extra,
                            f"--header-filter={HEADER_FILTER}", "--ignore-dirs=.*/build/.*", path],
                           capture_output=True, text=True)
    report, crashed = "", False
    for name, run in (("clang-tidy", tidy), ("clazy", clazy)):
        text = run.stdout + run.stderr
        # clang-tidy's "N warnings generated." / "Suppressed ..." chatter is not a finding.
        lines = [l for l in text.splitlines()
                 if not re.match(r"^\d+ (warning|error)s? generated\.$", l)
                 and not l.startswith(("Suppressed ", "Use -header-filter", "Error while processing"))]
        body = "\n".join(lines).strip()
        if run.returncode != 0 and not FINDING.search(body):
            crashed = True  # not cached: the next run tries again
            body = (body + "\n" if body else "") + f"{path}:1:1: error: {name} exited {run.returncode}"
        if body:
            report += body + "\n"
    if pre.returncode == 0 and not crashed:
        os.makedirs(os.path.dirname(cached), exist_ok=True)
        tmp = cached + f".{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(report)
        os.replace(tmp, cached)
    return path, report, False, time.monotonic() - t0


def findings(report):
    """Splits a report into findings: a `file:line:col: warning|error:` line with the notes and
    source excerpts that follow it."""
    out, cur = [], []
    for line in report.splitlines():
        if FINDING.match(line) and cur:
            out.append("\n".join(cur))
            cur = []
        cur.append(line)
    if cur:
        out.append("\n".join(cur))
    return [f for f in out if FINDING.match(f)]


def main():
    root = os.path.abspath(sys.argv[1])
    build = os.path.abspath(sys.argv[2])
    jobs = int(os.environ.get("FIELDSCOPE_LINT_JOBS", "2"))
    cache_dir = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")),
                             "fieldscope", "lint")
    key = hashlib.sha256()
    for tool in (CLANG_TIDY, CLAZY, CLANGXX):
        key.update(tool_version(tool).encode())
    configs = [os.path.join(root, ".clang-tidy"), os.path.abspath(__file__)]
    configs += sorted(os.path.join(root, d, ".clang-tidy") for d in SOURCE_DIRS
                      if os.path.exists(os.path.join(root, d, ".clang-tidy")))
    for cfg in configs:
        with open(cfg, "rb") as f:
            key.update(f.read())
    config_key = key.digest()

    start = time.monotonic()
    todo = units(root, build)
    seen, ordered, cached = set(), [], 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(check_unit, root, p, e, build, config_key, cache_dir) for p, e in todo]
        for fut in concurrent.futures.as_completed(futures):
            path, report, hit, _ = fut.result()
            cached += hit
            for f in findings(report):
                head = f.splitlines()[0]
                if head not in seen:  # a header's finding comes once per unit including it
                    seen.add(head)
                    ordered.append(f)
    ordered.sort(key=lambda f: f.splitlines()[0])
    for f in ordered:
        print(f)
    took = time.monotonic() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"lint: {len(todo)} translation units ({len(todo) - cached} checked, {cached} from cache "
          f"in {cache_dir}), {len(ordered)} findings, {took:.0f} s "
          f"({usage.ru_utime + usage.ru_stime:.0f} CPU s in {jobs} jobs)")
    return 1 if ordered else 0


if __name__ == "__main__":
    sys.exit(main())
