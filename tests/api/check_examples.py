"""The C++ examples users copy compile as written: every ```cpp block of
README.md and docs/*.md, and the example at the top of
include/tilec/tilec.h, each put in a function whose parameters are the
names the examples use (tilec::Buffer x, y, out; size_t n), compiled with
-Wall -Wextra -Werror (unused locals allowed: an example shows a call, not
its use) by g++ and by clang. A compiler that is absent is reported as
skipped.

An example that includes "my_kernels.h" (docs/aot.md) gets that header
made by `tilec aot` from kernels/vector_add.py's add (BLOCK=1024) in
namespace my_kernels, when TILEC and TILEC_PTXAS are in the environment;
otherwise it is reported as skipped.

    check_examples.py ROOT COMPILER...
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

PRELUDE = """#include <tilec/tilec.h>
#include <cstddef>
#include <string>
{includes}
[[maybe_unused]] static void example(tilec::Buffer &x, tilec::Buffer &y,
                                     tilec::Buffer &out, std::size_t n) {{
  (void)x; (void)y; (void)out; (void)n;
{body}
}}
"""
AOT_HEADER = "my_kernels.h"
FLAGS = ["-std=c++17", "-Wall", "-Wextra", "-Werror", "-Wno-unused-variable",
         "-Wno-unused-but-set-variable", "-c", "-o", "/dev/null"]


def snippets(root):
    """(where, code) of every example."""
    for md in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        text = md.read_text()
        for m in re.finditer(r"```cpp\n(.*?)```", text, re.S):
            line = text[:m.start()].count("\n") + 1
            yield f"{md.relative_to(root)}:{line}", m.group(1)
    header = root / "include" / "tilec" / "tilec.h"
    lines = header.read_text().splitlines()
    block, start = [], None
    for i, line in enumerate(lines, 1):
        if line.startswith("//   "):
            start = start or i
            block.append(line[5:])
        elif block:
            break
    if not block:
        raise SystemExit(f"{header}: the example at the top is gone")
    yield f"include/tilec/tilec.h:{start}", "\n".join(block) + "\n"


def make_aot_header(root, tmp):
    """my_kernels.h written by tilec aot into tmp; False without the CLI or
    ptxas."""
    tilec, ptxas = os.environ.get("TILEC"), os.environ.get("TILEC_PTXAS")
    if not tilec or not ptxas:
        return False
    subprocess.run([tilec, "aot", str(root / "kernels" / "vector_add.py"), "-k", "add",
                    "-s", "*fp32:16,*fp32:16,*fp32:16,i32:16", "-D", "BLOCK=1024",
                    "--targets", "sm_90a", "--namespace", "my_kernels", "--ptxas", ptxas,
                    "-o", str(tmp / "my_kernels")], check=True)
    return True


def main():
    root = pathlib.Path(sys.argv[1]).resolve()
    compilers = sys.argv[2:]
    found = [c for c in compilers if shutil.which(c)]
    for c in compilers:
        if c not in found:
            print(f"skipped: {c} is not installed")
    if not found:
        print("skipped: no compiler")
        return 0
    failures = 0
    examples = list(snippets(root))
    with tempfile.TemporaryDirectory() as tmp:
        aot_header = make_aot_header(root, pathlib.Path(tmp))
        for where, code in examples:
            if f'#include "{AOT_HEADER}"' in code and not aot_header:
                print(f"skipped: {where} (needs {AOT_HEADER}: no TILEC or TILEC_PTXAS)")
                continue
            includes = "\n".join(l for l in code.splitlines() if l.startswith("#include"))
            body = "\n".join("  " + l for l in code.splitlines()
                             if not l.startswith("#include"))
            source = pathlib.Path(tmp) / "example.cpp"
            source.write_text(PRELUDE.format(includes=includes, body=body))
            for cxx in found:
                run = subprocess.run([cxx, *FLAGS, f"-I{root / 'include'}", f"-I{tmp}",
                                      str(source)],
                                     capture_output=True, text=True)
                status = "ok" if run.returncode == 0 else "FAILED"
                print(f"{status}: {where} with {cxx}")
                if run.returncode:
                    failures += 1
                    print(source.read_text())
                    print(run.stderr)
    print(f"{len(examples)} examples, {len(found)} compilers, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
