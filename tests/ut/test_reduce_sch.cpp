// The engine's ReduceSch order (kernel/npu_reduce.h, NpuOrder::kReduceSch): its split against the
// splits opbase's own tiling code gave when compiled and run (tests/data/reduce_sch_tiling_facts.inc),
// and the arithmetic of AscendC's ReduceSum patterns on small rows whose alternatives give other bits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernel/npu_reduce.h"

namespace {

namespace k = aclcpu::kernel;

uint32_t Bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}

// The rows opbase's reduce tiling gave when compiled and run (tests/data/reduce_sch_tiling_facts.inc,
// its header says how): op, reduction, input dtype, vector cores, N, then the tiling's numbers.
enum Op { kLp, kMse, kSl1 };
enum Reduction { kSum, kMean };
struct Fact {
  Op op;
  Reduction reduction;
  const char* dtype;
  int64_t cores, n;
  bool pattern_a;
  int64_t step, chunks, chunks_per_core, groups, basic_block, result_block, b_block_num, chunk_length, last_chunk;
  uint32_t mean_var_bits;
};
const Fact kFacts[] = {
#include "reduce_sch_tiling_facts.inc"
};

// The live temporaries of ops-nn's arch35 Dags as reduce_tiling.cpp reads them (PreProcessInput),
// from the same compiled run: LpLoss (= MseLoss) keeps one before the reduce in float32 and three
// with 16-bit inputs (the casts), and a mean of 16-bit inputs one after it (the scaled sum before
// its cast); SmoothL1LossV2 keeps five before.
k::ReduceSchDag DagOf(const Fact& fact, int bytes) {
  k::ReduceSchDag dag;
  dag.inputs = 2;
  dag.pre_temp = fact.op == kSl1 ? 5 : (bytes == 4 ? 1 : 3);
  dag.post_temp = bytes == 2 && fact.reduction == kMean ? 1 : 0;
  return dag;
}

TEST(ReduceSch, SplitIsOpbasesTiling) {
  int split_rows = 0;
  for (const Fact& fact : kFacts) {
    const int bytes = std::strcmp(fact.dtype, "f32") == 0 ? 4 : 2;
    k::NpuSplit split;
    std::string why;
    SCOPED_TRACE(::testing::Message() << "op " << fact.op << " reduction " << fact.reduction << " " << fact.dtype
                                      << " C " << fact.cores << " N " << fact.n);
    ASSERT_TRUE(k::ReduceSchSplit(fact.n, bytes, DagOf(fact, bytes), {fact.cores, 253952}, &split, &why)) << why;
    if (fact.chunks == 1) {  // one chunk of N values, on one core (N == 1: pattern A, the value alone)
      EXPECT_EQ(split.cores, 1);
      EXPECT_EQ(split.tile_length, fact.n);
      EXPECT_EQ(split.chunk_lanes, fact.pattern_a ? 1 : fact.chunk_length);
    } else {
      ++split_rows;
      EXPECT_EQ(split.cores, fact.groups);
      EXPECT_EQ(split.tile_length, fact.step);
      EXPECT_EQ(split.chunk_lanes, fact.chunk_length);
      EXPECT_EQ(split.core_length, fact.chunks_per_core * fact.step);
    }
    // The mean's scale, (float)(1.0 / N), as the tiling's meanVar.
    EXPECT_EQ(Bits(static_cast<float>(1.0 / static_cast<double>(fact.n))), fact.mean_var_bits);
  }
  EXPECT_EQ(sizeof kFacts / sizeof kFacts[0], 2250u);
  EXPECT_GT(split_rows, 1000);
}

TEST(ReduceSch, SplitRefusals) {
  k::NpuSplit split;
  std::string why;
  EXPECT_FALSE(k::ReduceSchSplit(0, 4, {}, {72, 253952}, &split, &why));
  EXPECT_FALSE(k::ReduceSchSplit(100, 8, {}, {72, 253952}, &split, &why));
  EXPECT_FALSE(k::ReduceSchSplit(100, 4, {}, {72, 16384}, &split, &why));
  EXPECT_NE(why.find("16384"), std::string::npos) << why;
}

// x[0..n) with each lane a distinct power of two scaled so that any other pairing rounds otherwise:
// large values next to ones a pairing loses, spread over the lanes.
std::vector<float> Telling(int64_t n, uint32_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  uint32_t s = seed;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    const int exponent = static_cast<int>(s >> 28) - 4;  // 2^-4 .. 2^11
    const float mantissa = 1.0f + static_cast<float>((s >> 8) & 0xFFFF) / 65536.0f;
    x = std::ldexp(mantissa, exponent) * ((s & 1) ? 1.0f : 1.0f / 3.0f);
  }
  return v;
}

float Pairs(std::vector<float> v) {  // adjacent pairs, level by level (a power of two of values)
  while (v.size() > 1) {
    std::vector<float> next(v.size() / 2);
    for (size_t i = 0; i < next.size(); ++i) next[i] = v[2 * i] + v[2 * i + 1];
    v = next;
  }
  return v[0];
}

TEST(ReduceSch, ReduceSumARByLanes) {
  // 8 lanes: one block's tree; 24: the blocks lane by lane first.
  std::vector<float> x = Telling(24, 1);
  std::vector<float> row = x;
  EXPECT_EQ(Bits(k::ReduceSumAR(row.data(), 8)), Bits(Pairs({x.begin(), x.begin() + 8})));
  std::vector<float> block(8);
  for (int j = 0; j < 8; ++j) block[j] = (x[j] + x[8 + j]) + x[16 + j];
  row = x;
  EXPECT_EQ(Bits(k::ReduceSumAR(row.data(), 24)), Bits(Pairs(block)));
  // 40 lanes: a 64-lane tree, +0 past them.
  x = Telling(40, 2);
  std::vector<float> padded = x;
  padded.resize(64, 0.0f);
  row = x;
  EXPECT_EQ(Bits(k::ReduceSumAR(row.data(), 40)), Bits(Pairs(padded)));
  // 1000 lanes: 488 folded onto the first 512, 8 vectors halved (V0+V4, ... then pairs), a tree.
  x = Telling(1000, 3);
  std::vector<float> b(x.begin(), x.begin() + 512);
  for (int j = 0; j < 488; ++j) b[j] = b[j] + x[512 + j];
  std::vector<float> w(64);
  for (int l = 0; l < 64; ++l) {
    auto v = [&](int q) { return b[64 * q + l]; };
    w[l] = ((v(0) + v(4)) + (v(2) + v(6))) + ((v(1) + v(5)) + (v(3) + v(7)));
  }
  row = x;
  EXPECT_EQ(Bits(k::ReduceSumAR(row.data(), 1000)), Bits(Pairs(w)));
  // 7296 lanes: 3200 folded onto 4096; 64 vectors: one round of groups of 16 (V_i + V_i+8, + 4,
  // + 2, + 1 within each), then the 4 left halved, then the tree.
  x = Telling(7296, 4);
  b.assign(x.begin(), x.begin() + 4096);
  for (int j = 0; j < 3200; ++j) b[j] = b[j] + x[4096 + j];
  std::vector<float> groups(4 * 64);
  for (int g = 0; g < 4; ++g) {
    for (int l = 0; l < 64; ++l) {
      float v[16];
      for (int q = 0; q < 16; ++q) v[q] = b[(16 * g + q) * 64 + l];
      for (int half = 8; half >= 1; half /= 2) {
        for (int q = 0; q < half; ++q) v[q] = v[q] + v[q + half];
      }
      groups[64 * g + l] = v[0];
    }
  }
  for (int l = 0; l < 64; ++l) w[l] = (groups[l] + groups[128 + l]) + (groups[64 + l] + groups[192 + l]);
  row = x;
  EXPECT_EQ(Bits(k::ReduceSumAR(row.data(), 7296)), Bits(Pairs(w)));
}

TEST(ReduceSch, ReduceSumRAFoldsPastThePowerOfTwo) {
  std::vector<float> p = Telling(69, 5);
  std::vector<float> q(p.begin(), p.begin() + 64);
  for (int j = 0; j < 5; ++j) q[j] = q[j] + p[64 + j];
  for (int half = 32; half >= 1; half /= 2) {
    for (int j = 0; j < half; ++j) q[j] = q[j] + q[j + half];
  }
  std::vector<float> values = p;
  EXPECT_EQ(Bits(k::ReduceSumRA(values.data(), 69)), Bits(q[0]));
  values = {1.0f, 2.0f};
  EXPECT_EQ(k::ReduceSumRA(values.data(), 2), 3.0f);
}

}  // namespace
