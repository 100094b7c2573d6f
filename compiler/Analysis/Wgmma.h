// Whether a tile.dot has the types and shape Hopper's wgmma takes, asked
// before layouts exist: tilegpu-accelerate-matmul decides with it (and
// with where the operands come from), and tile-prefetch-loads predicts
// that decision, to leave a tl.trans'd operand's load to the cp.async
// pipeline that wgmma reads through a transposed view.
#pragma once

#include "compiler/Dialect/Tile/Tile.h"

namespace tilec {

/// An f16 or bf16 dot with an f32 accumulator, 2-D, on `numWarps` warps
/// that form whole warpgroups of 64 rows each along M, with N a multiple
/// of 8 and K of 16 (wgmma's m64nNk16).
bool fitsWgmma(tile::DotOp op, unsigned numWarps);

} // namespace tilec
