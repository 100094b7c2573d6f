#!/usr/bin/env python3
"""Write kernels/matmul_tuned.json (the matmul's shipped tuning,
kernels/matmul_tuned.py) from bench/matmul.py records: for each shape a
record measured, the fastest tilec kernel and its config, under the
record's GPU. Entries of other GPUs already in the table are kept; a GPU
named in a record is replaced by what the records say of it.

    tools/matmul-tuned-table.py bench/results/matmul-DATE-COMMIT.json [...]
"""
import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "kernels"))
import matmul_tuned  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("records", nargs="+", type=pathlib.Path)
    ap.add_argument("--out", type=pathlib.Path, default=matmul_tuned.TABLE)
    args = ap.parse_args()
    table = json.loads(args.out.read_text()) if args.out.exists() else {"gpus": {}}
    fresh = {}
    sources = []
    for path in args.records:
        record = json.loads(path.read_text())
        if record.get("benchmark") != "matmul":
            sys.exit(f"{path}: not a bench/matmul.py record")
        for gpu, entries in matmul_tuned.table_from_results(record).items():
            fresh.setdefault(gpu, []).extend(entries)
        where = path.resolve()
        shown = where.relative_to(ROOT) if where.is_relative_to(ROOT) else where
        sources.append({"record": str(shown),
                        "commit": record.get("commit"), "date": record.get("date"),
                        "gpu": record.get("gpu")})
    if not any(fresh.values()):
        sys.exit("no shape with a tilec kernel and config in these records")
    table["gpus"].update(fresh)
    table["about"] = ("The fastest tilec kernel and config per shape, measured by "
                      "bench/matmul.py; read by kernels/matmul_tuned.py. Written by "
                      "tools/matmul-tuned-table.py.")
    # Sources of the GPUs these records leave alone stay.
    table["sources"] = [s for s in table.get("sources", []) if s.get("gpu") not in fresh] + sources
    args.out.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    print(f"{args.out}: " + ", ".join(f"{gpu} {len(e)} shapes" for gpu, e in fresh.items()))


if __name__ == "__main__":
    main()
