// aclnnMseLoss and aclnnMseLossOut through the public API against the golden, bit for bit:
// API x self dtype x target dtype x out dtype x reduction x layout x broadcast pattern x rank 0-8
// (value classes rotating), then sizes around the vector widths, the reduction's chunk and column
// block boundaries, large tensors, bit-identical results for 1, 2, 3 and 7 threads, exact special
// values, aliasing and empty inputs. Every case also checks that no byte of out's storage outside
// its view was written.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "nnopbase/nnopbase_internal.h"
#include "support/api_support.h"

namespace {

using support::DeviceTensor;
using support::Layout;
using support::ValueClass;
using Shape = std::vector<int64_t>;

const aclDataType kDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
const Layout kLayouts[] = {Layout::kContiguous, Layout::kTransposed, Layout::kStridedOffset};
const ValueClass kValueClasses[] = {ValueClass::kNormal, ValueClass::kHuge, ValueClass::kSubnormal, ValueClass::kZeros,
                                    ValueClass::kNan,    ValueClass::kInf,  ValueClass::kMixed};
constexpr unsigned char kPattern = DeviceTensor::kFillPattern;

std::string Describe(const Shape& s) {
  std::string text = "[";
  for (size_t i = 0; i < s.size(); ++i) text += (i ? "," : "") + std::to_string(s[i]);
  return text + "]";
}

const char* DtypeName(aclDataType dtype) {
  return dtype == ACL_FLOAT ? "FLOAT" : (dtype == ACL_FLOAT16 ? "FLOAT16" : "BF16");
}

struct Case {
  bool axis0 = false;  // aclnnMseLossOut; else aclnnMseLoss
  aclDataType self_dtype = ACL_FLOAT, target_dtype = ACL_FLOAT, out_dtype = ACL_FLOAT;
  int reduction = 1;
  Shape self, target;
  Layout layout = Layout::kContiguous;  // self's and target's
  Layout out_layout = Layout::kContiguous;
  ValueClass self_values = ValueClass::kNormal, target_values = ValueClass::kNormal;
  uint32_t seed = 1;

  std::string Name() const {
    return std::string(axis0 ? "MseLossOut" : "MseLoss") + " self " + DtypeName(self_dtype) + Describe(self) +
           " target " + DtypeName(target_dtype) + Describe(target) + " out " + DtypeName(out_dtype) + " reduction " +
           std::to_string(reduction) + " " + support::LayoutName(layout) + "/" + support::LayoutName(out_layout) + " " +
           support::ValueClassName(self_values) + "/" + support::ValueClassName(target_values) + " seed " +
           std::to_string(seed);
  }
};

// out's shape: the broadcast shape (none), without dim 0 (MseLossOut), or 0-d (MseLoss).
Shape OutShape(bool axis0, int reduction, const Shape& self, const Shape& target) {
  Shape broadcast;
  EXPECT_TRUE(golden::BroadcastShape({self, target}, &broadcast));
  if (reduction == 0) return broadcast;
  if (axis0) return broadcast.empty() ? broadcast : Shape(broadcast.begin() + 1, broadcast.end());
  return {};
}

// A case's tensors, the inputs filled from its seed.
struct Tensors {
  std::unique_ptr<DeviceTensor> self, target, out;

  explicit Tensors(const Case& c) {
    std::mt19937 rng(c.seed);
    self = std::make_unique<DeviceTensor>(c.self_dtype, c.self, c.layout);
    target = std::make_unique<DeviceTensor>(c.target_dtype, c.target, c.layout);
    self->Write(support::RandomBits(c.self_dtype, self->numel(), c.self_values, rng));
    target->Write(support::RandomBits(c.target_dtype, target->numel(), c.target_values, rng));
    out = std::make_unique<DeviceTensor>(c.out_dtype, OutShape(c.axis0, c.reduction, c.self, c.target), c.out_layout);
  }

  golden::Tensor Expected(const Case& c) const {
    return golden::MseLoss(self->ToGoldenTensor(), target->ToGoldenTensor(), c.reduction, c.axis0,
                           support::ToGolden(c.out_dtype));
  }
};

// Runs the case's API, then compares out with expected and checks the bytes around out's view.
void RunAndCompare(const Case& c, const Tensors& t, const golden::Tensor& expected) {
  ASSERT_EQ(support::RunMseLoss(t.self->get(), t.target->get(), c.reduction, t.out->get(), c.axis0), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(support::CompareBits(support::ToGolden(c.out_dtype), expected.bits, t.out->Read()), "");
  ASSERT_EQ(t.out->ChangedBytesOutsideView(kPattern), 0);
}

void RunCase(const Case& c) {
  SCOPED_TRACE(c.Name());
  const Tensors t(c);
  RunAndCompare(c, t, t.Expected(c));
}

// A base shape of the given rank, small enough that every case stays quick.
Shape BaseShape(int rank) {
  static const int64_t dims[] = {3, 2, 5, 2, 3, 2, 2, 3};
  return Shape(dims, dims + rank);
}

// The broadcast patterns.
enum Pattern {
  kSame,           // self and target of the broadcast shape
  kSelfBroadcast,  // self with dims of 1 (dim 0 among them from rank 2): broadcast over dim 0 too
  kTargetLower,    // target without dim 0: a lower rank, broadcast over the dim MseLossOut reduces
  kBoth,           // both with dims of 1, in different places
  kSelfScalar,     // self 0-d
  kTargetScalar,   // target 0-d
  kBothScalar,     // both 0-d: a 0-d broadcast shape
  kPatterns
};

// shape with every second dim (from the inner end, starting at `first`) set to 1.
Shape Ones(Shape shape, size_t first) {
  for (size_t k = first; k < shape.size(); k += 2) shape[shape.size() - 1 - k] = 1;
  return shape;
}

void ApplyPattern(Pattern pattern, const Shape& base, Case* c) {
  c->self = c->target = base;
  switch (pattern) {
    case kSelfBroadcast:
      c->self = Ones(base, 1);
      if (base.size() >= 2) c->self[0] = 1;
      break;
    case kTargetLower:
      c->target = Shape(base.begin() + (base.empty() ? 0 : 1), base.end());
      break;
    case kBoth:
      c->self = Ones(base, 0);
      c->target = Ones(base, 1);
      break;
    case kSelfScalar:
      c->self = {};
      break;
    case kTargetScalar:
      c->target = {};
      break;
    case kBothScalar:
      c->self = c->target = {};
      break;
    default:
      break;
  }
}

TEST(MseLossMatrix, ApiDtypesOutDtypeReductionLayoutBroadcastRank) {
  support::EnsureRuntime();
  int cases = 0;
  for (bool axis0 : {false, true}) {
    for (aclDataType self_dtype : kDtypes) {
      for (aclDataType target_dtype : kDtypes) {
        for (aclDataType out_dtype : kDtypes) {
          for (int reduction = 0; reduction < 3; ++reduction) {
            for (Layout layout : kLayouts) {
              for (int pattern = 0; pattern < kPatterns; ++pattern) {
                for (int rank = 0; rank <= 8; ++rank) {
                  Case c;
                  c.axis0 = axis0;
                  c.self_dtype = self_dtype;
                  c.target_dtype = target_dtype;
                  c.out_dtype = out_dtype;
                  c.reduction = reduction;
                  c.layout = layout;
                  c.out_layout = kLayouts[(cases / 3) % 3];
                  c.self_values = kValueClasses[cases % 7];
                  c.target_values = kValueClasses[(cases / 7) % 7];
                  c.seed = static_cast<uint32_t>(cases + 1);
                  ApplyPattern(static_cast<Pattern>(pattern), BaseShape(rank), &c);
                  RunCase(c);
                  ++cases;
                  if (HasFatalFailure()) return;
                }
              }
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(cases, 2 * 27 * 3 * 3 * kPatterns * 9);
  RecordProperty("cases", cases);
}

TEST(MseLossMatrix, SizesAroundVectorWidths) {
  support::EnsureRuntime();
  uint32_t seed = 1;
  for (bool axis0 : {false, true}) {
    for (aclDataType self_dtype : kDtypes) {
      for (aclDataType target_dtype : kDtypes) {
        for (int reduction = 0; reduction < 3; ++reduction) {
          for (int64_t n = 1; n <= 70; ++n) {
            Case c;
            c.axis0 = axis0;
            c.self_dtype = self_dtype;
            c.target_dtype = target_dtype;
            c.out_dtype = kDtypes[seed % 3];
            c.reduction = reduction;
            c.self_values = c.target_values = ValueClass::kMixed;
            c.seed = seed++;
            c.self = c.target = {n};  // MseLossOut: n rows of one column
            RunCase(c);
            c.target = {};  // a single target value, strided views
            c.layout = c.out_layout = Layout::kStridedOffset;
            RunCase(c);
            c.self = {3, n};  // MseLossOut: n columns, the width its vectors run across
            c.target = {n};
            c.layout = Layout::kTransposed;
            c.out_layout = Layout::kContiguous;
            c.self_values = c.target_values = ValueClass::kNormal;
            RunCase(c);
            c.self = c.target = {n, 3};
            RunCase(c);
            if (HasFatalFailure()) return;
          }
        }
      }
    }
  }
}

// kernel/reduce.h: aclnnMseLoss's elements are rows of 16, in chunks of 1024 rows (16384
// elements); aclnnMseLossOut's rows are dim 0, in chunks of 1024, its columns in blocks of 256.
TEST(MseLossMatrix, ReductionChunkBoundaries) {
  support::EnsureRuntime();
  uint32_t seed = 100;
  for (int64_t n : {15, 16, 17, 1023, 16383, 16384, 16385, 32767, 32768, 32769, 3 * 16384 + 7}) {
    for (int reduction : {1, 2}) {
      Case c;
      c.self_dtype = kDtypes[seed % 3];
      c.target_dtype = kDtypes[(seed / 3) % 3];
      c.out_dtype = kDtypes[(seed / 9) % 3];
      c.reduction = reduction;
      c.seed = seed++;
      c.self = c.target = {n};
      RunCase(c);
      c.target = {1};  // broadcast, and a strided self
      c.layout = Layout::kStridedOffset;
      RunCase(c);
      if (HasFatalFailure()) return;
    }
  }
  for (int64_t rows : {1023, 1024, 1025}) {  // whole rows of 16 around one chunk, as a 2-d shape
    Case c;
    c.self = c.target = {rows, 16};
    c.layout = Layout::kTransposed;
    c.seed = seed++;
    RunCase(c);
  }
  struct RowsColumns {
    std::vector<int64_t> rows, columns;
  };
  for (const RowsColumns& grid : {RowsColumns{{1, 2, 1023, 1024, 1025, 2047, 2048, 2049, 3073}, {1, 3, 17}},
                                  RowsColumns{{1, 2, 1024, 1025}, {255, 256, 257, 513}}}) {
    for (int64_t rows : grid.rows) {
      for (int64_t columns : grid.columns) {
        for (int reduction : {1, 2}) {
          Case c;
          c.axis0 = true;
          c.self_dtype = kDtypes[seed % 3];
          c.target_dtype = kDtypes[(seed / 3) % 3];
          c.out_dtype = kDtypes[(seed / 9) % 3];
          c.reduction = reduction;
          c.self_values = c.target_values = seed % 5 == 0 ? ValueClass::kMixed : ValueClass::kNormal;
          c.seed = seed++;
          c.self = {rows, columns};
          c.target = seed % 2 ? Shape{rows, columns} : Shape{columns};
          c.layout = kLayouts[seed % 3];
          c.out_layout = kLayouts[(seed / 3) % 3];
          RunCase(c);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

TEST(MseLossMatrix, LargeTensors) {
  support::EnsureRuntime();
  Case c;
  c.self = c.target = {(1 << 21) + 3};  // 8 MB per FLOAT input, 129 chunks
  for (int reduction : {1, 2}) {
    c.reduction = reduction;
    RunCase(c);
  }
  c.self_dtype = ACL_BF16;
  c.target_dtype = ACL_FLOAT16;
  c.out_dtype = ACL_BF16;
  c.reduction = 2;
  c.self = {2049, 1031};
  c.target = {1031};
  RunCase(c);
  c.axis0 = true;
  c.self_dtype = c.target_dtype = c.out_dtype = ACL_FLOAT;
  c.reduction = 1;
  c.self = c.target = {1100, 2000};  // 8.8 MB per input; 2 chunks x 8 column blocks
  c.layout = Layout::kTransposed;
  RunCase(c);
  c.self_dtype = ACL_FLOAT16;
  c.target_dtype = ACL_BF16;
  c.out_dtype = ACL_FLOAT16;
  c.reduction = 2;
  c.self = c.target = {3000, 700};
  c.layout = c.out_layout = Layout::kStridedOffset;
  RunCase(c);
  // Reduction none with an out larger than the last-level cache (36 MiB): streaming stores.
  c.axis0 = false;
  c.self_dtype = c.target_dtype = ACL_FLOAT16;
  c.out_dtype = ACL_FLOAT;
  c.reduction = 0;
  c.self = c.target = {9 << 20};
  c.layout = c.out_layout = Layout::kContiguous;
  RunCase(c);
}

// Restores the default kernel thread count when a test ends, however it ends.
struct ThreadCountGuard {
  ~ThreadCountGuard() { aclcpu::SetKernelThreadCount(0); }
};

TEST(MseLossThreads, BitIdenticalForOneTwoThreeAndSevenThreads) {
  support::EnsureRuntime();
  ThreadCountGuard guard;
  std::vector<Case> cases;
  Case c;
  c.self_values = ValueClass::kMixed;
  c.self = c.target = {200003};  // 13 chunks
  for (int reduction : {1, 2}) {
    c.reduction = reduction;
    cases.push_back(c);
  }
  c.self_values = ValueClass::kNormal;
  c.self_dtype = ACL_FLOAT16;
  c.target_dtype = ACL_BF16;
  c.out_dtype = ACL_FLOAT16;
  c.self = {13, 16411};
  c.target = {16411};
  cases.push_back(c);
  c.axis0 = true;
  c.self_dtype = c.target_dtype = c.out_dtype = ACL_BF16;
  c.self = c.target = {5000, 300};  // 5 chunks x 2 column blocks
  cases.push_back(c);
  c.reduction = 1;
  c.self_dtype = c.target_dtype = c.out_dtype = ACL_FLOAT;
  c.self = {4100, 37};
  c.target = {37};
  c.layout = Layout::kTransposed;
  cases.push_back(c);
  c.reduction = 0;
  c.self = c.target = {300, 1001};
  cases.push_back(c);
  for (const Case& k : cases) {
    SCOPED_TRACE(k.Name());
    const Tensors t(k);
    const golden::Tensor expected = t.Expected(k);
    std::vector<uint32_t> first;
    // Largest first: LLVM's OpenMP (the clang builds') loses a few thread descriptors when a team grows
    // past the CPUs after a smaller team ran (LeakSanitizer reports them); shrinking loses nothing.
    for (int threads : {7, 3, 2, 1}) {
      SCOPED_TRACE("threads " + std::to_string(threads));
      aclcpu::SetKernelThreadCount(threads);
      RunAndCompare(k, t, expected);
      const std::vector<uint32_t> bits = t.out->Read();
      if (first.empty()) first = bits;
      ASSERT_TRUE(bits == first);  // the very bits, NaN payloads included
      if (HasFatalFailure()) return;
    }
  }
}

// ---- exact values --------------------------------------------------------------------------

std::vector<uint32_t> Bits(aclDataType dtype, const std::vector<float>& values) {
  std::vector<uint32_t> bits;
  for (float v : values) bits.push_back(golden::Narrow(support::ToGolden(dtype), v));
  return bits;
}

// Runs the API on contiguous tensors holding these values; returns out's values.
std::vector<float> Compute(bool axis0, int reduction, aclDataType self_dtype, const Shape& self_shape,
                           const std::vector<float>& self_values, aclDataType target_dtype, const Shape& target_shape,
                           const std::vector<float>& target_values, aclDataType out_dtype,
                           aclFormat format = ACL_FORMAT_ND) {
  DeviceTensor self(self_dtype, self_shape, Layout::kContiguous),
      target(target_dtype, target_shape, Layout::kContiguous);
  self.SetFormat(format);
  target.SetFormat(format);
  DeviceTensor out(out_dtype, OutShape(axis0, reduction, self_shape, target_shape), Layout::kContiguous);
  self.Write(Bits(self_dtype, self_values));
  target.Write(Bits(target_dtype, target_values));
  std::vector<float> result;
  const aclnnStatus status = support::RunMseLoss(self.get(), target.get(), reduction, out.get(), axis0);
  EXPECT_EQ(status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
  if (status != ACLNN_SUCCESS) return result;
  for (uint32_t bits : out.Read()) result.push_back(golden::Widen(support::ToGolden(out_dtype), bits));
  return result;
}

TEST(MseLossExact, TheDocumentedExamples) {
  // self {0, 1, 2, 3}, target {1, 1, 1, 1}, shape {2, 2}: losses {1, 0, 1, 4}.
  const std::vector<float> self{0, 1, 2, 3}, target{1, 1, 1, 1};
  for (aclDataType dtype : kDtypes) {
    EXPECT_EQ(Compute(false, 1, dtype, {2, 2}, self, dtype, {2, 2}, target, dtype), std::vector<float>{1.5f});
    EXPECT_EQ(Compute(false, 2, dtype, {2, 2}, self, dtype, {2, 2}, target, dtype), std::vector<float>{6.0f});
    EXPECT_EQ(Compute(false, 0, dtype, {2, 2}, self, dtype, {2, 2}, target, dtype), (std::vector<float>{1, 0, 1, 4}));
    // Over dim 0: columns {1, 1} and {0, 4}.
    EXPECT_EQ(Compute(true, 1, dtype, {2, 2}, self, dtype, {2, 2}, target, dtype), (std::vector<float>{1, 2}));
    EXPECT_EQ(Compute(true, 2, dtype, {2, 2}, self, dtype, {2, 2}, target, dtype), (std::vector<float>{2, 4}));
    // MseLossOut of a 1-d tensor reduces its only dim: a 0-d out, as MseLoss.
    EXPECT_EQ(Compute(true, 1, dtype, {4}, self, dtype, {4}, target, dtype), std::vector<float>{1.5f});
    // A 0-d broadcast: one loss; the mean divides by 1.
    EXPECT_EQ(Compute(true, 1, dtype, {}, {5}, dtype, {}, {2}, dtype), std::vector<float>{9});
    EXPECT_EQ(Compute(false, 1, dtype, {}, {5}, dtype, {}, {2}, dtype), std::vector<float>{9});
  }
  // The mean divides by N of the broadcast shape (MseLoss) or by dim 0 of it (MseLossOut).
  EXPECT_EQ(Compute(false, 1, ACL_FLOAT, {4}, {1, 2, 3, 4}, ACL_FLOAT, {2, 1}, {0, 1}, ACL_FLOAT),
            std::vector<float>{(1 + 4 + 9 + 16 + 0 + 1 + 4 + 9) / 8.0f});
  EXPECT_EQ(Compute(true, 1, ACL_FLOAT, {4}, {1, 2, 3, 4}, ACL_FLOAT, {2, 1}, {0, 1}, ACL_FLOAT),
            (std::vector<float>{0.5f, 2.5f, 6.5f, 12.5f}));
}

TEST(MseLossExact, SpecialValues) {
  const float inf = INFINITY, nan = std::nanf("");
  // d = x - y, l = d * d in float32: inf - inf is NaN, NaN propagates, 2e30^2 overflows FLOAT,
  // (-0 - 0)^2 is +0.
  const std::vector<float> none = Compute(false, 0, ACL_FLOAT, {7}, {inf, inf, nan, 1.5f, 1e30f, -0.0f, -inf},
                                          ACL_FLOAT, {7}, {inf, 1, 2, 0.5f, -1e30f, 0.0f, 3}, ACL_FLOAT);
  ASSERT_EQ(none.size(), 7u);
  EXPECT_TRUE(std::isnan(none[0]));
  EXPECT_EQ(none[1], inf);
  EXPECT_TRUE(std::isnan(none[2]));
  EXPECT_EQ(none[3], 1.0f);
  EXPECT_EQ(none[4], inf);
  EXPECT_EQ(none[5], 0.0f);
  EXPECT_FALSE(std::signbit(none[5]));
  EXPECT_EQ(none[6], inf);
  for (bool axis0 : {false, true}) {
    for (int reduction : {1, 2}) {
      // One infinite loss makes the sum and the mean infinite; a NaN (or inf - inf) makes them NaN.
      EXPECT_EQ(Compute(axis0, reduction, ACL_FLOAT, {3}, {inf, 1, 2}, ACL_FLOAT, {3}, {0, 0, 0}, ACL_FLOAT),
                std::vector<float>{inf});
      const std::vector<float> with_nan =
          Compute(axis0, reduction, ACL_FLOAT, {3}, {inf, 1, nan}, ACL_FLOAT, {3}, {0, 0, 0}, ACL_FLOAT);
      ASSERT_EQ(with_nan.size(), 1u);
      EXPECT_TRUE(std::isnan(with_nan[0]));
      const std::vector<float> inf_minus_inf =
          Compute(axis0, reduction, ACL_FLOAT, {2}, {inf, 1}, ACL_FLOAT, {}, {inf}, ACL_FLOAT);
      ASSERT_EQ(inf_minus_inf.size(), 1u);
      EXPECT_TRUE(std::isnan(inf_minus_inf[0]));
      // Finite FLOAT losses whose sum exceeds FLOAT's range (2 * 2.89e38): accumulated in float64,
      // so the mean is the loss itself and only the sum, rounded once, is inf.
      const float big = 1.7e19f, loss = big * big;
      EXPECT_EQ(Compute(axis0, reduction, ACL_FLOAT, {2}, {big, -big}, ACL_FLOAT, {2}, {0, 0}, ACL_FLOAT),
                std::vector<float>{reduction == 2 ? inf : loss});
    }
  }
}

TEST(MseLossExact, Float16OverflowAndRoundingToTheComputeDtype) {
  const float inf = INFINITY;
  // 300^2 = 90000 is beyond FLOAT16's 65504.
  EXPECT_EQ(Compute(false, 0, ACL_FLOAT16, {2}, {300, 1}, ACL_FLOAT16, {2}, {0, 0}, ACL_FLOAT16),
            (std::vector<float>{inf, 1}));
  // aclnnMseLoss sums the float32 losses: the mean (90000 + 0) / 2 = 45000 is finite in FLOAT16
  // (rounded to its step of 32 there: 44992); the sum 90000 is not.
  EXPECT_EQ(Compute(false, 1, ACL_FLOAT16, {2}, {300, 0}, ACL_FLOAT16, {2}, {0, 0}, ACL_FLOAT16),
            std::vector<float>{44992});
  EXPECT_EQ(Compute(false, 2, ACL_FLOAT16, {2}, {300, 0}, ACL_FLOAT16, {2}, {0, 0}, ACL_FLOAT16),
            std::vector<float>{inf});
  // aclnnMseLossOut reduces its "none" loss tensor, each loss already FLOAT16: inf, so the mean is.
  EXPECT_EQ(Compute(true, 1, ACL_FLOAT16, {2}, {300, 0}, ACL_FLOAT16, {2}, {0, 0}, ACL_FLOAT16),
            std::vector<float>{inf});
  // With a FLOAT out the result is still rounded to the compute dtype first: 64^2 + 1 = 4097 is
  // 4096 in FLOAT16 (its step is 4 there); FLOAT16 with BF16 computes in FLOAT: 4097.
  EXPECT_EQ(Compute(false, 2, ACL_FLOAT16, {2}, {64, 1}, ACL_FLOAT16, {2}, {0, 0}, ACL_FLOAT),
            std::vector<float>{4096});
  EXPECT_EQ(Compute(false, 2, ACL_FLOAT16, {2}, {64, 1}, ACL_BF16, {2}, {0, 0}, ACL_FLOAT), std::vector<float>{4097});
  EXPECT_EQ(Compute(true, 2, ACL_FLOAT16, {2}, {64, 1}, ACL_BF16, {2}, {0, 0}, ACL_FLOAT), std::vector<float>{4097});
  // FLOAT results narrowed to a FLOAT16 out overflow there.
  EXPECT_EQ(Compute(false, 2, ACL_FLOAT, {1}, {300}, ACL_FLOAT, {1}, {0}, ACL_FLOAT16), std::vector<float>{inf});
  // BF16: (1 + 2^-7)^2 = 1 + 2^-6 + 2^-14 rounds to 1 + 2^-6.
  const float x = 1.0f + 1.0f / 128;
  EXPECT_EQ(Compute(false, 0, ACL_BF16, {1}, {x}, ACL_BF16, {1}, {0}, ACL_FLOAT), std::vector<float>{1.015625f});
  // Where the two APIs' sums part: d = 1 + 22 * 2^-10 in FLOAT16; d^2 = 1.04343033 in float32,
  // 1.04296875 in FLOAT16 (0.47 of a step below). Three of them: MseLossOut sums the FLOAT16
  // losses, 3.12890625 exactly; MseLoss the float32 ones, 3.13029099, which FLOAT16 (step 2^-9
  // there) rounds to 3.130859375.
  const float d = 1.0f + 22.0f / 1024;
  EXPECT_EQ(Compute(true, 2, ACL_FLOAT16, {3}, {d, d, d}, ACL_FLOAT16, {}, {0}, ACL_FLOAT),
            std::vector<float>{3.12890625f});
  EXPECT_EQ(Compute(false, 2, ACL_FLOAT16, {3}, {d, d, d}, ACL_FLOAT16, {}, {0}, ACL_FLOAT),
            std::vector<float>{3.130859375f});
}

// ---- our reduction's documented order, observable ------------------------------------------
// aclnnMseLoss reaches it with NCHW inputs (MseLoss V1, whose order on an NPU is not public),
// aclnnMseLossOut always. Sums in float64 rarely depend on their order once rounded to float32;
// these values make it decide the result. A column holds 2^30 and 2^6 (d = 2^15 and 8): 2^30 + 2^6 is exactly halfway
// between two FLOAT values, and ties to even give 2^30. Two tiny losses t (d = 1.2 * 2^-12, so
// t = 0.72 * 2^-23) each vanish when added to it alone (below half of float64's step 2^-22
// there), but together (1.44 * 2^-23) they lift it off the tie: 2^30 + 2^7. So the result is
// 2^30 + 2^7 exactly when the tiny ones are added to each other before the big ones.
constexpr float kTieHigh = 1073741824.0f + 128.0f, kTieLow = 1073741824.0f;
constexpr float kBig = 32768.0f, kSmall = 8.0f, kTiny = 1.2f / 4096;

// The sum (aclnnMseLoss, or element `index` of aclnnMseLossOut's) of the losses of these self
// values at these element indices, the other elements and target 0 (FLOAT). The golden, which
// follows the same order, must agree.
float SumOfElements(bool axis0, const Shape& shape, const std::vector<std::pair<int64_t, float>>& values,
                    size_t index = 0) {
  std::vector<float> self(static_cast<size_t>(golden::Count(shape)), 0.0f);
  for (const auto& v : values) self[static_cast<size_t>(v.first)] = v.second;
  const std::vector<float> result =
      Compute(axis0, 2, ACL_FLOAT, shape, self, ACL_FLOAT, {}, {0.0f}, ACL_FLOAT, ACL_FORMAT_NCHW);
  DeviceTensor s(ACL_FLOAT, shape, Layout::kContiguous), t(ACL_FLOAT, {}, Layout::kContiguous);
  s.Write(Bits(ACL_FLOAT, self));
  t.Write(Bits(ACL_FLOAT, {0.0f}));
  golden::LossRoute route;
  route.nd_formats = false;
  const golden::Tensor expected =
      golden::MseLoss(s.ToGoldenTensor(), t.ToGoldenTensor(), 2, axis0, golden::Dtype::kFloat32, route);
  EXPECT_EQ(result.size(), expected.bits.size());
  if (index >= result.size() || index >= expected.bits.size()) return NAN;
  EXPECT_EQ(result[index], golden::Widen(golden::Dtype::kFloat32, expected.bits[index]));
  return result[index];
}

TEST(MseLossOrder, TheValuesDecideTheResult) {
  // Alone, 2^30 + 2^6 ties to 2^30; one tiny loss does not move it; two added first do.
  EXPECT_EQ(SumOfElements(false, {32}, {{0, kBig}, {16, kSmall}}), kTieLow);
  EXPECT_EQ(SumOfElements(false, {32}, {{0, kBig}, {16, kSmall}, {1, kTiny}}), kTieLow);
  EXPECT_EQ(SumOfElements(true, {2, 3}, {{1, kBig}, {4, kSmall}}, 1), kTieLow);
}

TEST(MseLossOrder, EachColumnAddsItsRowsInOrderFromZero) {
  // aclnnMseLoss: elements 0, 16, 32, 48 are column 0's rows 0-3: t, t, 2^30, 2^6. In row order
  // the two t come first. (With 32 columns instead of 16 they would part, and the result tie.)
  EXPECT_EQ(SumOfElements(false, {64}, {{0, kTiny}, {16, kTiny}, {32, kBig}, {48, kSmall}}), kTieHigh);
  // The other way round they come last, one at a time.
  EXPECT_EQ(SumOfElements(false, {64}, {{0, kBig}, {16, kSmall}, {32, kTiny}, {48, kTiny}}), kTieLow);
  // aclnnMseLossOut: dim 0 is the rows, each out element one column.
  EXPECT_EQ(SumOfElements(true, {4, 3}, {{1, kTiny}, {4, kTiny}, {7, kBig}, {10, kSmall}}, 1), kTieHigh);
  EXPECT_EQ(SumOfElements(true, {4, 3}, {{1, kBig}, {4, kSmall}, {7, kTiny}, {10, kTiny}}, 1), kTieLow);
}

TEST(MseLossOrder, TheSixteenColumnsCombinePairwise) {
  // Column 0 holds 2^30 + 2^6. Pairwise over 16 columns: (0..8) + (8..16), each half likewise.
  // t in columns 8 and 9 meet first ((8 + 9) + (10 + 11) ...): lifted. In columns 1 and 2 they
  // meet column 0 one at a time ((0 + 1) + (2 + 3)): a tie.
  EXPECT_EQ(SumOfElements(false, {32}, {{0, kBig}, {16, kSmall}, {8, kTiny}, {9, kTiny}}), kTieHigh);
  EXPECT_EQ(SumOfElements(false, {32}, {{0, kBig}, {16, kSmall}, {1, kTiny}, {2, kTiny}}), kTieLow);
  EXPECT_EQ(SumOfElements(false, {32}, {{0, kBig}, {16, kSmall}, {2, kTiny}, {3, kTiny}}), kTieHigh);
}

TEST(MseLossOrder, ChunksCombinePairwise) {
  // Three chunks of 1024 rows: P = c0 + (c1 + c2). Column 0 of chunk 0 holds 2^30 + 2^6; chunks 1
  // and 2 one t each: added to each other first, then to chunk 0.
  const int64_t chunk = 16 * 1024;  // aclnnMseLoss: elements per chunk
  EXPECT_EQ(SumOfElements(false, {2 * chunk + 1}, {{0, kBig}, {16, kSmall}, {chunk, kTiny}, {2 * chunk, kTiny}}),
            kTieHigh);
  // t in chunks 0 and 1 and the big ones in chunk 2: (c0 + c1) would lift, c0 + (c1 + c2) does not.
  EXPECT_EQ(
      SumOfElements(false, {2 * chunk + 32}, {{0, kTiny}, {chunk, kTiny}, {2 * chunk, kBig}, {2 * chunk + 16, kSmall}}),
      kTieLow);
  // aclnnMseLossOut: rows 0-1 in chunk 0, rows 1024 and 2048 in chunks 1 and 2 (one column).
  EXPECT_EQ(SumOfElements(true, {2049}, {{0, kBig}, {1, kSmall}, {1024, kTiny}, {2048, kTiny}}), kTieHigh);
  EXPECT_EQ(SumOfElements(true, {2050, 2}, {{1, kTiny}, {2049, kTiny}, {4097, kBig}, {4099, kSmall}}, 1), kTieLow);
  // Four chunks: (c0 + c1) + (c2 + c3), so t in chunks 2 and 3 lift, in chunks 1 and 2 do not.
  EXPECT_EQ(SumOfElements(true, {3073}, {{0, kBig}, {1, kSmall}, {2048, kTiny}, {3072, kTiny}}), kTieHigh);
  EXPECT_EQ(SumOfElements(true, {3073}, {{0, kBig}, {1, kSmall}, {1024, kTiny}, {2048, kTiny}}), kTieLow);
}

// ---- aliasing ------------------------------------------------------------------------------

// out shares memory with an input: in place, or overlapping part of it.
class MseLossAliasing : public ::testing::Test {
 protected:
  void SetUp() override { support::EnsureRuntime(); }

  // Computes the golden from the inputs as they are now, runs, and compares out.
  void RunAndCheck(DeviceTensor& self, DeviceTensor& target, DeviceTensor& out, int reduction, bool axis0,
                   bool expect_workspace, const golden::LossRoute& route = golden::LossRoute()) {
    const golden::Tensor expected = golden::MseLoss(self.ToGoldenTensor(), target.ToGoldenTensor(), reduction, axis0,
                                                    support::ToGolden(out.dtype()), route);
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    ASSERT_EQ(axis0 ? aclnnMseLossOutGetWorkspaceSize(self.get(), target.get(), reduction, out.get(), &workspace_size,
                                                      &executor)
                    : aclnnMseLossGetWorkspaceSize(self.get(), target.get(), reduction, out.get(), &workspace_size,
                                                   &executor),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    EXPECT_EQ(workspace_size > 0, expect_workspace) << workspace_size;
    void* workspace = nullptr;
    if (workspace_size > 0) {
      ASSERT_EQ(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    }
    ASSERT_EQ(axis0 ? aclnnMseLossOut(workspace, workspace_size, executor, nullptr)
                    : aclnnMseLoss(workspace, workspace_size, executor, nullptr),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    if (workspace != nullptr) aclrtFree(workspace);
    EXPECT_EQ(support::CompareBits(support::ToGolden(out.dtype()), expected.bits, out.Read()), "");
  }

  void Fill(DeviceTensor& t, uint32_t seed) {
    std::mt19937 rng(seed);
    t.Write(support::RandomBits(t.dtype(), t.numel(), ValueClass::kNormal, rng));
  }

  // An allocation of `bytes`, freed when the test ends (after the tensors on it).
  void* Allocate(size_t bytes) {
    void* memory = nullptr;
    EXPECT_EQ(aclrtMalloc(&memory, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    memory_.emplace_back(memory, [](void* p) { aclrtFree(p); });
    return memory;
  }

 private:
  std::vector<std::unique_ptr<void, void (*)(void*)>> memory_;
};

TEST_F(MseLossAliasing, NoneInPlaceOnSelfOrTargetExactly) {
  for (bool axis0 : {false, true}) {
    for (aclDataType dtype : kDtypes) {
      for (int which = 0; which < 2; ++which) {
        const Shape shape{37, 29};
        DeviceTensor self(dtype, shape, Layout::kTransposed), target(dtype, shape, Layout::kTransposed);
        Fill(self, 1);
        Fill(target, 2);
        // out: the very same view (transposed strides, same storage), as PyTorch's in-place ops do.
        DeviceTensor out(dtype, shape, {1, 37}, 0, {37 * 29}, (which == 0 ? self : target).storage());
        RunAndCheck(self, target, out, 0, axis0, false);
      }
    }
  }
}

TEST_F(MseLossAliasing, NoneInPlaceWithAnotherOutDtypeOfTheSameSize) {
  for (bool axis0 : {false, true}) {
    DeviceTensor self(ACL_FLOAT16, {300}, Layout::kContiguous), target(ACL_BF16, {300}, Layout::kContiguous);
    Fill(self, 3);
    Fill(target, 4);
    DeviceTensor out(ACL_BF16, {300}, {1}, 0, {300}, self.storage());  // computed in FLOAT, stored as BF16
    RunAndCheck(self, target, out, 0, axis0, false);
  }
}

TEST_F(MseLossAliasing, NoneOutOverlapsPartOfAnInput) {
  for (bool axis0 : {false, true}) {
    for (aclDataType dtype : kDtypes) {
      for (int64_t shift : {int64_t{1}, int64_t{500}, int64_t{-300}}) {
        const int64_t n = 1000;
        void* memory = Allocate(static_cast<size_t>(3 * n) * support::ElementBytes(dtype));
        const int64_t base = n;  // the input at [n, 2n), out shifted
        DeviceTensor self(dtype, {n}, {1}, base, {3 * n}, memory);
        DeviceTensor out(dtype, {n}, {1}, base + shift, {3 * n}, memory);
        DeviceTensor target(dtype, {n}, Layout::kContiguous);
        Fill(self, 5);
        Fill(target, 6);
        RunAndCheck(self, target, out, 0, axis0, true);  // self is staged in the workspace
        // The same with target as the overlapped input.
        DeviceTensor target2(dtype, {n}, {1}, base, {3 * n}, memory);
        DeviceTensor self2(dtype, {n}, Layout::kContiguous);
        Fill(target2, 7);
        Fill(self2, 8);
        RunAndCheck(self2, target2, out, 0, axis0, true);
      }
    }
  }
}

TEST_F(MseLossAliasing, NoneOutCoversABroadcastTarget) {
  // target is row 0 of out's own memory, broadcast over every row: writing row 0 must not change
  // what rows 1.. read.
  const int64_t rows = 64, cols = 33;
  void* memory = Allocate(static_cast<size_t>(rows * cols) * 4);
  DeviceTensor target(ACL_FLOAT, {1, cols}, {cols, 1}, 0, {rows * cols}, memory);
  DeviceTensor out(ACL_FLOAT, {rows, cols}, {cols, 1}, 0, {rows * cols}, memory);
  DeviceTensor self(ACL_FLOAT, {rows, cols}, Layout::kContiguous);
  Fill(out, 9);
  Fill(self, 10);
  RunAndCheck(self, target, out, 0, false, true);
}

TEST_F(MseLossAliasing, MseLossOutReductionIntoAnInputsRow) {
  // out (the broadcast shape without dim 0) is row 0 of self's or target's memory: the reduction
  // reads every row before it writes. One work item writes as it ends; several (more chunks of
  // rows, or more blocks of 256 columns) keep their sums in the workspace until all are read.
  struct Geometry {
    int64_t rows, cols;
    bool workspace;
  };
  for (const Geometry& g : {Geometry{3, 5, false}, Geometry{3, 300, true}, Geometry{2000, 5, true}}) {
    for (int reduction : {1, 2}) {
      for (int which = 0; which < 2; ++which) {
        for (aclDataType dtype : kDtypes) {
          SCOPED_TRACE(std::to_string(g.rows) + "x" + std::to_string(g.cols) + " reduction " +
                       std::to_string(reduction) + (which == 0 ? " in self" : " in target") + " " + DtypeName(dtype));
          void* memory = Allocate(static_cast<size_t>(g.rows * g.cols) * support::ElementBytes(dtype));
          DeviceTensor input(dtype, {g.rows, g.cols}, {g.cols, 1}, 0, {g.rows * g.cols}, memory);
          DeviceTensor other(dtype, {g.rows, g.cols}, Layout::kContiguous);
          DeviceTensor out(dtype, {g.cols}, {1}, 0, {g.cols}, memory);
          Fill(input, 11);
          Fill(other, 12);
          if (which == 0) {
            RunAndCheck(input, other, out, reduction, true, g.workspace);
          } else {
            RunAndCheck(other, input, out, reduction, true, g.workspace);
          }
        }
      }
    }
  }
}

TEST_F(MseLossAliasing, MseLossOutIntoABroadcastTargetItself) {
  // target [C] broadcast over the rows, out [C] its very elements: every row reads what out becomes.
  for (int64_t cols : {int64_t{7}, int64_t{300}}) {
    DeviceTensor self(ACL_FLOAT, {50, cols}, Layout::kContiguous), target(ACL_FLOAT, {cols}, Layout::kContiguous);
    Fill(self, 13);
    Fill(target, 14);
    DeviceTensor out(ACL_FLOAT, {cols}, {1}, 0, {cols}, target.storage());
    RunAndCheck(self, target, out, 2, true, cols > 256);
  }
}

TEST_F(MseLossAliasing, MseLossZeroDOutInsideAnInput) {
  // A 0-d out at an element of self (or of a 0-d target that every loss reads), on both kernels:
  // ND inputs reach MSELossV2 (no workspace), NCHW ones MseLoss V1, whose reduction here is ours
  // (one chunk; two, a workspace).
  for (aclFormat format : {ACL_FORMAT_ND, ACL_FORMAT_NCHW}) {
    golden::LossRoute route;
    route.nd_formats = format == ACL_FORMAT_ND;
    for (int64_t n : {int64_t{1000}, int64_t{20000}}) {
      const bool workspace = format != ACL_FORMAT_ND && n > 16384;
      for (int reduction : {1, 2}) {
        void* memory = Allocate(static_cast<size_t>(n) * 4);
        DeviceTensor self(ACL_FLOAT, {n}, {1}, 0, {n}, memory);
        DeviceTensor target(ACL_FLOAT, {n}, Layout::kContiguous);
        DeviceTensor out(ACL_FLOAT, {}, {}, n / 2, {n}, memory);
        self.SetFormat(format);
        target.SetFormat(format);
        Fill(self, 15);
        Fill(target, 16);
        RunAndCheck(self, target, out, reduction, false, workspace, route);
        DeviceTensor scalar_target(ACL_FLOAT16, {}, Layout::kContiguous);
        DeviceTensor half_self(ACL_FLOAT16, {n}, Layout::kContiguous);
        scalar_target.SetFormat(format);
        half_self.SetFormat(format);
        Fill(scalar_target, 17);
        Fill(half_self, 18);
        DeviceTensor scalar_out(ACL_FLOAT16, {}, {}, 0, {1}, scalar_target.storage());
        RunAndCheck(half_self, scalar_target, scalar_out, reduction, false, workspace, route);
      }
    }
  }
}

// ---- a repeatable executor at new addresses ------------------------------------------------

TEST(MseLossRebinding, ARepeatableExecutorRunsAtTheAddressesItIsGiven) {
  support::EnsureRuntime();
  for (bool axis0 : {false, true}) {
    for (int reduction = 0; reduction < 3; ++reduction) {
      SCOPED_TRACE(std::string(axis0 ? "MseLossOut" : "MseLoss") + " reduction " + std::to_string(reduction));
      const Shape shape{2000, 3}, target_shape{3};  // MseLossOut: two chunks of rows, a workspace
      const Shape out_shape = OutShape(axis0, reduction, shape, target_shape);
      DeviceTensor self(ACL_FLOAT16, shape, Layout::kContiguous), target(ACL_BF16, target_shape, Layout::kContiguous);
      DeviceTensor out(ACL_FLOAT, out_shape, Layout::kContiguous);
      std::mt19937 rng(static_cast<uint32_t>(reduction + 1));
      self.Write(support::RandomBits(ACL_FLOAT16, self.numel(), ValueClass::kNormal, rng));
      target.Write(support::RandomBits(ACL_BF16, target.numel(), ValueClass::kNormal, rng));
      uint64_t workspace_size = 0;
      aclOpExecutor* executor = nullptr;
      ASSERT_EQ(axis0 ? aclnnMseLossOutGetWorkspaceSize(self.get(), target.get(), reduction, out.get(), &workspace_size,
                                                        &executor)
                      : aclnnMseLossGetWorkspaceSize(self.get(), target.get(), reduction, out.get(), &workspace_size,
                                                     &executor),
                ACLNN_SUCCESS)
          << aclGetRecentErrMsg();
      ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
      void* workspace = nullptr;
      if (workspace_size > 0) {
        ASSERT_EQ(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
      }
      auto launch = [&] {
        return axis0 ? aclnnMseLossOut(workspace, workspace_size, executor, nullptr)
                     : aclnnMseLoss(workspace, workspace_size, executor, nullptr);
      };
      ASSERT_EQ(launch(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
      ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
      const golden::Tensor first =
          golden::MseLoss(self.ToGoldenTensor(), target.ToGoldenTensor(), reduction, axis0, golden::Dtype::kFloat32);
      EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, first.bits, out.Read()), "");
      // Another self and another out, given to the executor; the first out keeps its result.
      DeviceTensor self2(ACL_FLOAT16, shape, Layout::kContiguous), out2(ACL_FLOAT, out_shape, Layout::kContiguous);
      self2.Write(support::RandomBits(ACL_FLOAT16, self2.numel(), ValueClass::kMixed, rng));
      ASSERT_EQ(aclSetInputTensorAddr(executor, 0, self2.get(), self2.storage()), ACLNN_SUCCESS)
          << aclGetRecentErrMsg();
      ASSERT_EQ(aclSetOutputTensorAddr(executor, 0, out2.get(), out2.storage()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
      ASSERT_EQ(launch(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
      ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
      const golden::Tensor second =
          golden::MseLoss(self2.ToGoldenTensor(), target.ToGoldenTensor(), reduction, axis0, golden::Dtype::kFloat32);
      EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, second.bits, out2.Read()), "");
      EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, first.bits, out.Read()), "");
      EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
      if (workspace != nullptr) aclrtFree(workspace);
    }
  }
}

// ---- inputs stored across the reduction's order ------------------------------------------

// A reduction reads its values in row-major order; a transposed input is first copied contiguous
// (as ops-nn's aclnn layer makes every input contiguous), and that copy is the workspace: the
// input's bytes, rounded to 64. Contiguous inputs need none. The copy runs on two threads here.
TEST(MseLossWorkspace, ATransposedInputOfAReductionIsCopiedFirst) {
  support::EnsureRuntime();
  ThreadCountGuard guard;
  aclcpu::SetKernelThreadCount(2);
  const Shape shape{301, 150};  // 45150 elements: over the 24K of a parallel copy
  for (aclDataType dtype : kDtypes) {
    for (Layout self_layout : {Layout::kContiguous, Layout::kTransposed}) {
      for (int reduction : {1, 2}) {
        SCOPED_TRACE(std::string(DtypeName(dtype)) + " self " + support::LayoutName(self_layout) + " reduction " +
                     std::to_string(reduction));
        DeviceTensor self(dtype, shape, self_layout), target(dtype, shape, Layout::kContiguous);
        DeviceTensor out(dtype, {}, Layout::kContiguous);
        std::mt19937 rng(7);
        self.Write(support::RandomBits(dtype, self.numel(), ValueClass::kNormal, rng));
        target.Write(support::RandomBits(dtype, target.numel(), ValueClass::kNormal, rng));
        const golden::Tensor expected = golden::MseLoss(self.ToGoldenTensor(), target.ToGoldenTensor(), reduction,
                                                        false, support::ToGolden(dtype), golden::LossRoute());
        uint64_t workspace_size = 0;
        aclOpExecutor* executor = nullptr;
        ASSERT_EQ(
            aclnnMseLossGetWorkspaceSize(self.get(), target.get(), reduction, out.get(), &workspace_size, &executor),
            ACLNN_SUCCESS)
            << aclGetRecentErrMsg();
        const uint64_t bytes = static_cast<uint64_t>(self.numel()) * (dtype == ACL_FLOAT ? 4 : 2);
        EXPECT_EQ(workspace_size, self_layout == Layout::kTransposed ? (bytes + 63) / 64 * 64 : 0);
        void* workspace = nullptr;
        if (workspace_size > 0) {
          ASSERT_EQ(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
        }
        ASSERT_EQ(aclnnMseLoss(workspace, workspace_size, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
        ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
        if (workspace != nullptr) aclrtFree(workspace);
        EXPECT_EQ(support::CompareBits(support::ToGolden(dtype), expected.bits, out.Read()), "");
      }
    }
  }
}

// Views whose elements have no bytes of their own are read as they are, never copied: an empty
// one (its other dims may be INT64_MAX / 3) and one repeating its elements along a dim (stride 0).
TEST(MseLossWorkspace, ViewsWithoutBytesOfTheirOwnAreNotCopied) {
  support::EnsureRuntime();
  void* storage = nullptr;
  ASSERT_EQ(aclrtMalloc(&storage, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  std::unique_ptr<void, aclError (*)(void*)> owner(storage, aclrtFree);
  constexpr int64_t kHuge = INT64_MAX / 3;
  struct View {
    Shape dims, strides, target;
  };
  for (const View& v : {View{{0, kHuge, kHuge}, {1, 1, 2}, {1}}, View{{3, 4, 5}, {1, 0, 3}, {5}}}) {
    SCOPED_TRACE("self " + Describe(v.dims) + " strides " + Describe(v.strides));
    DeviceTensor self(ACL_FLOAT, v.dims, v.strides, 0, {15}, storage);
    DeviceTensor target(ACL_FLOAT, v.target, Layout::kContiguous), out(ACL_FLOAT, {}, Layout::kContiguous);
    const bool empty = v.dims[0] == 0;
    if (!empty) {
      std::mt19937 rng(3);
      self.Write(support::RandomBits(ACL_FLOAT, self.numel(), ValueClass::kNormal, rng));
      target.Write(support::RandomBits(ACL_FLOAT, target.numel(), ValueClass::kNormal, rng));
    }
    uint64_t workspace_size = 7;
    aclOpExecutor* executor = nullptr;
    ASSERT_EQ(aclnnMseLossGetWorkspaceSize(self.get(), target.get(), 1, out.get(), &workspace_size, &executor),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    EXPECT_EQ(workspace_size, 0u);
    ASSERT_EQ(aclnnMseLoss(nullptr, 0, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    if (empty) {
      EXPECT_TRUE(std::isnan(golden::Widen(golden::Dtype::kFloat32, out.Read()[0])));  // the mean of nothing
    } else {
      const golden::Tensor expected = golden::MseLoss(self.ToGoldenTensor(), target.ToGoldenTensor(), 1, false,
                                                      golden::Dtype::kFloat32, golden::LossRoute());
      EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, expected.bits, out.Read()), "");
    }
  }
}

// ---- empty inputs --------------------------------------------------------------------------

TEST(MseLossEmpty, WhatEachApiWritesForEachReduction) {
  support::EnsureRuntime();
  struct Shapes {
    Shape self, target;
  };
  for (const Shapes& shapes : {Shapes{{0, 3}, {0, 3}}, Shapes{{0, 3}, {1, 3}}, Shapes{{2, 0}, {}}, Shapes{{0}, {1}},
                               Shapes{{4, 1, 5}, {4, 0, 1}}}) {
    for (bool axis0 : {false, true}) {
      for (int reduction = 0; reduction < 3; ++reduction) {
        for (aclDataType out_dtype : kDtypes) {
          SCOPED_TRACE(std::string(axis0 ? "MseLossOut" : "MseLoss") + " self " + Describe(shapes.self) + " target " +
                       Describe(shapes.target) + " reduction " + std::to_string(reduction) + " out " +
                       DtypeName(out_dtype));
          DeviceTensor self(ACL_FLOAT16, shapes.self, Layout::kContiguous),
              target(ACL_BF16, shapes.target, Layout::kStridedOffset);
          DeviceTensor out(out_dtype, OutShape(axis0, reduction, shapes.self, shapes.target), Layout::kStridedOffset);
          uint64_t workspace_size = 7;
          aclOpExecutor* executor = nullptr;
          ASSERT_EQ(axis0 ? aclnnMseLossOutGetWorkspaceSize(self.get(), target.get(), reduction, out.get(),
                                                            &workspace_size, &executor)
                          : aclnnMseLossGetWorkspaceSize(self.get(), target.get(), reduction, out.get(),
                                                         &workspace_size, &executor),
                    ACLNN_SUCCESS)
              << aclGetRecentErrMsg();
          EXPECT_EQ(workspace_size, 0u);
          ASSERT_NE(executor, nullptr);
          ASSERT_EQ(
              axis0 ? aclnnMseLossOut(nullptr, 0, executor, nullptr) : aclnnMseLoss(nullptr, 0, executor, nullptr),
              ACLNN_SUCCESS)
              << aclGetRecentErrMsg();
          ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
          EXPECT_EQ(out.ChangedBytesOutsideView(kPattern), 0);
          const std::vector<uint32_t> bits = out.Read();
          if (!axis0 && reduction != 0) {  // the mean of nothing is NaN, the sum 0
            ASSERT_EQ(bits.size(), 1u);
            const float value = golden::Widen(support::ToGolden(out_dtype), bits[0]);
            if (reduction == 1) {
              EXPECT_TRUE(std::isnan(value)) << value;
            } else {
              EXPECT_EQ(bits[0], 0u) << value;  // +0
            }
          } else {  // nothing written: out still holds the fill pattern (MseLossOut's out may be non-empty)
            for (uint32_t b : bits) {
              EXPECT_EQ(b, out_dtype == ACL_FLOAT ? 0x5a5a5a5au : 0x5a5au);
            }
            EXPECT_EQ(bits.size(), static_cast<size_t>(golden::Count(out.shape())));
          }
        }
      }
    }
  }
}

}  // namespace
