// golden/reduce_sch_golden: the restated ReduceSch tiling against every row the real host
// tiling produced; its sum against a second, more literal formulation of the order on inputs whose bits
// tell the plausible other orders apart (each of which is shown to give other bits); the mean's factor.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden/reduce_sch_golden.h"

namespace {

using golden::AscendReduceSumRaConcat;
using golden::AscendReduceSumRow;
using golden::kAscend950UbBytes;
using golden::ReduceSchCorePartial;
using golden::ReduceSchDag;
using golden::ReduceSchDagOf;
using golden::ReduceSchLoss;
using golden::ReduceSchMean;
using golden::ReduceSchMeanScale;
using golden::ReduceSchReduction;
using golden::ReduceSchSum;
using golden::ReduceSchTiling;
using golden::ReduceSchTilingForReduceAll;

constexpr ReduceSchLoss kLp = ReduceSchLoss::kLpLoss;
constexpr ReduceSchLoss kMse = ReduceSchLoss::kMseLoss;
constexpr ReduceSchLoss kSl1 = ReduceSchLoss::kSmoothL1LossV2;
constexpr ReduceSchReduction kSum = ReduceSchReduction::kSum;
constexpr ReduceSchReduction kMean = ReduceSchReduction::kMean;

uint32_t Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

int DtypeBytes(const std::string& dtype) { return dtype == "f32" ? 4 : 2; }

// ---- (a) the tiling ----

struct TilingFact {
  ReduceSchLoss op;
  ReduceSchReduction reduction;
  const char* dtype;
  int64_t cores;
  int64_t n;
  bool pattern_a;
  int64_t step;
  int64_t chunks;
  int64_t chunks_per_core;
  int64_t groups;
  int64_t basic_block;
  int64_t result_block;
  int64_t b_block_num;
  int64_t chunk_length;
  int64_t last_chunk_terms;
  uint32_t mean_var_bits;
};

const TilingFact kTilingFacts[] = {
#include "reduce_sch_tiling_facts.inc"
};

const TilingFact& FindFact(ReduceSchLoss op, ReduceSchReduction reduction, const char* dtype, int64_t cores,
                           int64_t n) {
  for (const TilingFact& fact : kTilingFacts) {
    if (fact.op == op && fact.reduction == reduction && std::string(fact.dtype) == dtype && fact.cores == cores &&
        fact.n == n) {
      return fact;
    }
  }
  ADD_FAILURE() << "no fact for n " << n << " cores " << cores;
  return kTilingFacts[0];
}

TEST(ReduceSchReferenceTiling, EveryRowTheRealHostTilingProduced) {
  // 3 ops x {sum, mean} x {f32, f16, bf16} x 5 core counts x 25 sizes.
  ASSERT_EQ(sizeof kTilingFacts / sizeof kTilingFacts[0], 2250u);
  for (const TilingFact& fact : kTilingFacts) {
    const int bytes = DtypeBytes(fact.dtype);
    const ReduceSchDag dag = ReduceSchDagOf(fact.op, fact.reduction, bytes);
    const ReduceSchTiling tiling = ReduceSchTilingForReduceAll(fact.n, dag, bytes, fact.cores, kAscend950UbBytes);
    SCOPED_TRACE(::testing::Message() << "op " << static_cast<int>(fact.op) << " reduction "
                                      << static_cast<int>(fact.reduction) << " " << fact.dtype << " C " << fact.cores
                                      << " N " << fact.n);
    EXPECT_EQ(tiling.n, fact.n);
    EXPECT_EQ(tiling.pattern_a, fact.pattern_a);
    EXPECT_EQ(tiling.basic_block, fact.basic_block);
    EXPECT_EQ(tiling.result_block, fact.result_block);
    EXPECT_EQ(tiling.b_block_num, fact.b_block_num);
    EXPECT_EQ(tiling.step, fact.step);
    EXPECT_EQ(tiling.chunks, fact.chunks);
    EXPECT_EQ(tiling.chunks_per_core, fact.chunks_per_core);
    EXPECT_EQ(tiling.cores, fact.groups);
    EXPECT_EQ(tiling.chunk_length, fact.chunk_length);
    EXPECT_EQ(tiling.last_chunk_terms, fact.last_chunk_terms);
    EXPECT_EQ(Bits(ReduceSchMeanScale(fact.n)), fact.mean_var_bits);  // (c) for every size of the grid
  }
}

// What PreProcessInput reads from each DAG instantiation the ops make, as counted by compiling opbase's
// util/dag.h templates over ops-nn e5c3fa9's arch35 DAGs.
TEST(ReduceSchReferenceTiling, DagBufferCounts) {
  struct Row {
    ReduceSchLoss op;
    ReduceSchReduction reduction;
    int bytes;
    ReduceSchDag dag;  // preIn, preOut, preTemp, postIn, postOut, postTemp, max, min, ReduceOpPos
  };
  const Row rows[] = {
      {kLp, kSum, 4, {2, 1, 1, 0, 1, 0, 4, 4, 4}},   {kLp, kMean, 4, {2, 1, 1, 0, 1, 0, 4, 4, 4}},
      {kLp, kSum, 2, {2, 1, 3, 0, 1, 0, 4, 2, 6}},   {kLp, kMean, 2, {2, 1, 3, 0, 1, 1, 4, 2, 6}},
      {kMse, kSum, 4, {2, 1, 1, 0, 1, 0, 4, 4, 4}},  {kMse, kMean, 4, {2, 1, 1, 0, 1, 0, 4, 4, 4}},
      {kMse, kSum, 2, {2, 1, 3, 0, 1, 0, 4, 2, 6}},  {kMse, kMean, 2, {2, 1, 3, 0, 1, 1, 4, 2, 6}},
      {kSl1, kSum, 4, {2, 1, 5, 0, 1, 0, 4, 1, 10}}, {kSl1, kMean, 4, {2, 1, 5, 0, 1, 0, 4, 1, 10}},
      {kSl1, kSum, 2, {2, 1, 5, 0, 1, 0, 4, 1, 12}}, {kSl1, kMean, 2, {2, 1, 5, 0, 1, 1, 4, 1, 12}},
  };
  for (const Row& row : rows) {
    const ReduceSchDag dag = ReduceSchDagOf(row.op, row.reduction, row.bytes);
    SCOPED_TRACE(::testing::Message() << "op " << static_cast<int>(row.op) << " bytes " << row.bytes);
    EXPECT_EQ(dag.pre_input, row.dag.pre_input);
    EXPECT_EQ(dag.pre_output, row.dag.pre_output);
    EXPECT_EQ(dag.pre_temp, row.dag.pre_temp);
    EXPECT_EQ(dag.post_input, row.dag.post_input);
    EXPECT_EQ(dag.post_output, row.dag.post_output);
    EXPECT_EQ(dag.post_temp, row.dag.post_temp);
    EXPECT_EQ(dag.max_dtype_bytes, row.dag.max_dtype_bytes);
    EXPECT_EQ(dag.min_dtype_bytes, row.dag.min_dtype_bytes);
    EXPECT_EQ(dag.reduce_op_pos, row.dag.reduce_op_pos);
  }
}

TEST(ReduceSchReferenceTiling, RefusesWhatTheHostTilingCannotTile) {
  const ReduceSchDag dag = ReduceSchDagOf(kLp, kSum, 4);
  EXPECT_THROW(ReduceSchTilingForReduceAll(0, dag, 4, 72, kAscend950UbBytes), std::invalid_argument);
  EXPECT_THROW(ReduceSchTilingForReduceAll(8, dag, 8, 72, kAscend950UbBytes), std::invalid_argument);
  EXPECT_THROW(ReduceSchTilingForReduceAll(8, dag, 4, 0, kAscend950UbBytes), std::invalid_argument);
  EXPECT_THROW(ReduceSchTilingForReduceAll(8, dag, 4, 72, 16 * 1024), std::invalid_argument);
  EXPECT_THROW(ReduceSchDagOf(kLp, kSum, 1), std::invalid_argument);
}

// ---- (b) the sum: a second formulation, by recursion and lane-wise halving ----

// The adjacent pairwise tree over x[lo, lo + count) (count a power of two), by halves.
float PairTree(const std::vector<float>& x, size_t lo, size_t count) {
  if (count == 1) return x[lo];
  return PairTree(x, lo, count / 2) + PairTree(x, lo + count / 2, count / 2);
}
float PairTree(const std::vector<float>& x) { return PairTree(x, 0, x.size()); }

using Vector64 = std::array<float, 64>;

// Vectors added lane-wise, the second half onto the first, until one is left (a power of two of them).
Vector64 HalveVectors(std::vector<Vector64> v) {
  while (v.size() > 1) {
    const size_t half = v.size() / 2;
    for (size_t i = 0; i < half; ++i) {
      for (size_t lane = 0; lane < 64; ++lane) v[i][lane] = v[i][lane] + v[i + half][lane];
    }
    v.resize(half);
  }
  return v[0];
}

// The ways to be wrong the examples below tell apart from the real order.
struct Variant {
  bool row_adjacent_tree = false;  // a chunk summed as one adjacent tree (padded to a power of two)
  bool main_r_below = false;       // ReduceSum's main block strictly below L (L a power of two)
  bool block_fold_to_64 = false;   // rows of 32..64 folded onto one data block like rows of 16, 24
  bool bisection_at_most = false;  // per-core bisection point the largest power of two <= r
  bool core_sequential = false;    // a core's chunk results added in sequence, not by the cache
  int stage2 = 0;                  // 0: ReduceSum RA concat; 1: in sequence; 2: adjacent tree
};

// One chunk of length L, as the test states ReduceSum's order: L = 8, the adjacent tree; L = 16, 24, the
// blocks of 8 added onto block 0 in turn, then its tree; L = 32..64, the tree of 64 lanes (+0 past L);
// longer, the main block M (the largest power of two <= L) with the rest added onto its head, its
// 64-lane vectors halved in groups of 16 while 16 or more are left, then halved to one, then its tree.
float LiteralRow(std::vector<float> x, const Variant& variant) {
  const size_t length = x.size();
  if (variant.row_adjacent_tree) {
    size_t padded = 1;
    while (padded < length) padded *= 2;
    x.resize(padded, 0.0f);
    return PairTree(x);
  }
  if (length == 8) return PairTree(x);
  if (length < 32 || (variant.block_fold_to_64 && length <= 64)) {
    std::vector<float> block(x.begin(), x.begin() + 8);
    for (size_t b = 1; b < length / 8; ++b) {
      for (size_t j = 0; j < 8; ++j) block[j] = x[8 * b + j] + block[j];
    }
    return PairTree(block);
  }
  if (length <= 64) {
    x.resize(64, 0.0f);
    return PairTree(x);
  }
  size_t main_r = 1;
  while (main_r * 2 <= length) main_r *= 2;
  if (variant.main_r_below && main_r == length) main_r /= 2;
  for (size_t j = 0; j < length - main_r; ++j) x[j] = x[j] + x[main_r + j];
  std::vector<Vector64> vectors(main_r / 64);
  for (size_t q = 0; q < vectors.size(); ++q) std::copy(&x[64 * q], &x[64 * q] + 64, vectors[q].begin());
  while (vectors.size() >= 16) {
    std::vector<Vector64> folded;
    for (size_t g = 0; g < vectors.size() / 16; ++g) {
      folded.push_back(HalveVectors(std::vector<Vector64>(vectors.begin() + 16 * g, vectors.begin() + 16 * g + 16)));
    }
    vectors = folded;
  }
  const Vector64 last = HalveVectors(vectors);
  return PairTree(std::vector<float>(last.begin(), last.end()));
}

struct Chunking {
  int64_t step, chunks, per_core, cores, length;
};

// Chunk c zero-padded to the chunk length (a single chunk holds all n terms).
std::vector<float> Chunk(const std::vector<float>& a, const Chunking& chunking, int64_t c) {
  const size_t start = chunking.chunks == 1 ? 0 : static_cast<size_t>(c * chunking.step);
  const size_t end = chunking.chunks == 1 ? a.size() : std::min(a.size(), start + chunking.step);
  std::vector<float> chunk(a.begin() + start, a.begin() + end);
  chunk.resize(static_cast<size_t>(chunking.length), 0.0f);
  return chunk;
}

// Stage 1 on every core: r chunks, P the largest power of two below r (1 for r = 1), chunk i + P added
// onto chunk i lane by lane, the P row sums added as an adjacent tree.
std::vector<float> LiteralPartials(const std::vector<float>& a, const Chunking& chunking, const Variant& variant) {
  std::vector<float> partials;
  for (int64_t b = 0; b < chunking.cores; ++b) {
    const int64_t first = b * chunking.per_core;
    const int64_t r = std::min(chunking.per_core, chunking.chunks - first);
    int64_t p = 1;
    while (variant.bisection_at_most ? p * 2 <= r : p * 2 < r) p *= 2;
    std::vector<float> results;
    for (int64_t i = 0; i < p; ++i) {
      std::vector<float> buffer = Chunk(a, chunking, first + i);
      if (i + p < r) {
        const std::vector<float> other = Chunk(a, chunking, first + i + p);
        for (size_t lane = 0; lane < buffer.size(); ++lane) buffer[lane] = buffer[lane] + other[lane];
      }
      results.push_back(LiteralRow(buffer, variant));
    }
    if (variant.core_sequential) {
      float sum = results[0];
      for (size_t i = 1; i < results.size(); ++i) sum = sum + results[i];
      partials.push_back(sum);
    } else {
      partials.push_back(PairTree(results));
    }
  }
  return partials;
}

// Stage 2: P2 the largest power of two <= G; row P2 + j added onto row j; then halving to one.
float LiteralStage2(std::vector<float> q, const Variant& variant) {
  if (variant.stage2 == 1) {
    float sum = q[0];
    for (size_t i = 1; i < q.size(); ++i) sum = sum + q[i];
    return sum;
  }
  if (variant.stage2 == 2) {
    size_t padded = 1;
    while (padded < q.size()) padded *= 2;
    q.resize(padded, 0.0f);
    return PairTree(q);
  }
  size_t p2 = 1;
  while (p2 * 2 <= q.size()) p2 *= 2;
  for (size_t j = 0; p2 + j < q.size(); ++j) q[j] = q[j] + q[p2 + j];
  for (size_t half = p2 / 2; half >= 1; half /= 2) {
    for (size_t j = 0; j < half; ++j) q[j] = q[j] + q[j + half];
  }
  return q[0];
}

float LiteralSum(const std::vector<float>& a, const Chunking& chunking, const Variant& variant) {
  return LiteralStage2(LiteralPartials(a, chunking, variant), variant);
}

float SequentialSum(const std::vector<float>& a) {
  float sum = 0.0f;
  for (float v : a) sum = sum + v;
  return sum;
}

float DoubleSum(const std::vector<float>& a) {
  double sum = 0.0;
  for (float v : a) sum += v;
  return static_cast<float>(sum);
}

// Terms whose sum shows the order: small terms of both signs over 25 binades with full mantissas, and
// one pair +H, -H (H around 2^18..2^26) per sixteen terms at distinct random places. The pairs cancel
// exactly, but every partial sum holding an unmatched H rounds what it adds to H's ulp (2^-5..2^3), and
// which terms those are, and in which groups, differs from order to order. (The order itself depends on
// neither the terms' values nor their signs.)
std::vector<float> Terms(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint32_t> mantissa(0, (1u << 23) - 1);
  std::uniform_int_distribution<int> small_binade(-12, 12);
  std::uniform_int_distribution<int> large_binade(18, 26);
  std::bernoulli_distribution negative(0.5);
  std::vector<float> a(static_cast<size_t>(n));
  for (float& v : a) {
    // One draw after the other in a fixed order (as arguments of one call their order is
    // unspecified: GCC draws them the other way round on aarch64): the binade, then the mantissa.
    const int binade = small_binade(rng);
    v = std::ldexp(1.0f + static_cast<float>(mantissa(rng)) * 0x1p-23f, binade);
    if (negative(rng)) v = -v;
  }
  std::vector<size_t> places(a.size());
  for (size_t i = 0; i < places.size(); ++i) places[i] = i;
  std::shuffle(places.begin(), places.end(), rng);
  const size_t pairs = std::max<size_t>(1, a.size() / 16);
  for (size_t pair = 0; pair < pairs && 2 * pair + 1 < a.size(); ++pair) {
    const int binade = large_binade(rng);
    const float large = std::ldexp(1.0f + static_cast<float>(mantissa(rng)) * 0x1p-23f, binade);
    a[places[2 * pair]] = large;
    a[places[2 * pair + 1]] = -large;
  }
  return a;
}

// Each example's seed is one for which every alternative it lists gives other bits than the real order;
// for the larger examples about every second seed is.
struct Alternative {
  const char* name;
  float value;
};

// The reference's sum equals the literal formulation's bit for bit, and every alternative differs.
void ExpectOrder(const std::vector<float>& a, const ReduceSchTiling& tiling, const Chunking& chunking,
                 const std::vector<Alternative>& alternatives) {
  const float sum = ReduceSchSum(a.data(), static_cast<int64_t>(a.size()), tiling);
  EXPECT_EQ(Bits(sum), Bits(LiteralSum(a, chunking, Variant{}))) << sum;
  for (const Alternative& alternative : alternatives) {
    EXPECT_NE(Bits(alternative.value), Bits(sum)) << alternative.name << " gives the same bits " << sum;
  }
}

ReduceSchTiling LpSumTiling(int64_t n, int bytes, int64_t cores) {
  return ReduceSchTilingForReduceAll(n, ReduceSchDagOf(kLp, kSum, bytes), bytes, cores, kAscend950UbBytes);
}

Chunking ChunkingOf(const TilingFact& fact) {
  return {fact.step, fact.chunks, fact.chunks_per_core, fact.groups, fact.chunk_length};
}

// Orders that ignore the chunks: left to right in float, in double rounded once.
std::vector<Alternative> WholeInputAlternatives(const std::vector<float>& a) {
  return {{"in sequence", SequentialSum(a)}, {"in double", DoubleSum(a)}};
}

// x_j + x_{j + half} until one is left (x.size() a power of two).
float HalvingTree(std::vector<float> x) {
  for (size_t half = x.size() / 2; half >= 1; half /= 2) {
    for (size_t j = 0; j < half; ++j) x[j] = x[j] + x[j + half];
  }
  return x[0];
}

// One adjacent tree over all terms, zero-padded to a power of two.
float WholeAdjacentTree(const std::vector<float>& a) {
  size_t padded = 1;
  while (padded < a.size()) padded *= 2;
  std::vector<float> x = a;
  x.resize(padded, 0.0f);
  return PairTree(x);
}

TEST(ReduceSchReferenceSum, SevenFloatsAreOneDataBlockTree) {
  const std::vector<float> a = Terms(7, 7);
  const ReduceSchTiling tiling = LpSumTiling(7, 4, 72);
  ASSERT_EQ(tiling.chunk_length, 8);
  // One block of 8 (the eighth lane +0), adjacent pairs.
  const float written = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + 0.0f));
  EXPECT_EQ(Bits(ReduceSchSum(a.data(), 7, tiling)), Bits(written));
  const std::vector<float> reversed(a.rbegin(), a.rend());
  std::vector<Alternative> alternatives = WholeInputAlternatives(a);
  alternatives.push_back({"in reverse", SequentialSum(reversed)});
  std::vector<float> padded = a;
  padded.resize(8, 0.0f);
  alternatives.push_back({"halving tree", HalvingTree(padded)});
  ExpectOrder(a, tiling, {1, 1, 1, 1, 8}, alternatives);
}

TEST(ReduceSchReferenceSum, SevenHalvesFoldTheirPaddingBlockFirst) {
  // A 2-byte input's row is 16 floats: block 1 (all +0) added onto block 0, then the block tree. The
  // +0 turns a -0 term into +0: eight -0 terms of a float row keep -0, seven of a 2-byte row do not.
  const ReduceSchTiling tiling = LpSumTiling(7, 2, 72);
  ASSERT_EQ(tiling.chunk_length, 16);
  const std::vector<float> negative_zeros(7, -0.0f);
  EXPECT_EQ(Bits(ReduceSchSum(negative_zeros.data(), 7, tiling)), Bits(0.0f));
  const std::vector<float> eight_negative_zeros(8, -0.0f);
  EXPECT_EQ(Bits(ReduceSchSum(eight_negative_zeros.data(), 8, LpSumTiling(8, 4, 72))), Bits(-0.0f));

  const std::vector<float> a = Terms(13, 7932);  // 13 terms: block 1 holds five of them
  const ReduceSchTiling tiling13 = LpSumTiling(13, 2, 64);
  ASSERT_EQ(tiling13.chunk_length, 16);
  std::vector<float> y(8);
  for (size_t j = 0; j < 8; ++j) y[j] = (j + 8 < 13 ? a[j + 8] : 0.0f) + a[j];
  const float written = ((y[0] + y[1]) + (y[2] + y[3])) + ((y[4] + y[5]) + (y[6] + y[7]));
  EXPECT_EQ(Bits(ReduceSchSum(a.data(), 13, tiling13)), Bits(written));
  std::vector<float> padded = a;
  padded.resize(16, 0.0f);
  Variant adjacent;
  adjacent.row_adjacent_tree = true;
  std::vector<Alternative> alternatives = WholeInputAlternatives(a);
  alternatives.push_back({"adjacent tree over the 16 lanes", LiteralRow(padded, adjacent)});
  alternatives.push_back({"halving tree over the 16 lanes", HalvingTree(padded)});
  ExpectOrder(a, tiling13, {1, 1, 1, 1, 16}, alternatives);
}

TEST(ReduceSchReferenceSum, TwentyFloatsFoldThreeBlocksInTurn) {
  const std::vector<float> a = Terms(20, 20);
  const ReduceSchTiling tiling = LpSumTiling(20, 4, 72);
  ASSERT_EQ(tiling.chunk_length, 24);
  std::vector<float> y(8);
  for (size_t j = 0; j < 8; ++j) y[j] = (j + 16 < 20 ? a[j + 16] : 0.0f) + (a[j + 8] + a[j]);
  EXPECT_EQ(Bits(ReduceSchSum(a.data(), 20, tiling)), Bits(PairTree(y)));
  std::vector<float> padded = a;
  padded.resize(24, 0.0f);
  Variant adjacent;
  adjacent.row_adjacent_tree = true;
  std::vector<Alternative> alternatives = WholeInputAlternatives(a);
  alternatives.push_back({"adjacent tree over the 24 lanes", LiteralRow(padded, adjacent)});
  ExpectOrder(a, tiling, {1, 1, 1, 1, 24}, alternatives);
}

TEST(ReduceSchReferenceSum, FortyFloatsAreOneMaskedVectorTree) {
  const std::vector<float> a = Terms(40, 40);
  const ReduceSchTiling tiling = LpSumTiling(40, 4, 72);
  ASSERT_EQ(tiling.chunk_length, 40);
  Variant block_fold;
  block_fold.block_fold_to_64 = true;
  std::vector<Alternative> alternatives = WholeInputAlternatives(a);
  alternatives.push_back({"folded onto one data block", LiteralRow(a, block_fold)});
  std::vector<float> padded = a;
  padded.resize(64, 0.0f);
  alternatives.push_back({"halving tree over the 64 lanes", HalvingTree(padded)});
  ExpectOrder(a, tiling, {1, 1, 1, 1, 40}, alternatives);
}

TEST(ReduceSchReferenceSum, SixtyFourAndSixtyFive) {
  const TilingFact& fact64 = FindFact(kLp, kSum, "f32", 72, 64);
  const std::vector<float> a = Terms(64, 64);
  const ReduceSchTiling tiling = LpSumTiling(64, 4, 72);
  EXPECT_EQ(Bits(ReduceSchSum(a.data(), 64, tiling)), Bits(PairTree(a)));
  std::vector<Alternative> alternatives = {{"in sequence", SequentialSum(a)}, {"in double", DoubleSum(a)}};
  Variant block_fold;
  block_fold.block_fold_to_64 = true;
  alternatives.push_back({"folded onto one data block", LiteralRow(a, block_fold)});
  alternatives.push_back({"halving tree", HalvingTree(a)});
  ExpectOrder(a, tiling, ChunkingOf(fact64), alternatives);

  // 65 floats: a row of 72, its main block 64: lane 0 takes a[64], lanes 1..7 a +0, then the tree.
  const TilingFact& fact65 = FindFact(kLp, kSum, "f32", 72, 65);
  ASSERT_EQ(fact65.chunk_length, 72);
  const std::vector<float> b = Terms(65, 65);
  std::vector<float> x(b.begin(), b.begin() + 64);
  x[0] = b[0] + b[64];
  for (size_t j = 1; j < 8; ++j) x[j] = x[j] + 0.0f;
  const ReduceSchTiling tiling65 = LpSumTiling(65, 4, 72);
  EXPECT_EQ(Bits(ReduceSchSum(b.data(), 65, tiling65)), Bits(PairTree(x)));
  std::vector<float> padded = b;
  padded.resize(72, 0.0f);
  Variant adjacent;
  adjacent.row_adjacent_tree = true;
  std::vector<Alternative> alternatives65 = WholeInputAlternatives(b);
  alternatives65.push_back({"adjacent tree over the 72 lanes", LiteralRow(padded, adjacent)});
  alternatives65.push_back(
      {"the 65th term added last", PairTree(std::vector<float>(b.begin(), b.begin() + 64)) + b[64]});
  ExpectOrder(b, tiling65, ChunkingOf(fact65), alternatives65);
}

TEST(ReduceSchReferenceSum, ThousandFloatsFoldEightVectorsAsAHalvingTree) {
  const TilingFact& fact = FindFact(kLp, kSum, "f32", 72, 1000);
  ASSERT_EQ(fact.chunk_length, 1000);
  const std::vector<float> a = Terms(1000, 1000);
  // Main block 512: b_j = a_j + a_{512+j} for j < 488; eight vectors V_q = b[64q, 64q + 64);
  // W = ((V0 + V4) + (V2 + V6)) + ((V1 + V5) + (V3 + V7)) lane by lane; the sum is W's tree.
  std::vector<float> b(a.begin(), a.begin() + 512);
  for (size_t j = 0; j < 488; ++j) b[j] = a[j] + a[512 + j];
  std::vector<float> w(64);
  for (size_t lane = 0; lane < 64; ++lane) {
    auto v = [&b, lane](size_t q) { return b[64 * q + lane]; };
    w[lane] = ((v(0) + v(4)) + (v(2) + v(6))) + ((v(1) + v(5)) + (v(3) + v(7)));
  }
  const ReduceSchTiling tiling = LpSumTiling(1000, 4, 72);
  EXPECT_EQ(Bits(ReduceSchSum(a.data(), 1000, tiling)), Bits(PairTree(w)));
  Variant adjacent;
  adjacent.row_adjacent_tree = true;
  std::vector<Alternative> alternatives = WholeInputAlternatives(a);
  alternatives.push_back({"adjacent tree over the row", LiteralSum(a, ChunkingOf(fact), adjacent)});
  ExpectOrder(a, tiling, ChunkingOf(fact), alternatives);
  // A 2-byte input's row is 1008 floats: the same order over eight more +0 lanes.
  EXPECT_EQ(LpSumTiling(1000, 2, 72).chunk_length, 1008);
}

TEST(ReduceSchReferenceSum, PowerOfTwoRowIsItsOwnMainBlock) {
  // 4096 floats: one row whose main block is all of it (no tail): one 16-fold round, then two.
  const TilingFact& fact = FindFact(kLp, kSum, "f32", 64, 4096);
  const std::vector<float> a = Terms(4096, 4096);
  const ReduceSchTiling tiling = LpSumTiling(4096, 4, 64);
  Variant below;
  below.main_r_below = true;
  Variant adjacent;
  adjacent.row_adjacent_tree = true;
  std::vector<Alternative> alternatives = WholeInputAlternatives(a);
  alternatives.push_back({"main block half the row", LiteralSum(a, ChunkingOf(fact), below)});
  alternatives.push_back({"adjacent tree over the row", LiteralSum(a, ChunkingOf(fact), adjacent)});
  ExpectOrder(a, tiling, ChunkingOf(fact), alternatives);
}

// Split cases: chunks of `step` on G cores (G not a power of two), stage 2 over the partials.
void ExpectSplitOrder(int64_t n, int64_t cores, uint32_t seed) {
  const TilingFact& fact = FindFact(kLp, kSum, "f32", cores, n);
  const ReduceSchTiling tiling = LpSumTiling(n, 4, cores);
  ASSERT_GT(tiling.cores, 1);
  const std::vector<float> a = Terms(n, seed);
  const Chunking chunking = ChunkingOf(fact);

  std::vector<Alternative> alternatives = WholeInputAlternatives(a);
  alternatives.push_back({"one adjacent tree", WholeAdjacentTree(a)});
  Variant variant;
  variant.row_adjacent_tree = true;
  alternatives.push_back({"adjacent tree per chunk", LiteralSum(a, chunking, variant)});
  variant = Variant{};
  variant.stage2 = 1;
  alternatives.push_back({"partials in sequence", LiteralSum(a, chunking, variant)});
  variant.stage2 = 2;
  alternatives.push_back({"partials by an adjacent tree", LiteralSum(a, chunking, variant)});
  const int64_t f = fact.chunks_per_core;
  if (f >= 2 && (f & (f - 1)) == 0) {  // r a power of two: "below r" and "at most r" part ways
    variant = Variant{};
    variant.bisection_at_most = true;
    alternatives.push_back({"bisection at the largest power of two <= r", LiteralSum(a, chunking, variant)});
  }
  if (f >= 5) {  // four or more chunk results through the cache
    variant = Variant{};
    variant.core_sequential = true;
    alternatives.push_back({"a core's chunk results in sequence", LiteralSum(a, chunking, variant)});
  }
  // Chunks of bBlockNum, one per core: the tiling without its search for a step that keeps 95% of the
  // cores busy.
  const int64_t full_step = fact.b_block_num;
  const int64_t full_chunks = (n + full_step - 1) / full_step;
  if (full_step != fact.step) {
    alternatives.push_back(
        {"chunks of bBlockNum", LiteralSum(a, {full_step, full_chunks, 1, full_chunks, full_step}, Variant{})});
  }
  ExpectOrder(a, tiling, chunking, alternatives);

  // Each core's partial as the literal formulation has it, and stage 2 over them.
  const std::vector<float> partials = LiteralPartials(a, chunking, Variant{});
  for (int64_t b = 0; b < tiling.cores; ++b) {
    EXPECT_EQ(Bits(ReduceSchCorePartial(a.data(), n, tiling, b)), Bits(partials[static_cast<size_t>(b)])) << b;
  }
  EXPECT_EQ(Bits(AscendReduceSumRaConcat(partials.data(), tiling.cores)), Bits(LiteralStage2(partials, Variant{})));
}

TEST(ReduceSchReferenceSum, HundredThousandOn72Cores) {
  // 69 chunks of 1464 (the last 448 terms and 1016 zeros), one per core; per chunk main block 1024
  // and one 16-fold round; stage 2 over 69 rows: main 64, then halving.
  const TilingFact& fact = FindFact(kLp, kSum, "f32", 72, 100000);
  EXPECT_EQ(fact.step, 1464);
  EXPECT_EQ(fact.groups, 69);
  ExpectSplitOrder(100000, 72, 100072);
}

TEST(ReduceSchReferenceSum, HundredThousandOn64Cores) {
  const TilingFact& fact = FindFact(kLp, kSum, "f32", 64, 100000);
  EXPECT_EQ(fact.step, 1664);
  EXPECT_EQ(fact.groups, 61);
  ExpectSplitOrder(100000, 64, 100064);
}

TEST(ReduceSchReferenceSum, MillionOn72CoresTwoChunksPerCore) {
  // 138 chunks of 7296, two per core on 69 cores: the pair added lane-wise before one ReduceSum.
  const TilingFact& fact = FindFact(kLp, kSum, "f32", 72, 1000000);
  EXPECT_EQ(fact.chunks_per_core, 2);
  EXPECT_EQ(fact.groups, 69);
  ExpectSplitOrder(1000000, 72, 1007991);
}

TEST(ReduceSchReferenceSum, FourChunksPerCore) {
  // 32 chunks, 4 per core on 8 cores: bisection 2, two merged pairs, the cache over two results.
  ExpectSplitOrder(262144, 8, 262008);
}

TEST(ReduceSchReferenceSum, FifteenChunksPerCore) {
  // 120 chunks, 15 per core on 8 cores: bisection 8, seven merged pairs, the cache over eight results.
  ExpectSplitOrder(1000000, 8, 115846);
}

TEST(ReduceSchReferenceSum, FiveChunksPerCoreAndOneOnTheLast) {
  // 356 chunks, 5 per core on 72 cores (bisection 4, one merged pair), the last core 1 chunk.
  ExpectSplitOrder(3000002, 72, 300072);
}

TEST(ReduceSchReferenceSum, OneTermIsCopied) {
  const ReduceSchTiling tiling = LpSumTiling(1, 4, 72);
  ASSERT_TRUE(tiling.pattern_a);
  const float negative_zero = -0.0f;
  EXPECT_EQ(Bits(ReduceSchSum(&negative_zero, 1, tiling)), Bits(-0.0f));
  const float value = 0x1.fffffep+127f;
  EXPECT_EQ(Bits(ReduceSchSum(&value, 1, tiling)), Bits(value));
  EXPECT_EQ(Bits(ReduceSchMean(&value, 1, tiling)), Bits(value));
}

TEST(ReduceSchReferenceSum, SpecialValuesPropagate) {
  const ReduceSchTiling tiling = LpSumTiling(100000, 4, 72);
  std::vector<float> a = Terms(100000, 5);
  a[99999] = INFINITY;  // in the last chunk's tail
  EXPECT_EQ(ReduceSchSum(a.data(), 100000, tiling), INFINITY);
  a[0] = NAN;
  EXPECT_TRUE(std::isnan(ReduceSchSum(a.data(), 100000, tiling)));
  // Finite terms whose sum overflows.
  std::vector<float> big(100000, 0x1.0p+120f);
  EXPECT_EQ(ReduceSchSum(big.data(), 100000, tiling), INFINITY);
}

TEST(ReduceSchReferenceSum, RowAndConcatBuildingBlocks) {
  // Rows the tiling never makes still follow the kernel's rules: 1 term, and 2 rows in stage 2.
  const float one = 3.5f;
  EXPECT_EQ(AscendReduceSumRow(&one, 1), 3.5f);
  EXPECT_THROW(AscendReduceSumRow(&one, 3), std::invalid_argument);
  const float two[2] = {1.0f, 0x1p-24f};
  EXPECT_EQ(Bits(AscendReduceSumRaConcat(two, 2)), Bits(1.0f));
  // Three rows: (p0 + p2) + p1. 2^-24 + 2^-24 = 2^-23 survives next to 1, a lone 2^-24 does not
  // (1 + 2^-24 is a tie, rounded to the even 1).
  const float tiny_one_tiny[3] = {0x1p-24f, 1.0f, 0x1p-24f};
  EXPECT_EQ(Bits(AscendReduceSumRaConcat(tiny_one_tiny, 3)), Bits(1.0f + 0x1p-23f));
  const float tiny_tiny_one[3] = {0x1p-24f, 0x1p-24f, 1.0f};
  EXPECT_EQ(Bits(AscendReduceSumRaConcat(tiny_tiny_one, 3)), Bits(1.0f));
}

// ---- (c) the mean ----

TEST(ReduceSchReferenceMean, ScaleIsOneOverNInDoubleRoundedOnce) {
  // 1 / (2^24 + 1) = 2^-24 - 2^-48 + 2^-72 - ...: rounded once to float it is 2^-24 - 2^-48 (the float
  // just below 2^-24), whereas the float division 1.0f / float(2^24 + 1) = 1.0f / 2^24 is 2^-24.
  const int64_t n = (int64_t{1} << 24) + 1;
  EXPECT_EQ(Bits(ReduceSchMeanScale(n)), Bits(0x1p-24f) - 1u);
  EXPECT_NE(Bits(ReduceSchMeanScale(n)), Bits(1.0f / static_cast<float>(n)));
}

TEST(ReduceSchReferenceMean, MeanIsTheSumTimesTheScaleRoundedOnce) {
  for (int64_t n : {7, 65, 1000, 100000}) {
    const std::vector<float> a = Terms(n, static_cast<uint32_t>(n) + 17);
    const ReduceSchTiling tiling = LpSumTiling(n, 4, 72);
    const float sum = ReduceSchSum(a.data(), n, tiling);
    const float scale = ReduceSchMeanScale(n);
    // The product of two floats is exact in double; one rounding to float.
    const float expected = static_cast<float>(static_cast<double>(sum) * static_cast<double>(scale));
    EXPECT_EQ(Bits(ReduceSchMean(a.data(), n, tiling)), Bits(expected)) << n;
  }
  // RN32(S * RN32(1/N)) is not RN32(S / N): with N = 3 and S = 1 + 2^-22, S / 3 rounds to 0x1.55555ap-2,
  // the product (RN32(1/3) is above 1/3) to the float above it.
  const float terms[3] = {1.0f + 0x1p-22f, 0.0f, 0.0f};
  const ReduceSchTiling tiling = LpSumTiling(3, 4, 72);
  const float mean = ReduceSchMean(terms, 3, tiling);
  EXPECT_EQ(Bits(mean), Bits(static_cast<float>(static_cast<double>(terms[0]) *
                                                static_cast<double>(static_cast<float>(1.0 / 3.0)))));
  EXPECT_NE(Bits(mean), Bits(terms[0] / 3.0f));
}

}  // namespace
