#!/usr/bin/env python3
"""Turn a mutant list (kernel/mutants/VERSION.list) into one patch per mutant.

usage: gen.py LIST SERIES_DIR OUT_DIR [ID...]

SERIES_DIR holds the files the list names as the series leaves them (the
paths of the list below it). For each mutant (or only the IDs given) it
writes OUT_DIR/ID.patch, a mail `git am` and kernel/build.sh take, and
prints one tab-separated line: ID, FILE, EQUIVALENT REASON or "-", WHY.
A mutant whose old lines are not found exactly once, an unknown ID or a
malformed list is an error naming it (exit status 1, nothing printed).
"""
import difflib
import os
import sys


def fail(msg):
    print("mutants: error: " + msg, file=sys.stderr)
    sys.exit(1)


def parse(path):
    mutants, cur = [], None
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            where = "%s:%d" % (path, n)
            if not line.strip() or line.startswith("#"):
                continue
            word, _, rest = line.partition(" ")
            if word == "mutant":
                parts = rest.split()
                if len(parts) != 2:
                    fail(where + ": expected 'mutant ID FILE'")
                cur = {"id": parts[0], "file": parts[1], "why": "", "equiv": "",
                       "old": [], "new": [], "where": where}
                if any(m["id"] == cur["id"] for m in mutants):
                    fail(where + ": mutant " + cur["id"] + " listed twice")
                mutants.append(cur)
                continue
            if cur is None:
                fail(where + ": text before the first 'mutant' line")
            if word == "why":
                cur["why"] = rest.strip()
            elif word == "equivalent":
                cur["equiv"] = rest.strip()
            elif line.startswith("-"):
                if cur["new"]:
                    fail(where + ": mutant " + cur["id"] + ": '-' line after a '+' line")
                cur["old"].append(line[1:].strip())
            elif line.startswith("+"):
                cur["new"].append(line[1:].strip())
            else:
                fail(where + ": mutant " + cur["id"] + ": unexpected line: " + line)
    for m in mutants:
        if not m["old"]:
            fail(m["where"] + ": mutant " + m["id"] + " has no '-' line")
        if not m["why"]:
            fail(m["where"] + ": mutant " + m["id"] + " has no 'why' line")
    return mutants


def mutate(m, text):
    lines = text.splitlines(keepends=True)
    bare = [l.strip() for l in lines]
    k = len(m["old"])
    at = [i for i in range(len(lines) - k + 1) if bare[i:i + k] == m["old"]]
    if len(at) != 1:
        fail("mutant %s: its old lines occur %d times in %s, not once (%s)"
             % (m["id"], len(at), m["file"], m["where"]))
    i = at[0]
    new = []
    for j, t in enumerate(m["new"]):
        old = lines[i + min(j, k - 1)]
        indent = old[:len(old) - len(old.lstrip())]
        new.append(indent + t + "\n" if t else "\n")
    out = lines[:i] + new + lines[i + k:]
    return "".join(out)


def main():
    if len(sys.argv) < 4:
        fail("usage: gen.py LIST SERIES_DIR OUT_DIR [ID...]")
    lst, series, outdir, ids = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    mutants = parse(lst)
    known = {m["id"] for m in mutants}
    for i in ids:
        if i not in known:
            fail("no mutant %s in %s" % (i, lst))
    if ids:
        mutants = [m for m in mutants if m["id"] in ids]
    os.makedirs(outdir, exist_ok=True)
    rows = []
    for m in mutants:
        src = os.path.join(series, m["file"])
        if not os.path.isfile(src):
            fail("mutant %s: %s is not in the tree the series makes" % (m["id"], m["file"]))
        with open(src, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
        after = mutate(m, text)
        diff = "".join(difflib.unified_diff(
            text.splitlines(keepends=True), after.splitlines(keepends=True),
            "a/" + m["file"], "b/" + m["file"], n=3))
        if not diff:
            fail("mutant %s changes nothing" % m["id"])
        # a fixed date and sender: the same mutant makes the same patch, so
        # kernel/build.sh's cache key (and its cached bzImage) is stable
        mail = ("From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
                "From: tunlab mutants <mutants@tunlab.invalid>\n"
                "Date: Thu, 1 Jan 2026 00:00:00 +0000\n"
                "Subject: [PATCH] mutant %s\n\n%s\n---\n"
                "diff --git a/%s b/%s\n%s" % (m["id"], m["why"], m["file"], m["file"], diff))
        with open(os.path.join(outdir, m["id"] + ".patch"), "w", encoding="utf-8",
                  errors="surrogateescape") as f:
            f.write(mail)
        rows.append("\t".join([m["id"], m["file"], m["equiv"] or "-", m["why"]]))
    print("\n".join(rows))


main()
