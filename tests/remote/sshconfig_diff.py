#!/usr/bin/env python3
"""sshconfig_diff.py: one case of sshconfig_diff_test.sh judged: what
OpenSSH made of a config (ssh -G, and for a host-key case the real ssh -v)
against what `calops hosts --json` made of it.  Prints "ok" or "FAIL: why"
lines; the exit status is 0 when they agree.

    sshconfig_diff.py G_OUT G_ERR G_RC CALOPS_JSON MODE STRICTER IGNORED
        [SSH_V_OUT SSH_RC ADDED_SSH ADDED_CALOPS]

MODE is "config" (ssh -G only) or "key" (a real connection too), with
"+strict" when the config says StrictHostKeyChecking anywhere (else ssh -G
shows its default, ask, and the lab file's accept_new decides) and
"+labask" when the lab file says accept_new: false (ask: the stricter of
it and the config's wins).
STRICTER is "" or "refused:TEXT" (calops refuses the host, its error
holding TEXT, where ssh goes on) or "class:CLASS" (calops reaches CLASS
where ssh does not): the places share/doc/lab.md names where calops is
stricter than ssh on purpose.  IGNORED is "-" or the keywords calops must
list as ignored, "Keyword:LINE,…".  The lab file of every case says
accept_new: true (a host-key case without StrictHostKeyChecking: false,
ssh's ask), so StrictHostKeyChecking decides unless it is less strict
than accept-new.
"""
import json
import os
import re
import subprocess
import sys

SSH_DEFAULT_IDS = ["id_rsa", "id_ecdsa", "id_ecdsa_sk", "id_ed25519",
                   "id_ed25519_sk", "id_xmss", "id_dsa"]
# StrictHostKeyChecking as ssh -G says it, as calops takes it under a lab
# file that says accept_new: true (the stricter wins; no is accept-new).
STRICT = {"true": "yes", "ask": "ask", "accept-new": "accept-new",
          "false": "accept-new"}
ORDER = {"accept-new": 0, "ask": 1, "yes": 2}


def g_values(text):
    vals = {}
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        vals.setdefault(key, []).append(value)
    return vals


def err_lines(text):
    """Each (file, line) ssh names in a config error: it prints every bad
    line of a file ("FILE line N: ..." or "FILE: line N: ...") before it
    stops at the file's end."""
    return [(m.group(1), int(m.group(2))) for m in
            re.finditer(r"^(\S+?):? line (\d+)\b", text, re.M)]


def err_count(text):
    """How many bad lines ssh counted in the file it stopped at, or None."""
    m = re.search(r"terminating, (\d+) bad configuration options", text)
    return int(m.group(1)) if m else None


def ssh_class(out, rc):
    if rc == 0:
        return "connects"
    for needle, cls in (("REVOKED HOST KEY", "revoked"),
                        ("HOST IDENTIFICATION HAS CHANGED", "changed"),
                        ("host key is known", "unknown"),
                        ("Host key verification failed", "unknown"),
                        ("Permission denied", "auth"),
                        ("Could not resolve", "resolve")):
        if needle in out:
            return cls
    return "other"


def calops_class(host):
    err = host.get("error", "")
    if host["state"] == "up":
        return "connects"
    for needle, cls in (("is revoked", "revoked"),
                        ("@revoked line calops cannot read", "revoked"),
                        ("has changed", "changed"),
                        ("is not known", "unknown"),
                        ("authentication as", "auth"),
                        ("cannot resolve", "resolve")):
        if needle in err:
            return cls
    return "other"


def ssh_v_ids(text):
    """The identity files ssh -v says it loads, expanded, in order (a
    certificate it looks for beside each is not one)."""
    ids = []
    for m in re.finditer(r"debug1: identity file (.*) type -?\d+", text):
        path = m.group(1)
        if ids and path == ids[-1] + "-cert":
            continue
        ids.append(path)
    return ids


def jump_cut(spec):
    """ProxyJump's [user@]host[:port] or ssh://[user@]host[:port] as ssh's
    parse_ssh_uri() and parse_user_host_port() cut it: user, host, port
    (None where not given)."""
    if spec.startswith("ssh://"):
        spec = spec[6:]
    user, _, hostport = spec.rpartition("@")
    if hostport.startswith("["):
        host, _, rest = hostport[1:].partition("]")
        port = rest[1:] or None
    elif hostport.count(":") == 1:
        host, _, port = hostport.partition(":")
    else:
        host, port = hostport, None
    return user or None, host, port


def compare_jumps(written, mine, bad):
    """ssh -G's proxyjump against calops' hops: each hop where ssh's own
    `ssh -l USER -p PORT HOP` (the command ssh runs for it) would go under
    the same config, and before the first hop the jump hosts of that
    hop's own ProxyJump, as ssh reaches them."""
    hops = []
    while written is not None and len(hops) < 16:
        specs = written.split(",")
        written = None
        for i, spec in enumerate(reversed(specs)):
            user, host, port = jump_cut(spec)
            argv = ["ssh", "-G", "-F", os.environ["DIFF_CONFIG"]]
            argv += ["-l", user] if user else []
            argv += ["-p", port] if port else []
            g = g_values(subprocess.run(argv + [host], capture_output=True,
                                        text=True,
                                        stdin=subprocess.DEVNULL).stdout)
            hops.insert(0, [g.get(k, [None])[0]
                            for k in ("hostname", "port", "user")])
            # The first hop is reached by its own ProxyJump, if any.
            if i == len(specs) - 1:
                written = g.get("proxyjump", [None])[0]
    got = [[h["hostname"], str(h["port"]), h["user"]] for h in mine or []]
    if got != hops:
        bad.append("jump hosts: ssh goes via %r, calops %r" % (hops, got))


def proxy_expand(cmd, g):
    """ProxyCommand as ssh's expand_proxy_command() expands it (without its
    "exec "): %h %k %n %p %r %%."""
    def one(key):
        return g.get(key, [None])[0]
    alias = os.environ["DIFF_ALIAS"]
    tokens = {"h": one("hostname"), "k": one("hostkeyalias") or alias,
              "n": alias, "p": one("port"), "r": one("user"), "%": "%"}
    return re.sub(r"%(.)", lambda m: tokens.get(m.group(1), m.group(0)),
                  cmd)


def compare_proxy(g, sh, bad):
    jump = g.get("proxyjump", [None])[0]
    cmd = g.get("proxycommand", [None])[0]
    if jump is None and sh["proxy_jump"] is not None:
        bad.append("proxyjump: ssh none, calops %r" % sh["proxy_jump"])
    elif jump is not None:
        compare_jumps(jump, sh["proxy_jump"], bad)
    want = None if cmd in (None, "none") else proxy_expand(cmd, g)
    if want != sh["proxy_command"]:
        bad.append("proxycommand: ssh %r (so %r), calops %r" %
                   (cmd, want, sh["proxy_command"]))


def compare_config(g, sh, strict_set, lab_strict, bad):
    def one(key):
        return g.get(key, [None])[0]

    for key, mine in (("hostname", sh["hostname"]), ("port", str(sh["port"])),
                      ("user", sh["user"]),
                      ("hostkeyalgorithms", sh["hostkey_algorithms"])):
        if one(key) != mine:
            bad.append("%s: ssh %r, calops %r" % (key, one(key), mine))
    ids = g.get("identityfile", [])
    defaults = [i.rsplit("/", 1)[-1] for i in ids] == SSH_DEFAULT_IDS
    if sh["identity_files"] != ids and not (defaults and
                                             sh["default_identities"]):
        bad.append("identity files: ssh %r, calops %r" %
                   (ids, sh["identity_files"]))
    if (one("identitiesonly") == "yes") != sh["identities_only"]:
        bad.append("identitiesonly: ssh %r, calops %r" %
                   (one("identitiesonly"), sh["identities_only"]))
    if one("addressfamily") != sh["address_family"]:
        bad.append("addressfamily: ssh %r, calops %r" %
                   (one("addressfamily"), sh["address_family"]))
    ct = one("connecttimeout")
    if (0 if ct in (None, "none", "0") else int(ct)) != \
            sh["connect_timeout_s"]:
        bad.append("connecttimeout: ssh %r, calops %r" %
                   (ct, sh["connect_timeout_s"]))
    if max(1, int(one("serveralivecountmax"))) != sh["alive_count_max"]:
        bad.append("serveralivecountmax: ssh %r, calops %r" %
                   (one("serveralivecountmax"), sh["alive_count_max"]))
    files = [f for key in ("userknownhostsfile", "globalknownhostsfile")
             for f in (one(key) or "").split() if f != "none"]
    if files != sh["known_hosts_files"]:
        bad.append("known_hosts files: ssh %r, calops %r" %
                   (files, sh["known_hosts_files"]))
    name = one("hostkeyalias") or sh["hostname"]
    if name != sh["known_hosts_name"]:
        bad.append("host key name: ssh %r, calops %r" %
                   (name, sh["known_hosts_name"]))
    # Not in the config: ssh's default (ask) is not the config's word,
    # and the lab file's accept_new decides.
    want = STRICT.get(one("stricthostkeychecking"), "?") if strict_set \
        else lab_strict
    if ORDER.get(lab_strict, 0) > ORDER.get(want, 0):
        want = lab_strict
    if want != sh["strict_host_key_checking"]:
        bad.append("stricthostkeychecking: ssh %r (so %r), calops %r" %
                   (one("stricthostkeychecking"), want,
                    sh["strict_host_key_checking"]))
    agent = one("identityagent")
    mine = sh["identity_agent"]
    want = None if agent in (None, "SSH_AUTH_SOCK") else \
        "" if agent == "none" else agent
    if want != mine and not (agent or "").startswith("$"):
        bad.append("identityagent: ssh %r, calops %r" % (agent, mine))
    compare_proxy(g, sh, bad)


def main():
    g_out, g_err, g_rc, cj, mode, stricter, ignored = sys.argv[1:8]
    g_text = open(g_out, errors="replace").read()
    g_err_text = open(g_err, errors="replace").read()
    host = json.load(open(cj))["hosts"][0]
    bad = []
    sh = host.get("ssh")
    if stricter.startswith("refused:"):
        if sh is not None or stricter[8:] not in host.get("error", ""):
            bad.append("calops should refuse (%s), it says %r" %
                       (stricter[8:], host.get("error")))
        if g_rc != "0":
            bad.append("ssh refused it too: %s" % g_err_text.strip())
    elif g_rc != "0":
        err = host.get("error", "")
        count = err_count(g_err_text)
        if sh is not None:
            bad.append("ssh refuses the config (%s), calops does not" %
                       g_err_text.strip())
        for path, line in err_lines(g_err_text) if sh is None else []:
            if "%s:%d: " % (path, line) not in err:
                bad.append("ssh names %s line %d (%s), calops says %r" %
                           (path, line, g_err_text.strip(), err))
        if sh is None and count is not None and count > 1 and \
                " %d bad configuration options" % count not in err:
            bad.append("ssh counts %d bad lines (%s), calops says %r" %
                       (count, g_err_text.strip(), err))
    elif sh is None:
        bad.append("calops refuses what ssh reads: %r" % host.get("error"))
    else:
        compare_config(g_values(g_text), sh, "+strict" in mode,
                       "ask" if "+labask" in mode else "accept-new", bad)
        if ignored != "-":
            want = ignored.split(",")
            got = [re.sub(r" \(.*:(\d+)\)$", r":\1", i)
                   for i in host.get("ignored", [])]
            if got != want:
                bad.append("ignored: want %r, calops %r" % (want, got))
    if mode.startswith("key") and not bad:
        v_out, v_rc, added_s, added_c = sys.argv[8:12]
        v_text = open(v_out, errors="replace").read()
        sc = ssh_class(v_text, int(v_rc))
        cc = calops_class(host)
        want = stricter[6:] if stricter.startswith("class:") else sc
        if sc == "other":
            bad.append("ssh ended otherwise: %s" %
                       " ".join(v_text.strip().splitlines()[-2:]))
        elif cc != want:
            bad.append("verdict: ssh %s, calops %s (want %s): %s" %
                       (sc, cc, want, host.get("error", "")))
        elif added_s != added_c and not stricter.startswith("class:"):
            bad.append("keys added: ssh to %r, calops to %r" %
                       (added_s, added_c))
        ids = ssh_v_ids(v_text)
        if sh is not None and ids and not sh["default_identities"] and \
                ids != sh["identities"]:
            bad.append("identities: ssh %r, calops %r" %
                       (ids, sh["identities"]))
    for b in bad:
        print("FAIL: " + b)
    if not bad:
        print("ok" if not mode.startswith("key") else
              "ok: ssh %s, calops %s, keys added to %s" %
              (sc, cc, added_s))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
