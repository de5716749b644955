#!/usr/bin/env python3
"""agree_test.py CALOPS: the views of one workspace agree (issue 25, item 6).

For the example workspaces (share/examples/complete and midproject, copied
to a temp folder) and mutations of them, each view of the same files must
give the same verdicts:

  - `calops check --json` (the reference): per gate `status`, `counts` and
    `checks`; per ticket `progress`, `state` and `checks`;
  - `calops check` as text and `check --stream`'s last line;
  - the console drawn headless (`calops --headless 120x40 --script`): the
    Board, the Tickets screen and every ticket's screen, every gate's
    screen, the Workspaces strip and the Release screen;
  - `calops release status --json`, and `calops release verify WS N` (text
    and --json) for every generation, against the Release screen and G10.
  - `calops report --format json` (the decision record, release.md §8):
    every gate's status and owner, the findings, the go/no-go, current and
    the candidate.

Every mutation prints one line, `ok` or `FAIL` with each disagreement
(what each view said); the last line is `N passed, M failed`.  Exit 1 on
any disagreement.  Runs with HOME and XDG_* in a temp folder.  Needs
python3 (stdlib) and openssl (to sign revocations and generations with
share/examples/keys/mei.chen.pem).
"""
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent.parent
EXAMPLES = SRC / "share" / "examples"
KEY = EXAMPLES / "keys" / "mei.chen.pem"
SIZE = "120x40"
GATES = ["G%d" % i for i in range(11)]
STATUSES = ("pass", "fail", "blocked", "stale", "pending", "running")
GATE_GLYPH = {"✔": "pass", "✘": "fail", "⊘": "blocked", "≈": "stale",
              "▶": "running", "·": "pending"}
CHECK_GLYPH = {"✔": "held", "✘": "failed", "○": "not_judged"}
BOUND = "08-release/generations/2/release-manifest.json"
SOAK = "07-serving/soak"
RUN24 = SOAK + "/2026-09-21-24h"
RUN8 = SOAK + "/2026-09-03-8h"


# ---- helpers for mutations --------------------------------------------

def sign(path):
    """The base64 Ed25519 signature of path's bytes by the example key."""
    out = subprocess.run(["openssl", "pkeyutl", "-sign", "-inkey", str(KEY),
                          "-rawin", "-in", str(path)],
                         capture_output=True, check=True).stdout
    return base64.b64encode(out).decode() + "\n"


def write(ws, rel, text):
    p = ws / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def edit(ws, rel, fn):
    p = ws / rel
    p.write_text(fn(p.read_text()))


def edit_json(ws, rel, fn):
    p = ws / rel
    d = json.loads(p.read_text())
    fn(d)
    p.write_text(json.dumps(d, indent=2) + "\n")


def append_bytes(ws, rel, data):
    with open(ws / rel, "ab") as f:
        f.write(data)


def remove(ws, rel):
    p = ws / rel
    if p.is_dir() and not p.is_symlink():
        shutil.rmtree(p)
    else:
        p.unlink()


def revocations(ws, gens, signed=True, bad_sig=False):
    rel = "08-release/revocations.json"
    entries = ", ".join('{"generation": %d, "reason": "agree test", '
                        '"ts": 1796000000}' % g for g in gens)
    write(ws, rel, '{"schema": "calops-revocations/v1", "revoked": [%s]}\n'
          % entries)
    if bad_sig:
        write(ws, rel + ".sig", "AAAA\n")
    elif signed:
        write(ws, rel + ".sig", sign(ws / rel))


def gen3(ws, signed=True):
    """Generation 3: generation 2's manifest renumbered (and re-signed)."""
    g = ws / "08-release/generations/3"
    g.mkdir()
    text = (ws / BOUND).read_text()
    text = text.replace('"generation": 2', '"generation": 3').replace(
        '"previous_generation": 1', '"previous_generation": 2')
    (g / "release-manifest.json").write_text(text)
    if signed:
        (g / "release-manifest.json.sig").write_text(
            sign(g / "release-manifest.json"))


def gen3_edited(ws, fn):
    """Generation 3: generation 2's manifest changed by fn, re-signed."""
    g = ws / "08-release/generations/3"
    g.mkdir()
    d = json.loads((ws / BOUND).read_text())
    d["generation"], d["previous_generation"] = 3, 2
    fn(d)
    (g / "release-manifest.json").write_text(json.dumps(d, indent=2) + "\n")
    (g / "release-manifest.json.sig").write_text(
        sign(g / "release-manifest.json"))


def add_report(path):
    def fn(d):
        d["reports"].append({"path": path, "sha256": "0" * 64})
    return fn


def linked_copy(ws, rel, outside):
    """rel becomes a symbolic link to a copy of itself (same bytes)."""
    p = ws / rel
    target = (ws.parent / "elsewhere" if outside else p.parent) / (
        p.name + ".real")
    target.parent.mkdir(exist_ok=True)
    shutil.copy2(p, target)
    p.unlink()
    os.symlink(target if outside else target.name, p)


def same_size_same_mtime(ws, rel):
    """Flip one byte in place and put the mtime back: only ctime tells."""
    p = ws / rel
    st = p.stat()
    data = bytearray(p.read_bytes())
    i = data.index(b"\"")
    data[i + 1] = ord("X") if data[i + 1] != ord("X") else ord("Y")
    with open(p, "r+b") as f:
        f.write(data)
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    # The ctime must move for the change to be seen at all; on a coarse
    # clock rewrite until it does (no sleeping on a guess).
    for _ in range(100000):
        if p.stat().st_ctime_ns != st.st_ctime_ns:
            break
        os.chmod(p, st.st_mode)


def corrupt_sample(ws, run):
    def fn(text):
        lines = text.split("\n")
        for i, line in enumerate(lines):
            if '"ttft_ms":' in line and '"type":"metric"' in line:
                lines[i] = re.sub(r'"ttft_ms":[0-9.]+', '"ttft_ms":"slow"',
                                  line, count=1)
                break
        return "\n".join(lines)
    edit(ws, run + "/metrics.jsonl", fn)


def killed(ws, run):
    edit_json(ws, run + "/summary.json",
              lambda d: d.update(outcome="killed"))


def truncate(ws, rel, keep=0.5):
    p = ws / rel
    data = p.read_bytes()
    p.write_bytes(data[:int(len(data) * keep)])


def no_profiles(ws):
    def fn(text):
        out, skip = [], False
        for line in text.split("\n"):
            if line.startswith("profiles:"):
                out.append("profiles: {}")
                skip = True
                continue
            if skip and (line.startswith(" ") or line == ""):
                continue
            skip = False
            out.append(line)
        return "\n".join(out)
    edit(ws, "02-onnx/export-config.yaml", fn)


def retarget_current(ws, target):
    link = ws / "08-release/current"
    link.unlink()
    os.symlink(target, link)


C, M = "complete", "midproject"
MUTATIONS = [
    # name, example, mutation
    ("complete as shipped", C, None),
    ("midproject as shipped", M, None),
    # the release
    ("bound report changed (02-onnx/onnx-report.json)", C,
     lambda w: edit(w, "02-onnx/onnx-report.json", lambda t: t + " \n")),
    ("bound report removed (06-runtime/faults/kv-full.json)", C,
     lambda w: remove(w, "06-runtime/faults/kv-full.json")),
    ("bound report same size and mtime (stale cached hash)", C,
     lambda w: same_size_same_mtime(w, "07-serving/conformance/"
                                    "api-matrix.json")),
    ("bound model.onnx same size and mtime", C,
     lambda w: same_size_same_mtime(w, "02-onnx/model.onnx")),
    ("calbin package file same size and mtime", C,
     lambda w: same_size_same_mtime(w, "05-calbin/package/calbin.json")),
    ("calbin package: a file added", C,
     lambda w: write(w, "05-calbin/package/extra.txt", "")),
    ("calbin package: a file renamed", C,
     lambda w: os.rename(w / "05-calbin/package/calbin.json",
                         w / "05-calbin/package/calbin2.json")),
    ("bound report a link to a copy beside it", C,
     lambda w: linked_copy(w, "05-calbin/validation.json", False)),
    ("bound report a link to a copy outside the workspace", C,
     lambda w: linked_copy(w, "05-calbin/validation.json", True)),
    ("generation 3 signed, binding a report outside the workspace", C,
     lambda w: gen3_edited(w, add_report("../../../../outside.json"))),
    ("generation 3 signed, binding a folder as a report", C,
     lambda w: gen3_edited(w, add_report("../../../05-calbin/package"))),
    ("generation 3 signed, no reports array", C,
     lambda w: gen3_edited(w, lambda d: d.pop("reports"))),
    ("generation 3 signed, no onnx_sha256", C,
     lambda w: gen3_edited(w, lambda d: d.pop("onnx_sha256"))),
    ("generation 3 signed and revoked", C,
     lambda w: (gen3(w), revocations(w, [3]))),
    ("revocations.json signed, wrong schema", C,
     lambda w: (write(w, "08-release/revocations.json",
                      '{"schema": "x", "revoked": [{"generation": "1"}]}\n'),
                write(w, "08-release/revocations.json.sig",
                      sign(w / "08-release/revocations.json")))),
    ("bound model.onnx changed", C,
     lambda w: append_bytes(w, "02-onnx/model.onnx", b"x")),
    ("bound calbin package file changed", C,
     lambda w: edit(w, "05-calbin/package/calbin.json",
                    lambda t: t + "\n")),
    ("revoked generation 1 (signed)", C, lambda w: revocations(w, [1])),
    ("revoked current generation 2 (signed)", C,
     lambda w: revocations(w, [2])),
    ("revocations.json with a bad signature", C,
     lambda w: revocations(w, [1], bad_sig=True)),
    ("revocations.json without its .sig", C,
     lambda w: revocations(w, [], signed=False)),
    ("untrusted key: mei.chen.pub removed", C,
     lambda w: remove(w, "08-release/trusted-keys/mei.chen.pub")),
    ("untrusted key: sven.lindqvist.pub removed", C,
     lambda w: remove(w, "08-release/trusted-keys/sven.lindqvist.pub")),
    ("a trusted-keys .pub that is not a key", C,
     lambda w: write(w, "08-release/trusted-keys/junk.pub", "not a key\n")),
    ("generation 2 manifest tampered", C,
     lambda w: edit(w, BOUND, lambda t: t.replace(
         '"observation_window_h": 72', '"observation_window_h": 7'))),
    ("generation 2 signature removed", C,
     lambda w: remove(w, BOUND + ".sig")),
    ("generation 2 manifest truncated JSON", C,
     lambda w: truncate(w, BOUND)),
    ("generation 3 unsigned", C, lambda w: gen3(w, signed=False)),
    ("generation 3 signed (candidate not current)", C, gen3),
    ("current moved by hand to a signed generation 3, no record", C,
     lambda w: (gen3(w), retarget_current(w, "generations/3"))),
    ("current back at the last switch's from (status completes it)", C,
     lambda w: retarget_current(w, "generations/1")),
    ("current dangling (status repairs it)", C,
     lambda w: retarget_current(w, "generations/9")),
    ("audit log cut mid-line", C,
     lambda w: truncate(w, "08-release/audit.jsonl", 0.8)),
    ("audit log record edited", C,
     lambda w: edit(w, "08-release/audit.jsonl",
                    lambda t: t.replace("pilot:", "pilot;"))),
    ("decision.md removed", C,
     lambda w: remove(w, "08-release/decision.md")),
    ("08-release/generations removed", C,
     lambda w: remove(w, "08-release/generations")),
    # soak evidence (G9)
    ("killed soak (bound 24h run)", C, lambda w: killed(w, RUN24)),
    ("killed soak (8h run)", C, lambda w: killed(w, RUN8)),
    ("corrupt sample ttft_ms \"slow\" (24h run)", C,
     lambda w: corrupt_sample(w, RUN24)),
    ("corrupt sample ttft_ms \"slow\" (8h run)", C,
     lambda w: corrupt_sample(w, RUN8)),
    ("second soak run folder beside the first", C,
     lambda w: shutil.copytree(w / RUN24, w / (SOAK + "/2026-09-22-24h"))),
    ("empty soak run folder", C,
     lambda w: (w / SOAK / "2026-09-30-1h").mkdir()),
    ("soak summary.json truncated JSON", C,
     lambda w: truncate(w, RUN8 + "/summary.json")),
    ("soak metrics.jsonl empty", C,
     lambda w: write(w, RUN8 + "/metrics.jsonl", "")),
    # other gates
    ("export config with no profiles", C, no_profiles),
    ("export config with no profiles (midproject)", M, no_profiles),
    ("owners.yaml removed", C, lambda w: remove(w, "owners.yaml")),
    ("owner 'vendor' for G3", C,
     lambda w: edit(w, "owners.yaml", lambda t: re.sub(
         r'G3: \{owner: "[^"]*"', 'G3: {owner: "vendor"', t))),
    ("tickets.yaml removed", C, lambda w: remove(w, "tickets.yaml")),
    ("ticket state 'x' (midproject)", M,
     lambda w: edit(w, "tickets.yaml", lambda t: t.replace(
         "state: done", "state: x", 1))),
    ("source-manifest.json truncated JSON", C,
     lambda w: truncate(w, "00-source/source-manifest.json")),
    ("compiler-manifest.json removed (BLOCKED_COMPILER)", C,
     lambda w: remove(w, "04-compiler/compiler-manifest.json")),
    ("conformance api-matrix.json removed (G9 primary)", C,
     lambda w: remove(w, "07-serving/conformance/api-matrix.json")),
    ("quant-config.yaml emptied", C,
     lambda w: write(w, "03-quant/quant-config.yaml", "")),
    ("environment.lock removed (midproject)", M,
     lambda w: remove(w, "01-reference/environment.lock")),
    ("compile.sh with a command (midproject)", M,
     lambda w: write(w, "04-compiler/compile.sh",
                     "#!/bin/sh\ncalcc build --config compile-config.yaml\n")),
    ("op-support.csv truncated (midproject)", M,
     lambda w: truncate(w, "02-onnx/op-support.csv", 0.3)),
]


# ---- running calops ---------------------------------------------------

class Runner:
    def __init__(self, calops, tmp):
        self.calops = calops
        home = tmp / "home"
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                    "HOME": str(home), "LANG": "C.UTF-8",
                    "LC_ALL": "C.UTF-8",
                    "XDG_STATE_HOME": str(home / "state"),
                    "XDG_CACHE_HOME": str(home / "cache"),
                    "XDG_CONFIG_HOME": str(home / "config")}
        for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
            if k in os.environ:
                self.env[k] = os.environ[k]
        for d in ("state", "cache", "config"):
            (home / d).mkdir(parents=True, exist_ok=True)

    def run(self, args, cwd, timeout=120):
        p = subprocess.run([self.calops] + args, cwd=cwd, env=self.env,
                           stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=timeout)
        return (p.returncode, p.stdout.decode("utf-8", "replace"),
                p.stderr.decode("utf-8", "replace"))


def last_json(text):
    try:
        return json.loads(text)
    except ValueError:
        pass
    for line in reversed(text.strip().split("\n")):
        try:
            return json.loads(line)
        except ValueError:
            continue
    return None


def headless_script(ntickets):
    s = ["timeout 60", "wait board", "dump board.txt",
         "key 2 Home", "dump tickets.txt"]
    for i in range(ntickets):
        s += ["key Enter", "dump ticket-%02d.txt" % i, "key q Down"]
    s += ["key 1 Home"]
    for i in range(len(GATES)):
        s += ["key Enter", "dump gate-%02d.txt" % i, "key q Down"]
    s += ["key 8", "wait gone evaluating", "dump workspaces.txt",
          "key 9", "wait gone reading…", "dump release.txt", "key Q"]
    return "\n".join(s) + "\n"


def read_dump(path):
    # Each row after a one-column mark; keep the screen's columns.
    return [line[1:] if line else "" for line in
            path.read_text().split("\n")]


# ---- parsing the screens ----------------------------------------------

BOARD_ROW = re.compile(r"^ (G\d+)\s+(\S) (\w+)\s.*?(\d+)E (\d+)B (\d+)S "
                       r"(\d+)W")
TICKET_ROW = re.compile(r"^ (M\d\d) .*?([█░]{10}) +(\d+)% +(\S+)")
TICKET_HEAD = re.compile(r"^ (M\d\d) .*?\s(\d+)%\s*$")
TICKET_CHECK = re.compile(r"^   (\S) (\S+)\s+(held|failed|not_judged)\s+"
                          r"(G\d+) .*\s(\S) (\w+)\s*$")
GATE_HEAD = re.compile(r"^ (G\d+) .*  (\S) (%s)\s*$" % "|".join(STATUSES))
GATE_CHECK = re.compile(r"([✔✘○]) (G\d+\.[\w.*]+)")


def parse_title(rows):
    m = re.search(r"\s(\S+(?: G\d+ \S+)?) · (\d+)/11 pass", rows[0])
    return (m.group(1), int(m.group(2))) if m else (None, None)


def parse_board(rows):
    out = {}
    for r in rows:
        m = BOARD_ROW.match(r)
        if m:
            out[m.group(1)] = (m.group(2), m.group(3),
                               tuple(int(m.group(i)) for i in range(4, 8)))
    return out


def parse_gate(rows):
    head, checks, grid = None, {}, False
    for r in rows:
        m = GATE_HEAD.match(r)
        if m and head is None:
            head = (m.group(1), m.group(2), m.group(3))
        if r.startswith(" Checks ("):
            grid = True
            continue
        if grid:
            found = GATE_CHECK.findall(r)
            if not found:
                grid = False
                continue
            for g, c in found:
                checks[c] = CHECK_GLYPH[g]
    return head, checks


def parse_ticket(rows):
    head = state = None
    claimed = False
    checks = {}
    for r in rows[1:]:
        m = TICKET_HEAD.match(r)
        if m and head is None:
            head = (m.group(1), int(m.group(2)))
        m = re.search(r"state: (\S+)", r)
        if m and state is None:
            state = m.group(1)
        if "claimed done, evidence missing" in r:
            claimed = True
        m = TICKET_CHECK.match(r)
        if m:
            checks[m.group(2)] = (m.group(1), m.group(3), m.group(4),
                                  m.group(5), m.group(6))
    return head, state, claimed, checks


def parse_release(rows):
    """The generation rows by number: (marks, signer, glyph, cell)."""
    gens, title, header = {}, None, None
    for i, r in enumerate(rows):
        m = re.search(r"current (-?\d+) · candidate (-?\d+)", r)
        if m and title is None and i < 4:
            title = (int(m.group(1)), int(m.group(2)))
        if header is None and re.match(r"^\s+GEN IS\s+SIGNED BY", r):
            header = i
            continue
        if header is not None:
            m = re.match(r"^ {0,5}(\d+) ", r)
            if not m or len(r) < 66:
                break
            gens[int(m.group(1))] = (r[7:31].split(), r[32:48].strip(),
                                     r[63], r[66:].strip())
    return title, gens


# ---- one mutation -----------------------------------------------------

class Case:
    def __init__(self, name):
        self.name = name
        self.bad = []
        self.said = []      # what the views agreed on, for the line

    def expect(self, cond, what):
        if not cond:
            self.bad.append(what)


def pct(p):
    return int("%3.0f" % (p * 100))


def compare_check_views(c, ref, rc, text, stream):
    gates = {g["id"]: g for g in ref["gates"]}
    allpass = all(g["status"] == "pass" for g in ref["gates"])
    c.expect((rc == 0) == allpass,
             "check exit %d, but gates %s" % (rc, "all pass" if allpass
                                               else "not all pass"))
    rows = {}
    for line in text.split("\n"):
        m = re.match(r"^(G\d+)\s+(\S) (\w+)\s.*?(\d+)E (\d+)B (\d+)S (\d+)W",
                     line)
        if m and m.group(1) not in rows:
            rows[m.group(1)] = (m.group(3), tuple(
                int(m.group(i)) for i in range(4, 8)))
    for gid, g in gates.items():
        cnt = tuple(g["counts"][k] for k in ("error", "blocked", "stale",
                                              "warn"))
        c.expect(rows.get(gid) == (g["status"], cnt),
                 "%s: check --json %s %s, check text %s" % (
                     gid, g["status"], cnt, rows.get(gid)))
    summ = (stream or {}).get("summary")
    if summ is None:
        c.bad.append("check --stream: no result line with a summary")
        return
    for g in summ["gates"]:
        r = gates.get(g["id"])
        c.expect(r is not None and g["status"] == r["status"] and
                 g["checks"] == r["checks"],
                 "%s: check --json %s, check --stream %s" % (
                     g["id"], r and r["status"], g["status"]))
    for t, r in zip(summ["tickets"], ref["tickets"]):
        c.expect(t["progress"] == r["progress"],
                 "%s: check --json progress %s, --stream %s" % (
                     t["id"], r["progress"], t["progress"]))


def compare_board(c, ref, out):
    gates = {g["id"]: g for g in ref["gates"]}
    rows = read_dump(out / "board.txt")
    ps, npass = parse_title(rows)
    want = sum(g["status"] == "pass" for g in ref["gates"])
    c.expect(npass == want, "title: check --json %d/11 pass, Board %s/11"
             % (want, npass))
    st = ref["project_status"]
    c.expect((st == ps) if not st.startswith("G") else
             (" at %s " % st) in rows[0],
             "title: check --json project %s, Board title %r"
             % (st, rows[0][48:90].strip()))
    board = parse_board(rows)
    for gid, g in gates.items():
        cnt = tuple(g["counts"][k] for k in ("error", "blocked", "stale",
                                              "warn"))
        b = board.get(gid)
        c.expect(b is not None and b[1] == g["status"] and
                 GATE_GLYPH.get(b[0]) == g["status"] and b[2] == cnt,
                 "%s: check --json %s %s, Board %s" % (
                     gid, g["status"], "%dE %dB %dS %dW" % cnt,
                     b and "%s %s %dE %dB %dS %dW" % ((b[0], b[1]) + b[2])))
    rows = read_dump(out / "workspaces.txt")
    strip = ws_status = first = None
    for r in rows:
        m = re.search(r"\s(\S+)\s+([✔✘⊘≈▶·]{11}) (\S+)", r)
        if m:
            ws_status, strip, first = m.groups()
    c.expect(ws_status == st, "project: check --json %s, Workspaces %s"
             % (st, ws_status))
    want = next((g["id"] for g in ref["gates"] if g["status"] != "pass"),
                "-")
    c.expect(first == want, "first open gate: check --json %s, Workspaces "
             "%s" % (want, first))
    for i, gid in enumerate(GATES):
        got = GATE_GLYPH.get(strip[i]) if strip else None
        c.expect(got == gates[gid]["status"],
                 "%s: check --json %s, Workspaces strip %s" % (
                     gid, gates[gid]["status"], strip and strip[i]))


def compare_gates(c, ref, out):
    for i, g in enumerate(ref["gates"]):
        head, checks = parse_gate(read_dump(out / ("gate-%02d.txt" % i)))
        c.expect(head is not None and head[0] == g["id"] and
                 head[2] == g["status"] and
                 GATE_GLYPH.get(head[1]) == g["status"],
                 "%s: check --json %s, Gate screen %s" % (
                     g["id"], g["status"], head and " ".join(head)))
        for chk, v in g["checks"].items():
            c.expect(checks.get(chk) == v,
                     "%s: check --json %s, Gate screen %s" % (
                         chk, v, checks.get(chk)))
        for chk in checks:
            c.expect(chk in g["checks"],
                     "%s: on the Gate screen, not in check --json" % chk)


def compare_tickets(c, ref, out):
    gates = {g["id"]: g["status"] for g in ref["gates"]}
    rows = {}
    for r in read_dump(out / "tickets.txt"):
        m = TICKET_ROW.match(r)
        if m:
            rows[m.group(1)] = (m.group(2).count("█"), int(m.group(3)),
                                m.group(4))
    for i, t in enumerate(ref["tickets"]):
        want = pct(t["progress"])
        state = t.get("state") or "-"
        r = rows.get(t["id"])
        c.expect(r is not None and r[1] == want and
                 r[0] == int(t["progress"] * 10 + 0.5) and r[2] == state,
                 "%s: check --json %d%% %s, Tickets row %s" % (
                     t["id"], want, state,
                     r and "%d%% %s (%d cells)" % (r[1], r[2], r[0])))
        head, tstate, claimed, checks = parse_ticket(
            read_dump(out / ("ticket-%02d.txt" % i)))
        c.expect(head == (t["id"], want),
                 "%s: check --json %d%%, ticket screen %s" % (
                     t["id"], want, head))
        c.expect(tstate is None and state == "-" or tstate == state,
                 "%s: check --json state %s, ticket screen %s" % (
                     t["id"], state, tstate))
        c.expect(claimed == t["claimed_done_without_evidence"],
                 "%s: check --json claimed_done_without_evidence %s, "
                 "ticket screen %s" % (t["id"],
                                       t["claimed_done_without_evidence"],
                                       claimed))
        for chk, v in t["checks"].items():
            got = checks.get(chk)
            if got is None:
                c.bad.append("%s: %s (%s) missing from the ticket screen"
                             % (t["id"], chk, v))
                continue
            c.expect(got[1] == v and CHECK_GLYPH.get(got[0]) == v,
                     "%s: %s check --json %s, ticket screen %s %s" % (
                         t["id"], chk, v, got[0], got[1]))
            c.expect(gates.get(got[2]) == got[4] and
                     GATE_GLYPH.get(got[3]) == got[4],
                     "%s: %s's gate %s check --json %s, ticket screen %s"
                     % (t["id"], chk, got[2], gates.get(got[2]), got[4]))


def gen_ok(g):
    v = g.get("verdict")
    return bool(g.get("verifies")) and (v is None or bool(v.get("verifies")))


def compare_release(c, r, ws, ref, out, st, st_rc, st2):
    rows = read_dump(out / "release.txt")
    c.expect(not any("reading…" in x for x in rows),
             "Release screen still reading when dumped")
    title, screen = parse_release(rows)
    if st is None:
        c.expect(not screen,
                 "release status --json gave no JSON (exit %d), Release "
                 "screen shows generations %s" % (st_rc, sorted(screen)))
        return
    strip = lambda s: {k: v for k, v in s.items() if k != "rolled_forward"}
    c.expect(st2 is not None and strip(st) == strip(st2),
             "release status --json differs from one call to the next")
    gens = {g["generation"]: g for g in st["generations"]}
    c.expect(sorted(gens) == sorted(screen),
             "generations: release status %s, Release screen %s" % (
                 sorted(gens), sorted(screen)))
    if isinstance(st.get("current"), int) and \
            isinstance(st.get("candidate"), int):
        c.expect(title == (st["current"], st["candidate"]),
                 "release status current %s candidate %s, Release screen "
                 "title %s" % (st["current"], st["candidate"], title))
    c.said.append("generations " + (" ".join(
        "%d%s" % (n, "✔" if gen_ok(g) else "✘")
        for n, g in sorted(gens.items())) or "none"))
    for n, g in sorted(gens.items()):
        ok = gen_ok(g)
        rc, text, err = r.run(["release", "verify", "ws", str(n)], ws.parent)
        jrc, jout, _ = r.run(["release", "verify", "ws", str(n), "--json"],
                             ws.parent)
        vj = last_json(jout) or {}
        s = screen.get(n)
        sglyph = s and s[2]
        views = ("status verifies=%s (%s); verify exit %d (%s); "
                 "verify --json verifies=%s; Release screen %s %s" % (
                     g.get("verifies"), (g.get("verdict") or {}).get(
                         "words", g.get("problem")), rc,
                     (text + err).strip().split("\n")[0], vj.get("verifies"),
                     sglyph, s and s[3]))
        agree = (ok == (rc == 0) == bool(vj.get("verifies")) ==
                 (jrc == 0) == (sglyph == "✔"))
        c.expect(agree, "generation %d: %s" % (n, views))
        sv, vv = g.get("verdict") or {}, vj.get("verdict") or {}
        for k in ("signature", "revoked", "bindings", "signer"):
            c.expect(sv.get(k) == vv.get(k),
                     "generation %d %s: release status %s, verify --json %s"
                     % (n, k, sv.get(k), vv.get(k)))
        if s is not None:
            c.expect(("revoked" in s[0]) == bool(g.get("revoked")),
                     "generation %d revoked: release status %s, Release "
                     "screen IS %r" % (n, g.get("revoked"), " ".join(s[0])))
            c.expect(s[1] == (g.get("signer") or "-"),
                     "generation %d signer: release status %s, Release "
                     "screen %s" % (n, g.get("signer"), s[1]))
    compare_g10(c, ref, st, gens)


def compare_g10(c, ref, st, gens):
    """G10's checks on the board against the release state (workspace.md
    G10, release.md)."""
    g10 = next(g for g in ref["gates"] if g["id"] == "G10")
    ck = g10["checks"]
    # A G10.parse or G10.path error fails every check of the gate
    # (workspace.md §6): nothing of the release state to compare.
    if g10["status"] == "pending" or any(
            f["check"] in ("G10.parse", "G10.path") and
            f["severity"] == "error" for f in g10.get("findings", [])):
        return
    cur = st.get("current")
    cg = gens.get(cur) if isinstance(cur, int) else None
    cand = gens.get(st.get("candidate"))
    # The verdict's parts; None where status gives no verdict (an older
    # calops): then nothing is held against them.
    part = lambda g, k: (g.get("verdict") or {}).get(k) if g else None
    if cg is None or part(cg, "signature") is not None:
        want = "held" if part(cg, "signature") == "ok" else "failed"
        c.expect(ck.get("G10.current") == want,
                 "G10.current: check --json %s, release status current %s "
                 "signature %s" % (ck.get("G10.current"), cur,
                                   part(cg, "signature")))
    rv = st.get("revocations") or {}
    rev_bad = rv.get("present") and (not rv.get("trusted") or
                                      rv.get("problem"))
    cur_rev = cg is not None and cg.get("revoked")
    want = "failed" if rev_bad or cur_rev else "held"
    c.expect(ck.get("G10.revoked") == want,
             "G10.revoked: check --json %s, release status revocations %s,"
             " current revoked %s" % (ck.get("G10.revoked"), rv, cur_rev))
    b = ck.get("G10.bindings")
    cb = part(cand, "bindings")
    if cand is not None and cb is None:
        b = None
    # Where status did not compare them (a candidate whose signature
    # fails), it says not_checked: no verdict to hold against G10's.
    if b == "held":
        c.expect(cb in ("match", "not_checked"), "G10.bindings: check "
                 "--json held, release status candidate %s bindings %s" % (
                     st.get("candidate"), cb))
    elif b == "failed" and cb != "not_checked":
        c.expect(cb != "match", "G10.bindings: check --json failed, release"
                 " status candidate %s bindings %s" % (st.get("candidate"),
                                                       cb))
    a = st.get("audit") or {}
    if ck.get("G10.audit") == "held":
        c.expect(a.get("intact") and not st.get("log_disagrees"),
                 "G10.audit: check --json held, release status audit "
                 "intact %s log_disagrees %s" % (a.get("intact"),
                                                 st.get("log_disagrees")))
    elif a.get("present") and not a.get("intact"):
        c.expect(ck.get("G10.audit") == "failed",
                 "G10.audit: check --json %s, release status audit not "
                 "intact (%s)" % (ck.get("G10.audit"), a.get("problem")))
    if ck.get("G10.signature") == "held" and (
            cand is None or part(cand, "signature") is not None):
        c.expect(part(cand, "signature") == "ok", "G10.signature: check "
                 "--json held, release status candidate %s signature %s"
                 % (st.get("candidate"), part(cand, "signature")))


def compare_report(c, ref, d, st):
    """The decision record against check --json and release status."""
    if d is None:
        c.bad.append("report --format json printed no JSON")
        return
    got = [(g["id"], g["status"], g["owner"]) for g in d["gates"]]
    want = [(g["id"], g["status"], g["owner"]) for g in ref["gates"]]
    c.expect(got == want, "gates: check --json %s, report %s" % (
        [w for w in want if w not in got], [g for g in got if g not in want]))
    nref = len(ref.get("project_findings", [])) + sum(
        1 for g in ref["gates"] for f in g.get("findings", [])
        if f["severity"] != "info")
    c.expect(len(d["findings"]) == nref, "findings: check --json %d not "
             "info, report %d" % (nref, len(d["findings"])))
    # GO: every gate passes, but G10 may fail on G10.decision alone (the
    # record is that evidence), and there is a candidate.
    def in_way(g):
        if g["status"] == "pass":
            return False
        return g["id"] != "G10" or g["status"] != "fail" or any(
            f["check"] != "G10.decision" for f in g.get("findings", [])
            if f["severity"] not in ("info", "warn"))
    rel = d["release"]
    go = (not any(in_way(g) for g in ref["gates"]) and
          ref["project_status"] != "BLOCKED_COMPILER" and
          isinstance(rel.get("candidate"), int))
    c.expect(d["decision"]["go"] == go, "report says go=%s (%s), the board "
             "says %s" % (d["decision"]["go"], d["decision"]["line"], go))
    if st is not None:
        c.expect((rel.get("current"), rel.get("candidate")) ==
                 (st.get("current"), st.get("candidate")),
                 "report current %s candidate %s, release status %s %s" % (
                     rel.get("current"), rel.get("candidate"),
                     st.get("current"), st.get("candidate")))


def run_case(c, calops, tmp, idx, example, mutate):
    base = tmp / ("m%02d" % idx)
    base.mkdir()
    r = Runner(calops, base)
    ws = base / "ws"
    shutil.copytree(EXAMPLES / example, ws, symlinks=True)
    # A warm cache first, so that a mutation must get past it.
    r.run(["check", "--json", "ws"], base)
    if mutate is not None:
        mutate(ws)
    rel = ws / "08-release"
    st_rc, st_out, _ = r.run(["release", "status", "--json", "ws"], base)
    st = last_json(st_out) if rel.is_dir() else None
    rc, out, err = r.run(["check", "--json", "ws"], base)
    ref = last_json(out)
    if ref is None:
        c.bad.append("check --json printed no JSON (exit %d): %s" % (
            rc, err.strip()[:200]))
        return c
    c.said.append("project %s" % ref["project_status"])
    c.said.append(" ".join("%s %s" % (g["id"], g["status"])
                           for g in ref["gates"] if g["status"] != "pass")
                  or "all pass")
    _, text, _ = r.run(["check", "--color", "never", "ws"], base)
    _, sout, _ = r.run(["check", "--stream", "ws"], base)
    compare_check_views(c, ref, rc, text, last_json(sout))
    _, dout, _ = r.run(["report", "--format", "json", "ws"], base)
    compare_report(c, ref, last_json(dout), st)
    out_dir = base / "out"
    out_dir.mkdir()
    script = out_dir / "script"
    script.write_text(headless_script(len(ref["tickets"])))
    hrc, _, herr = r.run(["--headless", SIZE, "--script", "script",
                          "../ws"], out_dir)
    if hrc != 0:
        c.bad.append("calops --headless exit %d: %s" % (
            hrc, herr.strip()[-300:]))
        return
    compare_board(c, ref, out_dir)
    compare_gates(c, ref, out_dir)
    compare_tickets(c, ref, out_dir)
    st2 = None
    if rel.is_dir():
        _, st2_out, _ = r.run(["release", "status", "--json", "ws"], base)
        st2 = last_json(st2_out)
    compare_release(c, r, ws, ref, out_dir, st, st_rc, st2)


def main():
    if len(sys.argv) != 2 or not os.access(sys.argv[1], os.X_OK):
        print("usage: agree_test.py CALOPS", file=sys.stderr)
        return 2
    if shutil.which("openssl") is None:
        print("agree_test: openssl is needed to sign", file=sys.stderr)
        return 1
    calops = os.path.abspath(sys.argv[1])
    start = time.monotonic()
    passed = failed = 0
    def one(i):
        name, example, mutate = MUTATIONS[i]
        c = Case(name)
        try:
            run_case(c, calops, tmp, i, example, mutate)
        except Exception as e:  # a broken step is a failure, said
            c.bad.append("%s: %s" % (type(e).__name__, e))
        return c

    with tempfile.TemporaryDirectory(prefix="calops-agree.") as t:
        tmp = Path(t)
        # Two at a time, each in its own HOME; said in order.
        with ThreadPoolExecutor(max_workers=2) as pool:
            results = pool.map(one, range(len(MUTATIONS)))
            for i, c in enumerate(results):
                name, example, _ = MUTATIONS[i]
                if c.bad:
                    failed += 1
                    print("FAIL %2d %s [%s]: %s" % (i, name, example,
                                                   "; ".join(c.said)))
                    for b in c.bad:
                        print("       " + b)
                else:
                    passed += 1
                    print("ok   %2d %s [%s]: %s" % (i, name, example,
                                                   "; ".join(c.said)))
                sys.stdout.flush()
    print("agree: %d mutations in %.1f s" % (len(MUTATIONS),
                                             time.monotonic() - start))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
