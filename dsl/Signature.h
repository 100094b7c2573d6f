// Kernel signatures in Triton's AOT notation: one entry per non-constexpr
// parameter, comma-separated: `*fp32:16,*fp32:16,*fp32:16,i32:16`.
//   *T     pointer to T           T   scalar (i32, i64, fp32, ...)
//   :16    pointer 16-byte aligned / integer divisible by 16
//   :8     integer divisible by 8 (not by 16): a tilec extension, so that
//          the rows of 16-bit tensors 8 elements apart still come in
//          16-byte vectors
//   :1     integer equal to 1 (specialised into a constant)
#pragma once

#include "dsl/Types.h"

#include <string>
#include <vector>

namespace tilec::dsl {

struct ArgSpec {
  DType type;
  /// 16 or 8 when `:16` or `:8` was given, else 1. For pointers it counts
  /// bytes (and only 16 is spelled).
  unsigned divisibility = 1;
  bool equalsOne = false;

  /// Back to the notation: "*fp32:16".
  std::string str() const;
};

struct Signature {
  std::vector<ArgSpec> args;
  std::string str() const;
};

/// Parse a signature; on error returns false and says why in `error`
/// (naming the entry, counted from 1).
bool parseSignature(const std::string &text, Signature &signature,
                    std::string &error);

} // namespace tilec::dsl
