#!/usr/bin/env python3
"""Runs clang-tidy (.clang-tidy) and clazy on every translation unit of a build's
compile_commands.json; called by scripts/lint.sh, which documents the usage.

Both run in one clang-tidy process per unit: clazy's plugin is loaded into clang-tidy by our own
plugin (scripts/lib/lintscope.cpp, built here into the cache), which also keeps clang-tidy's
checks out of system headers, where no finding is ever shown: ~7 s a unit instead of ~25 s.

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
CLANGXX = "clang++-14"
CLAZY_PLUGIN = "/usr/lib/x86_64-linux-gnu/ClazyPlugin.so"
LLVM_INCLUDE = "/usr/lib/llvm-14/include"
SCOPE_PLUGIN_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lintscope.cpp")

# level0 + level1 of clazy (https://github.com/KDE/clazy#list-of-checks). In tests/ only,
# no-non-pod-global-static: test files keep read-only fixtures (paths, scopes, expected tables) as
# file-scope constants; nothing reads them before main() and the binary lives for one run.
CLAZY_CHECKS = "level0,level1"
CLAZY_CHECKS_TESTS = CLAZY_CHECKS + ",no-non-pod-global-static"



def code_folders(root):
    """The folders our code lives in, from the one list of them (cmake/FieldscopeLayers.cmake):
    the top folders of the layer table in its order (the product first), then the other code."""
    with open(os.path.join(root, "cmake", "FieldscopeLayers.cmake"), encoding="utf-8") as f:
        text = f.read()
    table = re.search(r"set\(FIELDSCOPE_LAYERS\s(.*?)\n\)", text, re.S).group(1)
    tops = []
    for folder in re.findall(r'^\s*"([a-z/_]+):', table, re.M):
        top = folder.split("/", 1)[0]
        if top not in tops:
            tops.append(top)
    other = re.search(r"set\(FIELDSCOPE_OTHER_CODE_FOLDERS\s+([^)]*)\)", text).group(1).split()
    return tuple(tops + [o for o in other if o not in tops])


# Our sources are everything under these folders (checked in this order: the product first); headers elsewhere (Qt, system, the build tree's
# moc/rcc output) never produce findings.
SOURCE_DIRS = code_folders(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
HEADER_FILTER = r".*/(" + "|".join(SOURCE_DIRS) + r")/.*\.h$"
# Clang does not know a few GCC-only warning flags of the compile commands (-Wno-restrict), and
# the build's -Werror would turn every clazy warning into an "error".
EXTRA_ARGS = ["-Wno-unknown-warning-option", "-Wno-error"]

FINDING = re.compile(r"^(/[^:]+):(\d+):(\d+): (warning|error): ", re.MULTILINE)


def tool_version(tool):
    out = subprocess.run([tool, "--version"], capture_output=True, text=True, check=True).stdout
    return tool + "\n" + out


def build_scope_plugin(cache_dir, config_key):
    """Compiles lintscope.cpp once per source and clang version; returns the .so's path."""
    path = os.path.join(cache_dir, "plugin", hashlib.sha256(config_key).hexdigest()[:16] + ".so")
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = path + f".{os.getpid()}.tmp"
        subprocess.run([CLANGXX, "-shared", "-fPIC", "-fno-rtti", "-std=c++17", "-O1", "-w",
                        f"-I{LLVM_INCLUDE}", SCOPE_PLUGIN_SOURCE, "-o", tmp], check=True)
        os.replace(tmp, path)
    return path


def without_pch(args):
    """A compile command without the build's GCC precompiled header (cmake/FieldscopePch.cmake):
    clang cannot read GCC's .gch, and the lint parses every header itself, so a file that relies
    on the precompiled header instead of including what it uses fails here."""
    out, i = [], 0
    while i < len(args):
        if args[i] == "-include" and i + 1 < len(args) and args[i + 1].endswith("cmake_pch.hxx"):
            i += 2
            continue
        if args[i] != "-Winvalid-pch":
            out.append(args[i])
        i += 1
    return out


def units(root, build):
    """The translation units to check, one entry per source file (fuzz/replay_main.cpp is compiled
    once per fuzz target with the same flags), with the precompiled header taken out."""
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
        args = without_pch(e.get("arguments") or shlex.split(e["command"]))
        seen.setdefault(path, {"directory": e["directory"], "file": e["file"], "arguments": args})
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


def check_unit(root, path, entry, build, db, config_key, cache_dir, plugin):
    t0 = time.monotonic()
    pre = subprocess.run(preprocess_command(entry), cwd=entry["directory"], capture_output=True)
    # Keyed and stored relative to the clone, so another clone of the same sources (CI's, a
    # second worktree) reuses the results.
    here = root.encode()
    h = hashlib.sha256()
    h.update(config_key)
    h.update(os.path.relpath(path, root).encode())
    h.update(pre.stdout.replace(here, b"<root>"))
    h.update(pre.stderr.replace(here, b"<root>"))
    key = h.hexdigest()
    cached = os.path.join(cache_dir, key[:2], key + ".txt")
    if pre.returncode == 0 and os.path.exists(cached):
        with open(cached, encoding="utf-8") as f:
            return path, f.read().replace("<root>", root), True, time.monotonic() - t0
    extra = [f"--extra-arg={a}" for a in EXTRA_ARGS]
    in_tests = os.path.relpath(path, root).startswith("tests" + os.sep)
    # Filters anchored at this clone: the cached result must not depend on where it lies (a clone
    # under some ~/build/ would otherwise have every header ignored by an unanchored ".*/build/").
    headers = "^" + re.escape(root) + "/(" + "|".join(SOURCE_DIRS) + r")/.*\.h$"
    env = dict(os.environ, CLAZY_CHECKS=CLAZY_CHECKS_TESTS if in_tests else CLAZY_CHECKS,
               CLAZY_HEADER_FILTER=headers, CLAZY_IGNORE_DIRS="^" + re.escape(build) + "/")
    for unkeyed in ("CLAZY_EXTRA_OPTIONS", "CLAZY_NO_WERROR", "CLAZY_EXPORT_FIXES"):
        env.pop(unkeyed, None)
    run = subprocess.run([CLANG_TIDY, "-p", db, "--quiet", f"--header-filter={headers}",
                          f"--load={CLAZY_PLUGIN}", f"--load={plugin}", *extra, path],
                         capture_output=True, text=True, env=env)
    text = run.stdout + run.stderr
    # clang-tidy's "N warnings generated." / "Suppressed ..." chatter is not a finding.
    lines = [l for l in text.splitlines()
             if not re.match(r"^\d+ (warning|error)s? generated\.$", l)
             and not l.startswith(("Suppressed ", "Use -header-filter", "Error while processing"))]
    report, crashed = "\n".join(lines).strip(), False
    # A plugin that did not load makes clang-tidy say so and go on without it (exit 0): clazy or
    # the scope would be silently missing. A signal is a crash even after some findings.
    if "-load request ignored" in text or "Error opening" in text or "clazy plugin not registered" in text:
        crashed = True
        report += f"\n{path}:1:1: error: a lint plugin did not load"
    if run.returncode < 0 or "Stack dump:" in text:
        crashed = True
        report += f"\n{path}:1:1: error: clang-tidy crashed ({run.returncode})"
    elif run.returncode != 0 and not FINDING.search(report):
        crashed = True  # not cached: the next run tries again
        report = (report + "\n" if report else "") + f"{path}:1:1: error: clang-tidy exited {run.returncode}"
    if report:
        report += "\n"
    if pre.returncode == 0 and not crashed:
        os.makedirs(os.path.dirname(cached), exist_ok=True)
        tmp = cached + f".{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(report.replace(root, "<root>"))
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
    for tool in (CLANG_TIDY, CLANGXX):
        key.update(tool_version(tool).encode())
    with open(CLAZY_PLUGIN, "rb") as f:
        key.update(hashlib.sha256(f.read()).digest())
    with open(SCOPE_PLUGIN_SOURCE, "rb") as f:
        plugin_key = hashlib.sha256(key.digest() + f.read()).digest()
    configs = [os.path.join(root, ".clang-tidy"), os.path.abspath(__file__), SCOPE_PLUGIN_SOURCE]
    configs += sorted(os.path.join(root, d, ".clang-tidy") for d in SOURCE_DIRS
                      if os.path.exists(os.path.join(root, d, ".clang-tidy")))
    for cfg in configs:
        with open(cfg, "rb") as f:
            key.update(f.read())
    config_key = key.digest()

    start = time.monotonic()
    plugin = build_scope_plugin(cache_dir, plugin_key)
    todo = units(root, build)
    if not todo:
        print(f"lint: no translation units of {root} in {build}/compile_commands.json")
        return 1
    # clang-tidy reads its commands from a database: the build's, without the precompiled header.
    db = os.path.join(build, "lint")
    os.makedirs(db, exist_ok=True)
    tmp = os.path.join(db, f"compile_commands.json.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump([e for _, e in todo], f)
    os.replace(tmp, os.path.join(db, "compile_commands.json"))
    seen, ordered, cached = set(), [], 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(check_unit, root, p, e, build, db, config_key, cache_dir, plugin) for p, e in todo]
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
