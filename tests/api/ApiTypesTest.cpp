// The public API's value types take every integer type a C++ caller has at
// hand (int, unsigned, size_t, int64_t, long long) without ambiguity, and
// refuse the values that do not fit with an Error.
#include "tilec/tilec.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstdint>

using tilec::Arg;
using tilec::Constexpr;
using tilec::Grid;

TEST(ApiTypes, ArgFromEveryIntegerType) {
  EXPECT_EQ(Arg(int8_t(-3)).kind, Arg::Kind::I32);
  EXPECT_EQ(Arg(short(7)).kind, Arg::Kind::I32);
  EXPECT_EQ(Arg(32).signature(), "i32:16");
  EXPECT_EQ(Arg(int64_t(32)).signature(), "i64:16"); // 64-bit: i64 by type
  EXPECT_EQ(Arg(1LL).signature(), "i64:1");
  // Unsigned types by value, as Python ints.
  EXPECT_EQ(Arg(size_t(1024)).signature(), "i32:16");
  EXPECT_EQ(Arg(unsigned(5)).signature(), "i32");
  EXPECT_EQ(Arg(uint32_t(3000000001u)).signature(), "i64");
  EXPECT_EQ(Arg(uint64_t(INT64_MAX)).bits, uint64_t(INT64_MAX));
  EXPECT_THROW(Arg(uint64_t(INT64_MAX) + 1), tilec::Error);
  // bool is 0 or 1 in an i32.
  EXPECT_EQ(Arg(true).signature(), "i32:1");
  EXPECT_EQ(Arg(false).bits, 0u);
  EXPECT_EQ(Arg(1.5f).kind, Arg::Kind::F32);
  EXPECT_EQ(Arg(1.5).kind, Arg::Kind::F64);
  // In a list, as a launch takes them.
  std::vector<Arg> args{size_t(1), 2u, 3, int64_t(4), 5LL, true, 0.5f};
  EXPECT_EQ(args.size(), 7u);
}

TEST(ApiTypes, ConstexprFromEveryIntegerType) {
  EXPECT_EQ(std::get<int64_t>(Constexpr(size_t(128)).value), 128);
  EXPECT_EQ(std::get<int64_t>(Constexpr(7u).value), 7);
  EXPECT_EQ(std::get<int64_t>(Constexpr(-2LL).value), -2);
  EXPECT_EQ(std::get<int64_t>(Constexpr(short(3)).value), 3);
  EXPECT_TRUE(std::get<bool>(Constexpr(true).value));
  EXPECT_EQ(std::get<double>(Constexpr(0.25f).value), 0.25);
  EXPECT_EQ(std::get<std::string>(Constexpr("fp16").value), "fp16");
  EXPECT_THROW(Constexpr(uint64_t(INT64_MAX) + 1), tilec::Error);
  tilec::Constexprs map{{"BLOCK", size_t(1024)}, {"N", 3u}, {"DT", "bf16"}};
  EXPECT_EQ(std::get<int64_t>(map.at("BLOCK").value), 1024);
  tilec::Global g(size_t(16)); // a module-level constant
  (void)g;
}

TEST(ApiTypes, GridFromEveryIntegerType) {
  Grid a{tilec::cdiv(4096, 1024)}; // int64_t
  EXPECT_EQ(a.x, 4u);
  EXPECT_EQ(a.y, 1u);
  Grid b{size_t(7), 3u, 2};
  EXPECT_EQ(b.x, 7u);
  EXPECT_EQ(b.y, 3u);
  EXPECT_EQ(b.z, 2u);
  Grid c;
  EXPECT_EQ(c.x * c.y * c.z, 1u);
  EXPECT_THROW(Grid(-1), tilec::Error);
  EXPECT_THROW(Grid(1, int64_t(UINT32_MAX) + 1), tilec::Error);
  EXPECT_EQ(Grid(uint64_t(UINT32_MAX)).x, UINT32_MAX);
}
