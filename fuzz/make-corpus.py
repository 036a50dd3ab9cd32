#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (fuzz/corpus/<target>/) from the objects and the
transcripts recorded from real servers under tests/data. Run from the repository root after
changing those; the corpora are committed (small files, no secrets: the test data has none)."""
import json, os, pathlib, re, yaml

root = pathlib.Path(__file__).resolve().parent.parent
data = root / "tests" / "data"
out = root / "fuzz" / "corpus"

def write(target, name, content):
    d = out / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(content if isinstance(content, bytes) else content.encode())

def body(path):
    text = path.read_bytes()
    for sep in (b"\r\n\r\n", b"\n\n"):
        if sep in text:
            head, rest = text.split(sep, 1)
            status = re.search(rb"HTTP/\S+ (\d+)", head)
            return (int(status.group(1)) if status else 0), rest
    return 0, b""

objects = []
for f in sorted((data / "ownership").glob("*.yaml")):
    write("yaml", f.name, f.read_bytes())
    for doc in yaml.safe_load_all(f.read_text()):
        if isinstance(doc, dict):
            objects.append((f.stem, doc))
for stem, doc in objects:
    write("ownership", stem + ".json", json.dumps(doc))
write("yaml", "anchors.yaml", "a: &x {b: [1, 2, &y c]}\nd: *x\ne: [*y, *y]\nf: !!str 1\ng: on\n")
write("yaml", "multi.yaml", "---\nkind: A\n---\n# empty\n---\n- 1\n- {x: 'y'}\n...\n")
write("yaml", "json.yaml", json.dumps({"apiVersion": "v1", "kind": "List", "items": [{"a": 1.5e3, "b": None, "c": "\u00e9"}]}))

for f in sorted((data / "kubeconfig").rglob("*")):
    if f.is_file() and f.suffix not in (".crt", ".txt"):
        write("kubeconfig", f.relative_to(data / "kubeconfig").as_posix().replace("/", "_"), f.read_bytes())
write("kubeconfig", "exec.yaml", """apiVersion: v1
kind: Config
current-context: c
contexts: [{name: c, context: {cluster: k, user: u, namespace: ns}}]
clusters: [{name: k, cluster: {server: "https://127.0.0.1:6443", tls-server-name: api, proxy-url: "socks5://p:1080",
  extensions: [{name: client.authentication.k8s.io/exec, extension: {a: 1}}]}}]
users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: aws, args: [eks, get-token],
  env: [{name: AWS_PROFILE, value: x}], provideClusterInfo: true, interactiveMode: Never},
  as: someone, as-groups: [a, b], as-user-extra: {k: [v]}}}]
""")

for f in sorted((data / "transcripts").rglob("*.http")):
    status, b = body(f)
    group = f.parent.name
    if group == "watch" and b"\"type\"" in b[:200]:
        write("listwatch", f.stem, b)
    elif group in ("watch", "table", "transport") and status == 200:
        write("listwatch", f.stem, b)
    if group == "discovery" and status == 200:
        write("discovery", f.stem, b)
    if status >= 400 and b.strip():
        write("status", f.stem, b)
write("status", "conflict-ssa.json", json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure",
    "message": "Apply failed with 1 conflict: conflict with \"kubectl\" using v1: .data.key", "reason": "Conflict",
    "details": {"name": "x", "kind": "configmaps", "causes": [{"reason": "FieldManagerConflict",
    "message": "conflict with \"kubectl\" using v1", "field": ".data.key"}]}, "code": 409}))
write("status", "invalid-422.json", json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Invalid",
    "message": "x is invalid", "details": {"causes": [{"reason": "FieldValueInvalid", "message": "bad", "field": "spec.replicas"}]}, "code": 422}))

pod = json.loads((data / "history" / "pod.json").read_text())
lines = [json.dumps({"format": "fieldscope-history", "formatVersion": 1, "generator": "fieldscope 0.1.0"})]
for i, ev in enumerate(["LISTED", "MODIFIED", "DELETED"]):
    o = json.loads(json.dumps(pod)); o.setdefault("metadata", {})["resourceVersion"] = str(1000 + i)
    lines.append(json.dumps({"type": "version", "scope": "pods.v1/prod", "resource": "pods", "uid": o["metadata"].get("uid", "u"),
        "resourceVersion": str(1000 + i), "eventType": ev, "observedAt": "2026-07-20T09:14:05.123Z", "object": o}))
    if i == 1:
        lines.append(json.dumps({"type": "gap", "scope": "pods.v1/prod", "fromResourceVersion": "1001", "toResourceVersion": "1500",
            "reason": "relist after 410", "observedAt": "2026-07-20T09:20:00.000Z"}))
write("history_jsonl", "pod.jsonl", "\n".join(lines) + "\n")
write("history_jsonl", "header-only.jsonl", lines[0] + "\n")

cm = (data / "ownership" / "configmap.yaml").read_text()
write("drafts", "configmap.json", json.dumps({"context": "prod", "uid": "0b7a", "title": "ConfigMap demo/settings",
    "openedYaml": cm, "openedResourceVersion": "42", "text": cm.replace("v1", "v2"), "savedAtMs": 1700000000000}))
write("drafts", "minimal.json", json.dumps({"context": "", "uid": "u", "title": "", "openedYaml": "", "openedResourceVersion": "", "text": ""}))
# JsonIndex against parseJson: the server's own texts (compact, as the watch sends them, and
# indented), and the corners the indexer models by hand: escapes in keys and values, UTF-8 of
# each length, numbers at the edges of a double, a duplicate key, deep nesting.
write("json_index", "pod.json", json.dumps(pod, separators=(",", ":")))
write("json_index", "pod-indented.json", json.dumps(pod, indent=2, ensure_ascii=False))
for stem, doc in objects[:4]:
    write("json_index", stem + ".json", json.dumps(doc, separators=(",", ":")))
write("json_index", "escaped-keys.json", '{"k:{\\"type\\":\\"Ready\\"}":{".":{}},"tab\\there":"\\u00e9\\ud83d\\ude00\\/"}')
write("json_index", "utf8.json", '["\u00e9\u20ac\U0001F600", "plain ascii text longer than eight bytes"]'.encode("utf-8"))
write("json_index", "numbers.json", "[0,-0,1.5e308,-2.2e-308,123456789012345678901234567890,-0.0e+0]")
write("json_index", "overflow.json", "[1e400]")
write("json_index", "underflow.json", "[0.1e-400]")
write("json_index", "duplicate.json", '{"a":1,"\\u0061":2}')
write("json_index", "deep.json", "[" * 199 + "]" * 199)
write("json_index", "invalid.json", b'{"a":"\x01","b":[1,],"c":"\xc0\x80"}')
# Found by this target: parseJson read a NUL byte as the end of the text (tst_json).
write("json_index", "found-nul-after-value", b"0\0\0\0\0")
# Lessons: the shipped ones (regression-* files are written by hand and kept).
for f in sorted((root / "resources" / "lessons").glob("*.yaml")):
    write("lesson", f.name, f.read_bytes())
for t in sorted(p.name for p in out.iterdir()):
    print(t, len(list((out / t).iterdir())))
