"""The disk compile cache from Python, without a GPU (docs/cache.md).

The cache is process-wide and reads TILEC_CACHE_DIR / TILEC_CACHE / TILEC_LOG
at first use, so every scenario runs its compiles in fresh subprocesses, each
with its own cache directory under tmp_path. A kernel module (a @jit helper,
a @jit kernel calling it, a module-level constant the kernel uses and an
unrelated @jit function) is written to tmp_path; a driver script imports it
and prints, as JSON, what each compile returned (from_cache, cache_key, the
PTX) and what the recompile hook received.

Tested: a miss then a hit with the same key and PTX; what changes the key
(a callee's body, a used global's value, a constexpr, the target) with the recompile log
and hook naming the change and its line, and what does not (an unrelated
function); damaged entries (truncated, a flipped payload byte, extra bytes,
a bad header, an empty file) being reported and recompiled, then hit again;
four processes filling one empty cache at once; tilec.cache.list/show/size/
clear; TILEC_CACHE=0.
"""
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

SIG = "*fp32:16,*fp32:16,i32"

MODULE = '''\
"""A kernel module for the cache tests."""
import tilec
import tilec.language as tl

SCALE = {scale}


@tilec.jit
def helper(x):
    y = x * {factor}
    return y + 1.0


@tilec.jit
def kern(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, helper(x) * SCALE, mask=mask)


@tilec.jit
def unrelated(x_ptr):
    tl.store(x_ptr, {unrelated})
'''

DRIVER = '''\
import json
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, {moddir!r})

import tilec

events = []
tilec.set_recompile_hook(lambda kernel, path, reasons: events.append([kernel, path, list(reasons)]))

import kmod

results = []
for job in json.loads(sys.argv[1]):
    fn = getattr(kmod, job.get("kernel", "kern"))
    c = fn.compile(job.get("sig", {sig!r}), num_warps=job.get("num_warps", 4),
                   target=job.get("target"), **job.get("constexprs", {{}}))
    results.append({{"from_cache": c.from_cache, "key": c.cache_key,
                    "ptx": c.asm["ptx"], "num_warps": c.num_warps,
                    "shared": c.shared, "name": c.name, "target": c.target}})
print("RESULT " + json.dumps({{"results": results, "events": events}}), flush=True)
# Removed before exit: test_recompile_hook_left_set_at_exit checks a hook
# left in place on its own.
tilec.set_recompile_hook(None)
'''


def write_module(tmp_path, scale="2.0", factor="2.0", unrelated="1.0"):
    path = tmp_path / "kmod.py"
    path.write_text(MODULE.format(scale=scale, factor=factor, unrelated=unrelated))
    return path


def line_of(path, text):
    """The 1-based line number of the first line of `path` containing `text`."""
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if text in line:
            return i
    raise AssertionError(f"{text!r} not in {path}")


def cache_env(cache_dir, **extra):
    env = dict(os.environ)
    env.pop("TILEC_CACHE", None)
    env.pop("TILEC_LOG", None)
    env.pop("TILEC_INTERPRET", None)
    env["TILEC_CACHE_DIR"] = str(cache_dir)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env


def driver(tmp_path):
    path = tmp_path / "driver.py"
    if not path.exists():
        path.write_text(DRIVER.format(moddir=str(tmp_path), sig=SIG))
    return path


def parse(stdout, stderr):
    for line in stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    raise AssertionError(f"no result from the driver\nstdout:\n{stdout}\nstderr:\n{stderr}")


def run_jobs(tmp_path, jobs, cache_dir=None, **env):
    """Compile `jobs` ([{kernel, sig, constexprs, num_warps, target}]) in a new
    process; returns (results, hook events, stderr)."""
    cache_dir = cache_dir or tmp_path / "cache"
    r = subprocess.run([sys.executable, str(driver(tmp_path)), json.dumps(jobs)],
                       env=cache_env(cache_dir, **env), capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, f"driver failed ({r.returncode})\n{r.stdout}\n{r.stderr}"
    out = parse(r.stdout, r.stderr)
    return out["results"], out["events"], r.stderr


def run_python(code, cache_dir, **env):
    """Run `code` in a new process with the given cache; returns stdout."""
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                       env=cache_env(cache_dir, **env), capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, f"script failed ({r.returncode})\n{r.stdout}\n{r.stderr}"
    return r.stdout


def one(tmp_path, block=1024, **env):
    results, events, stderr = run_jobs(tmp_path, [{"constexprs": {"BLOCK": block}}], **env)
    return results[0], events, stderr


def entry_path(cache_dir, key):
    return cache_dir / "kernels" / key[:2] / f"{key}.tlc"


def entries(cache_dir):
    return sorted((cache_dir / "kernels").glob("*/*.tlc")) if (cache_dir / "kernels").exists() else []


# -- a. miss, then hit ----------------------------------------------------------

def test_miss_then_hit(tmp_path):
    write_module(tmp_path)
    cache_dir = tmp_path / "cache"
    first, events, stderr = one(tmp_path, TILEC_LOG="cache")
    assert first["from_cache"] is False
    key = first["key"]
    assert re.fullmatch(r"[0-9a-f]{32}", key), key
    target = first["target"]  # sm_90a without a GPU, else the GPU's
    assert f"tilec: compiled 'kern' [{SIG}] for {target} into {key}" in stderr, stderr
    assert entry_path(cache_dir, key).is_file()
    assert events == []  # never compiled before: no recompile

    second, events, stderr = one(tmp_path, TILEC_LOG="cache")
    assert second["from_cache"] is True
    assert second["key"] == key
    assert second["ptx"] == first["ptx"]
    assert ".entry kern" in second["ptx"]
    assert f"tilec: cache hit for 'kern' [{SIG}] {target} {key}" in stderr, stderr
    assert events == []


def test_same_process_second_compile_is_not_a_recompile(tmp_path):
    write_module(tmp_path)
    results, events, stderr = run_jobs(
        tmp_path, [{"constexprs": {"BLOCK": 1024}}, {"constexprs": {"BLOCK": 1024}}],
        TILEC_LOG="recompile")
    assert results[0]["key"] == results[1]["key"]
    assert results[0]["ptx"] == results[1]["ptx"]
    assert events == [] and "recompiling" not in stderr, (events, stderr)


def test_recompile_hook_left_set_at_exit(tmp_path):
    """A process that sets a hook (a lambda only the hook holds) and exits
    without removing it must exit cleanly."""
    write_module(tmp_path)
    r = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import tilec
        events = []
        tilec.set_recompile_hook(lambda kernel, path, reasons: events.append(kernel))
        print("done", flush=True)
        """)], env=cache_env(tmp_path / "cache"), capture_output=True, text=True, timeout=300)
    assert r.stdout == "done\n"
    assert r.returncode == 0, f"exit status {r.returncode}\n{r.stderr}"


# -- b. what changes the key ---------------------------------------------------------

def test_callee_edit_recompiles_and_names_the_line(tmp_path):
    path = write_module(tmp_path)
    first, _, _ = one(tmp_path)
    assert first["from_cache"] is False

    write_module(tmp_path, factor="4.0")
    line = line_of(path, "y = x * 4.0")
    second, events, stderr = one(tmp_path, TILEC_LOG="recompile")
    assert second["from_cache"] is False
    assert second["key"] != first["key"]
    reason = f"callee 'helper' changed at {path}:{line}"
    assert f"tilec: recompiling 'kern' ({path}): " in stderr, stderr
    assert reason in stderr, stderr
    assert len(events) == 1, events
    kernel, hook_path, reasons = events[0]
    assert kernel == "kern" and hook_path == str(path)
    assert reasons == [reason], reasons

    # The edited version is cached too, and the old one still is.
    again, events, _ = one(tmp_path)
    assert again["from_cache"] is True and again["key"] == second["key"] and events == []
    write_module(tmp_path)
    back, events, _ = one(tmp_path)
    assert back["from_cache"] is True and back["key"] == first["key"] and events == []


def test_kernel_edit_names_the_source_line(tmp_path):
    path = write_module(tmp_path)
    first, _, _ = one(tmp_path)
    text = path.read_text().replace("mask = offsets < n", "mask = n > offsets")
    path.write_text(text)
    line = line_of(path, "mask = n > offsets")
    second, events, stderr = one(tmp_path, TILEC_LOG="recompile")
    assert second["from_cache"] is False and second["key"] != first["key"]
    reason = f"source 'kern' changed at {path}:{line}"
    assert reason in stderr, stderr
    assert len(events) == 1 and events[0][2] == [reason], events


def test_global_change_recompiles(tmp_path):
    write_module(tmp_path, scale="2.0")
    first, _, _ = one(tmp_path)
    write_module(tmp_path, scale="3.0")
    second, events, stderr = one(tmp_path, TILEC_LOG="recompile")
    assert second["from_cache"] is False and second["key"] != first["key"]
    reason = "global 'SCALE' changed: 2.0 -> 3.0"
    assert reason in stderr, stderr
    assert len(events) == 1 and events[0][0] == "kern" and events[0][2] == [reason], events


def test_constexpr_and_num_warps_change_in_one_process(tmp_path):
    write_module(tmp_path)
    results, events, stderr = run_jobs(
        tmp_path, [{"constexprs": {"BLOCK": 1024}}, {"constexprs": {"BLOCK": 512}},
                   {"constexprs": {"BLOCK": 512}, "num_warps": 8}],
        TILEC_LOG="recompile")
    assert [r["from_cache"] for r in results] == [False, False, False]
    assert len({r["key"] for r in results}) == 3
    assert "constexpr 'BLOCK' changed: 1024 -> 512" in stderr, stderr
    assert "num_warps changed: 4 -> 8" in stderr, stderr
    assert [e[2] for e in events] == [["constexpr 'BLOCK' changed: 1024 -> 512"],
                                      ["num_warps changed: 4 -> 8"]], events


def test_signature_change_is_a_reason(tmp_path):
    write_module(tmp_path)
    results, events, stderr = run_jobs(
        tmp_path, [{"constexprs": {"BLOCK": 256}},
                   {"constexprs": {"BLOCK": 256}, "sig": "*fp32,*fp32:16,i32"}],
        TILEC_LOG="recompile")
    assert results[0]["key"] != results[1]["key"]
    assert len(events) == 1 and len(events[0][2]) == 1, events
    assert events[0][2][0].startswith("signature changed: "), events
    assert SIG in events[0][2][0] and "*fp32,*fp32:16,i32" in events[0][2][0], events


def test_target_changes_the_key(tmp_path):
    """Two targets are two specialisations: two keys, two entries, each
    with its own PTX; the recompile log names the target; the process's
    in-memory cache keeps both (going back to the first compiles nothing);
    a new process finds each under its own key."""
    write_module(tmp_path)
    cache_dir = tmp_path / "cache"
    jobs = [{"constexprs": {"BLOCK": 1024}, "target": "sm_80"},
            {"constexprs": {"BLOCK": 1024}, "target": "sm_90a"}]
    results, events, stderr = run_jobs(tmp_path, jobs + jobs[:1], TILEC_LOG="recompile")
    sm80, sm90a, sm80_again = results
    assert [r["target"] for r in results] == ["sm_80", "sm_90a", "sm_80"]
    assert [r["from_cache"] for r in results] == [False, False, False]
    assert sm80["key"] != sm90a["key"]
    assert sm80_again["key"] == sm80["key"] and sm80_again["ptx"] == sm80["ptx"]
    assert ".target sm_80\n" in sm80["ptx"] and ".target sm_90a\n" in sm90a["ptx"]
    assert sorted(p.stem for p in entries(cache_dir)) == sorted([sm80["key"], sm90a["key"]])
    assert "target changed: sm_80 -> sm_90a" in stderr, stderr
    assert [e[2] for e in events] == [["target changed: sm_80 -> sm_90a"]], events

    again, events, _ = run_jobs(tmp_path, list(reversed(jobs)))
    assert [r["from_cache"] for r in again] == [True, True]
    assert [r["key"] for r in again] == [sm90a["key"], sm80["key"]]
    assert [r["ptx"] for r in again] == [sm90a["ptx"], sm80["ptx"]]
    assert [r["target"] for r in again] == ["sm_90a", "sm_80"]
    assert events == []


def test_recompile_reason_from_an_earlier_process(tmp_path):
    """The history of an earlier process gives the reason (not just this one's)."""
    write_module(tmp_path)
    one(tmp_path, block=1024)
    second, events, stderr = one(tmp_path, block=512, TILEC_LOG="recompile")
    assert second["from_cache"] is False
    assert "constexpr 'BLOCK' changed: 1024 -> 512" in stderr, stderr
    assert [e[2] for e in events] == [["constexpr 'BLOCK' changed: 1024 -> 512"]], events


def test_unrelated_edit_keeps_the_key(tmp_path):
    path = write_module(tmp_path, unrelated="1.0")
    first, _, _ = one(tmp_path)
    write_module(tmp_path, unrelated="7.0")
    assert "tl.store(x_ptr, 7.0)" in path.read_text()
    second, events, stderr = one(tmp_path, TILEC_LOG="recompile")
    assert second["from_cache"] is True, stderr
    assert second["key"] == first["key"]
    assert events == [] and "recompiling" not in stderr, (events, stderr)


def test_unrelated_function_itself_is_cached_separately(tmp_path):
    write_module(tmp_path)
    results, _, _ = run_jobs(tmp_path, [{"constexprs": {"BLOCK": 1024}},
                                        {"kernel": "unrelated", "sig": "*fp32"}])
    assert results[0]["key"] != results[1]["key"]
    write_module(tmp_path, unrelated="5.0")
    results2, _, _ = run_jobs(tmp_path, [{"constexprs": {"BLOCK": 1024}},
                                         {"kernel": "unrelated", "sig": "*fp32"}])
    assert results2[0]["from_cache"] is True and results2[0]["key"] == results[0]["key"]
    assert results2[1]["from_cache"] is False and results2[1]["key"] != results[1]["key"]


# -- c. damaged entries ------------------------------------------------------------

def payload_range(data):
    """(start, size) of an entry's payload: what follows the `end <size>` line."""
    m = re.search(rb"^end\t(\d+)\n", data, re.M)
    assert m, data[:400]
    return m.end(), int(m.group(1))


def truncate(data):
    return data[:-100]


def flip_payload_byte(data):
    start, size = payload_range(data)
    i = start + size // 2
    return data[:i] + bytes([data[i] ^ 0x20]) + data[i + 1:]


def flip_last_byte(data):
    return data[:-1] + bytes([data[-1] ^ 0x01])


def append_bytes(data):
    return data + b"extra"


def bad_magic(data):
    return b"X" + data[1:]


def empty(data):
    return b""


@pytest.mark.parametrize("damage", [truncate, flip_payload_byte, flip_last_byte,
                                    append_bytes, bad_magic, empty],
                         ids=lambda f: f.__name__)
def test_damaged_entry_is_recompiled(tmp_path, damage):
    write_module(tmp_path)
    cache_dir = tmp_path / "cache"
    first, _, _ = one(tmp_path)
    path = entry_path(cache_dir, first["key"])
    data = path.read_bytes()
    start, size = payload_range(data)
    assert start + size == len(data)  # the header's size is the payload's
    damaged = damage(data)
    assert damaged != data
    path.write_bytes(damaged)

    second, _, stderr = one(tmp_path)
    assert second["from_cache"] is False, stderr
    assert second["key"] == first["key"]
    assert second["ptx"] == first["ptx"]
    assert f"cache entry {path} is damaged (" in stderr, stderr
    assert "); recompiling" in stderr, stderr
    assert path.read_bytes() == data  # rewritten, byte for byte

    third, _, stderr = one(tmp_path)
    assert third["from_cache"] is True, stderr
    assert third["key"] == first["key"] and third["ptx"] == first["ptx"]
    assert "damaged" not in stderr, stderr


def flip_header_field(data, field, old, new):
    """One flipped bit in a header line's value: `field<TAB>old` -> `field<TAB>new`."""
    assert bin(ord(old[-1]) ^ ord(new[-1])).count("1") == 1 and old[:-1] == new[:-1]
    line = f"\n{field}\t{old}\n".encode()
    assert data.count(line) == 1, (field, data[:400])
    return data.replace(line, f"\n{field}\t{new}\n".encode())


@pytest.mark.parametrize("field,old,new", [
    ("warps", "4", "5"),
    ("shared", "0", "1"),
    ("name", "kern", "kerl"),
    ("signature", SIG, SIG[:-1] + "3"),   # ...,i32 -> ...,i33
], ids=["warps", "shared", "name", "signature"])
def test_damaged_header_field_is_detected(tmp_path, field, old, new):
    """A flipped bit in a header field (docs/cache.md: reads verify every
    header field) must not be served as a valid entry."""
    write_module(tmp_path)
    cache_dir = tmp_path / "cache"
    first, _, _ = one(tmp_path)
    assert first["num_warps"] == 4 and first["shared"] == 0 and first["name"] == "kern"
    path = entry_path(cache_dir, first["key"])
    data = path.read_bytes()
    path.write_bytes(flip_header_field(data, field, old, new))

    second, _, stderr = one(tmp_path)
    served = {k: second[k] for k in ("num_warps", "shared", "name")}
    assert second["from_cache"] is False, (
        f"an entry with '{field}\t{new}' (stored '{old}') was read as valid: {served}")
    assert f"cache entry {path} is damaged (" in stderr, stderr
    assert path.read_bytes() == data
    assert served == {"num_warps": 4, "shared": 0, "name": "kern"}


@pytest.mark.parametrize("field,old,new", [
    ("warps", "4", "x"),
    ("shared", "0", "-"),
    ("warps", "4", ""),
], ids=["warps-x", "shared-dash", "warps-empty"])
def test_unparsable_header_field_is_damaged(tmp_path, field, old, new):
    """A header number that does not parse is a damaged entry: reported,
    recompiled and rewritten (not an exception from every later compile)."""
    write_module(tmp_path)
    cache_dir = tmp_path / "cache"
    first, _, _ = one(tmp_path)
    path = entry_path(cache_dir, first["key"])
    data = path.read_bytes()
    line = f"\n{field}\t{old}\n".encode()
    assert data.count(line) == 1
    path.write_bytes(data.replace(line, f"\n{field}\t{new}\n".encode()))

    r = subprocess.run([sys.executable, str(driver(tmp_path)),
                        json.dumps([{"constexprs": {"BLOCK": 1024}}])],
                       env=cache_env(cache_dir), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"compile failed on a damaged entry:\n{r.stderr[-2000:]}"
    second = parse(r.stdout, r.stderr)["results"][0]
    assert second["from_cache"] is False
    assert f"cache entry {path} is damaged (" in r.stderr, r.stderr
    assert path.read_bytes() == data
    third, _, _ = one(tmp_path)
    assert third["from_cache"] is True and third["key"] == first["key"]


# -- d. concurrent processes ------------------------------------------------------------

CONCURRENT_JOBS = [
    {"constexprs": {"BLOCK": 256}},
    {"constexprs": {"BLOCK": 512}},
    {"constexprs": {"BLOCK": 1024}},
    {"constexprs": {"BLOCK": 1024}, "num_warps": 8},
    {"constexprs": {"BLOCK": 1024}, "sig": "*fp32,*fp32,i32"},
    {"kernel": "unrelated", "sig": "*fp32"},
]


def test_concurrent_processes_fill_one_cache(tmp_path):
    write_module(tmp_path)
    cache_dir = tmp_path / "cache"
    script = str(driver(tmp_path))
    procs = []
    for i in range(4):
        # Each process takes the jobs in another order, so that they race
        # on different entries at different times.
        jobs = CONCURRENT_JOBS[i:] + CONCURRENT_JOBS[:i]
        procs.append((jobs, subprocess.Popen(
            [sys.executable, script, json.dumps(jobs)], env=cache_env(cache_dir),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
    keys = None
    ptx = None
    for jobs, p in procs:
        stdout, stderr = p.communicate(timeout=600)
        assert p.returncode == 0, f"{p.returncode}\n{stdout}\n{stderr}"
        assert "damaged" not in stderr, stderr
        results = parse(stdout, stderr)["results"]
        got = {json.dumps(j, sort_keys=True): r for j, r in zip(jobs, results)}
        if keys is None:
            keys = {j: r["key"] for j, r in got.items()}
            ptx = {j: r["ptx"] for j, r in got.items()}
        else:
            assert {j: r["key"] for j, r in got.items()} == keys
            assert {j: r["ptx"] for j, r in got.items()} == ptx
    assert len(set(keys.values())) == len(CONCURRENT_JOBS)

    results, _, stderr = run_jobs(tmp_path, CONCURRENT_JOBS)
    assert [r["from_cache"] for r in results] == [True] * len(CONCURRENT_JOBS), stderr
    assert [r["key"] for r in results] == [keys[json.dumps(j, sort_keys=True)]
                                           for j in CONCURRENT_JOBS]
    assert "damaged" not in stderr, stderr

    leftovers = [str(p) for p in cache_dir.rglob("*") if ".tmp." in p.name]
    assert leftovers == []
    assert {p.stem for p in entries(cache_dir)} == set(keys.values())

    listed = json.loads(run_python("""
        import json, tilec
        print(json.dumps(tilec.cache.list()))
        """, cache_dir))
    assert sorted(e["key"] for e in listed) == sorted(keys.values())
    by_key = {e["key"]: e for e in listed}
    for job in CONCURRENT_JOBS:
        e = by_key[keys[json.dumps(job, sort_keys=True)]]
        assert e["kernel"] == job.get("kernel", "kern")
        assert e["signature"] == job.get("sig", SIG)


# -- e. the Python API, and TILEC_CACHE=0 ------------------------------------------------

def test_cache_api(tmp_path):
    write_module(tmp_path)
    cache_dir = tmp_path / "cache"
    results, _, _ = run_jobs(tmp_path, [{"constexprs": {"BLOCK": 256}},
                                        {"constexprs": {"BLOCK": 512}}])
    keys = sorted(r["key"] for r in results)
    files = {p.stem: p.stat().st_size for p in entries(cache_dir)}
    assert sorted(files) == keys

    out = json.loads(run_python("""
        import json, tilec
        out = {"dir": tilec.cache.dir(), "list": tilec.cache.list(),
               "size": tilec.cache.size()}
        out["show"] = {e["key"]: tilec.cache.show(e["key"][:10]) for e in out["list"]}
        out["show_full"] = {e["key"]: tilec.cache.show(e["key"]) for e in out["list"]}
        errors = []
        for prefix in ["zzzz", ""]:
            try:
                tilec.cache.show(prefix)
                errors.append(None)
            except tilec.Error as e:
                errors.append(str(e))
        out["errors"] = errors
        out["clear"] = tilec.cache.clear()
        out["after"] = {"list": tilec.cache.list(), "size": tilec.cache.size()}
        print(json.dumps(out))
        """, cache_dir))
    assert os.path.realpath(out["dir"]) == os.path.realpath(cache_dir)
    listed = out["list"]
    assert sorted(e["key"] for e in listed) == keys
    for e in listed:
        assert set(e) == {"key", "kernel", "signature", "cubin_arch", "bytes", "modified"}
        assert e["kernel"] == "kern" and e["signature"] == SIG
        assert e["bytes"] == files[e["key"]]
        assert isinstance(e["modified"], int) and e["modified"] > 0
    assert out["size"] >= sum(files.values())
    ptx = {r["key"]: r["ptx"] for r in results}
    for key, text in out["show"].items():
        assert text == out["show_full"][key]
        assert f"key: {key}" in text
        assert f"file: {entry_path(cache_dir, key)}" in text
        assert "kernel: kern" in text and f"signature: {SIG}" in text
        assert "num_warps: 4" in text
        for stage in ("tile", "tilegpu", "llir", "ptx"):
            assert f"----- {stage} -----" in text, stage
        assert ptx[key] in text
    assert out["errors"][0] and "zzzz" in out["errors"][0]
    assert out["errors"][1] and "give a key" in out["errors"][1]
    assert out["clear"] >= len(keys)
    assert out["after"] == {"list": [], "size": 0}
    assert entries(cache_dir) == []

    again, _, _ = one(tmp_path, block=256)
    assert again["from_cache"] is False


def test_show_with_an_ambiguous_prefix(tmp_path):
    write_module(tmp_path)
    cache_dir = tmp_path / "cache"
    # 17 entries: two of them share a first hex digit (pigeonhole).
    jobs = [{"constexprs": {"BLOCK": 2 ** i}, "num_warps": w}
            for i in range(4, 10) for w in (1, 2, 4)][:17]
    results, _, _ = run_jobs(tmp_path, jobs)
    keys = [r["key"] for r in results]
    assert len(set(keys)) == 17
    prefix = next(k[0] for k in keys if sum(o[0] == k[0] for o in keys) > 1)
    out = run_python(f"""
        import tilec
        try:
            tilec.cache.show({prefix!r})
            print("no error")
        except tilec.Error as e:
            print(e)
        """, cache_dir)
    assert "give more digits" in out, out


def test_cache_disabled(tmp_path):
    write_module(tmp_path)
    cache_dir = tmp_path / "cache"
    first, _, _ = one(tmp_path, TILEC_CACHE="0")
    second, _, _ = one(tmp_path, TILEC_CACHE="0")
    assert first["from_cache"] is False and second["from_cache"] is False
    assert first["ptx"] == second["ptx"]
    assert entries(cache_dir) == []
    written = [str(p) for p in cache_dir.rglob("*") if p.is_file()] if cache_dir.exists() else []
    assert written == []
    # Turned on again, the cache starts empty.
    third, _, _ = one(tmp_path)
    assert third["from_cache"] is False
