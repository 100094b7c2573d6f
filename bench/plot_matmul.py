"""An SVG of one bench/matmul.py record: TFLOP/s of tilec, Triton and
cuBLAS (torch.matmul) by size, one panel per dtype, for the square shapes
(the odd shapes stay in the record's table). Plain Python, no plotting
library, so it runs anywhere the record is.

    python3 bench/plot_matmul.py bench/results/matmul-DATE-COMMIT.json [OUT.svg]

Writes OUT.svg (default: the record's name with .svg)."""
import json
import pathlib
import sys

SIDES = [("tilec", "#1b6ac9"), ("triton", "#e07b00"), ("torch", "#3a9a3a")]
LABEL = {"tilec": "tilec", "triton": "Triton", "torch": "cuBLAS"}
W, H, PAD = 360, 260, 46


def tflops(row, side):
    """A side's TFLOP/s in a row: Triton's best kernel where the record has
    several ("triton best"), as the tilec entry is tilec's best."""
    if side == "triton" and "triton best" in row:
        side = "triton best"
    return row[side]["TFLOP/s"] if side in row else 0.0


def panel(rows, dtype, x0):
    """SVG elements of one dtype's panel at horizontal offset x0."""
    square = [r for r in rows if r["dtype"] == dtype and r["M"] == r["N"] == r["K"]]
    square.sort(key=lambda r: r["M"])
    if not square:
        return []
    top = max(tflops(r, s) for r in square for s, _ in SIDES)
    top = (int(top / 100) + 1) * 100
    out = [f'<text x="{x0 + W / 2}" y="18" text-anchor="middle" '
           f'font-size="14">{dtype}</text>']
    plot_w, plot_h = W - PAD - 10, H - 2 * PAD
    for t in range(0, top + 1, 100):
        y = PAD + plot_h * (1 - t / top)
        out.append(f'<line x1="{x0 + PAD}" y1="{y:.1f}" x2="{x0 + PAD + plot_w}" '
                   f'y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{x0 + PAD - 4}" y="{y + 4:.1f}" text-anchor="end" '
                   f'font-size="10">{t}</text>')
    group = plot_w / len(square)
    bar = group / (len(SIDES) + 1)
    for i, r in enumerate(square):
        gx = x0 + PAD + i * group
        for j, (side, colour) in enumerate(SIDES):
            v = tflops(r, side)
            h = plot_h * v / top
            out.append(f'<rect x="{gx + (j + 0.5) * bar:.1f}" y="{PAD + plot_h - h:.1f}" '
                       f'width="{bar:.1f}" height="{h:.1f}" fill="{colour}">'
                       f'<title>{LABEL[side]} {v:.0f} TFLOP/s</title></rect>')
        out.append(f'<text x="{gx + group / 2:.1f}" y="{PAD + plot_h + 14}" '
                   f'text-anchor="middle" font-size="10">{r["M"]}³</text>')
    out.append(f'<text x="{x0 + 12}" y="{PAD + plot_h / 2}" font-size="10" '
               f'transform="rotate(-90 {x0 + 12} {PAD + plot_h / 2})" '
               f'text-anchor="middle">TFLOP/s</text>')
    return out


def main():
    record = pathlib.Path(sys.argv[1])
    target = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else record.with_suffix(".svg")
    data = json.loads(record.read_text())
    dtypes = sorted({r["dtype"] for r in data["rows"]})
    width = W * len(dtypes)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
             f'height="{H + 20}" font-family="sans-serif">',
             f'<rect width="{width}" height="{H + 20}" fill="white"/>']
    for i, dtype in enumerate(dtypes):
        parts += panel(data["rows"], dtype, i * W)
    for j, (side, colour) in enumerate(SIDES):
        x = 60 + j * 90
        parts.append(f'<rect x="{x}" y="{H}" width="10" height="10" fill="{colour}"/>')
        parts.append(f'<text x="{x + 14}" y="{H + 9}" font-size="11">{LABEL[side]}</text>')
    parts.append(f'<text x="{width - 6}" y="{H + 9}" text-anchor="end" font-size="9">'
                 f'{data.get("gpu", "")}, commit {data.get("commit", "?")}, '
                 f'{data.get("date", "")[:10]}</text>')
    parts.append("</svg>")
    target.write_text("\n".join(parts) + "\n")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
