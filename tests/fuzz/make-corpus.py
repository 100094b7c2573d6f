#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/).

Seeds come from the kernels tilec ships and tests:
  - every `tilec compile` RUN line of the lit tests (tests/lit/**): the file
    it compiles, with a `# fuzz:` line that says what the RUN line says
    (kernel, signature, -D constexprs, --num-warps, --target, --debug);
  - every other kernel file: kernels/*.py, tests/python/*kernels.py, the
    lit tests' inputs, with no `# fuzz:` line (the target guesses);
  - every kernel source written inline in the C++ unit tests (R"(...)"
    strings that define a function).
Block sizes are made small (FuzzCase.h: tiles of at most 4096 elements for
compile, 1024 for the interpreter), so that seeds compile quickly. Interpreter
seeds get a grid, a buffer size and, after a NUL byte, the bytes of their
buffers. Files the fuzzers found are kept apart, under corpus/<target>/
names starting with `found-`; this script leaves them alone.

    python3 tests/fuzz/make-corpus.py        # from anywhere
"""
import glob
import hashlib
import os
import re
import shlex
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus")


def rel(path):
    return os.path.relpath(path, ROOT)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def small(value, limit):
    """A power-of-two block size above `limit` becomes `limit`."""
    try:
        v = int(value, 0)
    except ValueError:
        return value
    if v > limit and v & (v - 1) == 0:
        return str(limit)
    return value


def run_line_seeds():
    """(source path, directive words) for each `tilec compile` RUN line."""
    seeds = []
    for test in sorted(glob.glob(os.path.join(ROOT, "tests", "lit", "**", "*"), recursive=True)):
        if not os.path.isfile(test) or "Inputs" in test.split(os.sep):
            continue
        try:
            text = read(test)
        except UnicodeDecodeError:
            continue
        for m in re.finditer(r"RUN:\s*(?:not\s+)?tilec compile (.*)", text):
            command = m.group(1).split("|")[0]
            try:
                args = shlex.split(command)
            except ValueError:
                continue
            source = args[0]
            source = source.replace("%s", test)
            source = source.replace("%kernels", os.path.join(ROOT, "kernels"))
            source = source.replace("%S", os.path.dirname(test))
            if not os.path.isfile(source):
                continue
            words = []
            i = 1
            while i < len(args):
                a = args[i]
                value = args[i + 1] if i + 1 < len(args) else ""
                if a == "-k":
                    words.append(("kernel", value))
                elif a == "-s":
                    words.append(("sig", value))
                elif a == "-D" and "=" in value:
                    name, v = value.split("=", 1)
                    words.append((name, v))
                elif a == "--num-warps":
                    words.append(("warps", value))
                elif a == "--num-stages":
                    words.append(("stages", value))
                elif a == "--target":
                    words.append(("target", value))
                elif a == "--debug":
                    words.append(("debug", "1"))
                    i += 1
                    continue
                else:
                    i += 1
                    continue
                i += 2
            seeds.append((source, words))
    return seeds


def other_sources():
    paths = glob.glob(os.path.join(ROOT, "kernels", "*.py"))
    paths += glob.glob(os.path.join(ROOT, "tests", "python", "*kernels.py"))
    paths += glob.glob(os.path.join(ROOT, "tests", "lit", "**", "Inputs", "*.py"), recursive=True)
    return sorted(paths)


def inline_sources():
    """Kernel sources written as raw strings in the C++ unit tests."""
    found = []
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "unit", "**", "*.cpp"), recursive=True)):
        for m in re.finditer(r'R"\((.*?)\)"', read(path), re.S):
            text = m.group(1)
            if re.search(r"^\s*def \w+\(", text, re.M):
                found.append((path, text))
    return found


def buffer_bytes(seed):
    """64 float32 values in [-4, 4), a few of them special: what every
    interpreter seed's buffers are filled with (cyclically)."""
    values = [((seed * 7919 + i * 104729) % 8000) / 1000.0 - 4.0 for i in range(60)]
    values += [0.0, -0.0, 1.0, float("inf")]
    return struct.pack("<64f", *values)


def write(target, name, content):
    digest = hashlib.sha1(content).hexdigest()[:10]
    path = os.path.join(CORPUS, target, f"{name}-{digest}")
    with open(path, "wb") as f:
        f.write(content)


def main():
    for target in ("compile", "interpret"):
        os.makedirs(os.path.join(CORPUS, target), exist_ok=True)
        for old in glob.glob(os.path.join(CORPUS, target, "*")):
            if not os.path.basename(old).startswith("found-"):
                os.remove(old)

    seeds = []  # (name, source text, directive words or None)
    for source, words in run_line_seeds():
        kernel = dict(words).get("kernel", "k")
        name = os.path.splitext(os.path.basename(source))[0] + "." + kernel
        seeds.append((name, read(source), words))
    for path in other_sources():
        seeds.append((os.path.splitext(os.path.basename(path))[0], read(path), None))
    for path, text in inline_sources():
        seeds.append((os.path.splitext(os.path.basename(path))[0], text, None))

    seen = {"compile": set(), "interpret": set()}
    count = {"compile": 0, "interpret": 0}
    for index, (name, text, words) in enumerate(seeds):
        for target, limit, extra in (("compile", 64, []),
                                     ("interpret", 32, [("grid", "2"), ("elems", "256")])):
            line = ""
            if words is not None or extra:
                ws = [(k, small(v, limit)) for k, v in (words or [])] + extra
                line = "# fuzz: " + " ".join(f"{k}={v}" for k, v in ws) + "\n"
            content = (line + text).encode()
            if target == "interpret":
                content += b"\0" + buffer_bytes(index)
            if content in seen[target]:
                continue
            seen[target].add(content)
            write(target, re.sub(r"[^A-Za-z0-9_.]", "_", name), content)
            count[target] += 1
    for target in ("compile", "interpret"):
        print(f"{count[target]} seeds in {rel(os.path.join(CORPUS, target))}")


if __name__ == "__main__":
    main()
