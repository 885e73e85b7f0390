// MseLoss below the aclnn API, layer by layer: the definition; infer shape and infer dtype (the
// graph's rules, and their errors); the tiling (reduction strings, the tiling key's encoding and
// the values that encode no kernel, the kernel-level and the fused checks with their messages,
// the reduction plan, its divisor and workspace); and the kernel run on host buffers against the
// golden, for every variant the key selects.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "kernel/npu_reduce.h"
#include "kernel/parallel.h"
#include "kernel/tensor_view.h"
#include "ops/common/op_def/kernel_table.h"
#include "ops/loss/mse_loss/golden/mse_loss_golden.h"
#include "ops/loss/mse_loss/mse_loss_kernel.h"
#include "ops/loss/mse_loss/mse_loss_op.h"
#include "support/kept_dims.h"

namespace {

namespace mse = aclcpu::mse_loss;
using aclcpu::kernel::DType;
using aclcpu::kernel::Shape;
using aclcpu::kernel::TensorView;

const DType kDtypes[] = {DType::kFloat32, DType::kFloat16, DType::kBFloat16};

TensorView View(DType dtype, const Shape& shape) { return support::KeptView(dtype, shape); }

aclcpu::loss::Reduction Typed(const std::string& reduction) {
  aclcpu::AttrValue value;
  std::string why;
  EXPECT_TRUE(aclcpu::ParseAttrText(mse::kAttributes[0], reduction, &value, &why)) << why;
  return static_cast<aclcpu::loss::Reduction>(value.integer);
}

// Infer shape and infer dtype as the declaration gives them (kernel_table.h); false with *why.
bool Infer(const Shape& predict, const Shape& label, aclcpu::loss::Reduction reduction, Shape* y, DType* y_dtype,
           std::string* why, DType dtype = DType::kFloat32) {
  const aclcpu::kernel::Dims shapes[] = {predict, label};
  const DType dtypes[] = {dtype, dtype};
  const aclcpu::AttrValue attributes[] = {{static_cast<int64_t>(reduction), 0.0}};
  return aclcpu::InferKernelOutput(mse::kOperator, shapes, dtypes, attributes, y, y_dtype, why);
}

// The tiling input of the fused kernel (the aclnn layer's view of the call): y is out, of the
// shape the API checked, in the promoted dtype, stored as store.
mse::TilingInput Fused(DType predict, const Shape& predict_shape, DType label, const Shape& label_shape,
                       const std::string& reduction, bool axis0, DType store) {
  mse::TilingInput input;
  input.predict = View(predict, predict_shape);
  input.label = View(label, label_shape);
  Shape broadcast;
  EXPECT_TRUE(aclcpu::kernel::BroadcastShapes({predict_shape, label_shape}, &broadcast, nullptr));
  Shape y = broadcast;
  if (reduction != "none") y = axis0 && !broadcast.empty() ? Shape(broadcast.begin() + 1, broadcast.end()) : Shape{};
  input.y = View(aclcpu::kernel::PromoteTypes(predict, label), y);
  input.store_dtype = store;
  input.reduction = Typed(reduction);
  input.fused = true;
  input.reduce_axis0 = axis0 && reduction != "none";
  input.platform = aclcpu::kernel::Platform{4, 1 << 20, 32 << 20};
  return input;
}

// The kernel as the graph drives it: one shape, one dtype, y from infer shape and infer dtype.
mse::TilingInput Graph(DType dtype, const Shape& shape, const std::string& reduction) {
  mse::TilingInput input;
  input.predict = View(dtype, shape);
  input.label = View(dtype, shape);
  Shape y;
  DType y_dtype = DType::kFloat32;
  std::string why;
  EXPECT_TRUE(Infer(shape, shape, Typed(reduction), &y, &y_dtype, &why, dtype)) << why;
  input.y = View(y_dtype, y);
  input.store_dtype = dtype;
  input.reduction = Typed(reduction);
  input.platform = aclcpu::kernel::Platform{4, 1 << 20, 32 << 20};
  // As the graph drives it: ops-nn's arch35 kernel (ReduceSch) on Ascend950PR_9599's 72 vector cores.
  input.order = mse::ReduceOrder::kMseLoss950;
  input.soc = mse::SocFacts{72, 253952};
  return input;
}

// ComputeTiling's error for this input ("" when it succeeds).
std::string TilingError(const mse::TilingInput& input) {
  mse::TilingData data;
  std::string error;
  return mse::ComputeTiling(input, &data, &error) ? "" : error;
}

mse::TilingData Tiling(const mse::TilingInput& input) {
  mse::TilingData data;
  std::string error;
  EXPECT_TRUE(mse::ComputeTiling(input, &data, &error)) << error;
  return data;
}

mse::KernelKey KeyOf(const mse::TilingData& data) { return data.key; }

// ---- definition, infer shape, infer dtype ----

TEST(MseLossDefinition, InputsOutputDtypesAndAttribute) {
  const aclcpu::OperatorInfo& def = mse::kOperator;
  EXPECT_STREQ(def.type, "MseLoss");
  EXPECT_EQ((std::vector<std::string>(def.operands, def.operands + 3)),
            (std::vector<std::string>{"predict", "label", "y"}));
  EXPECT_EQ(def.input_count, 2);
  EXPECT_EQ((std::vector<DType>(def.dtypes, def.dtypes + def.dtype_count)),
            (std::vector<DType>{DType::kBFloat16, DType::kFloat16, DType::kFloat32}));
  ASSERT_EQ(def.attribute_count, 1);
  EXPECT_STREQ(def.attributes[0].name, "reduction");
  EXPECT_EQ(def.attributes[0].default_value.integer, 1);  // mean
}

TEST(MseLossInferShape, NoneKeepsTheShapeMeanAndSumAreZeroD) {
  DType y_dtype;
  std::string why;
  for (const Shape& shape : {Shape{182, 4}, Shape{7}, Shape{}, Shape{2, 0, 3}, Shape(8, 2)}) {
    Shape y{99};
    ASSERT_TRUE(Infer(shape, shape, Typed("none"), &y, &y_dtype, &why)) << why;
    EXPECT_EQ(y, shape);
    for (aclcpu::loss::Reduction reduction : {aclcpu::loss::Reduction::kMean, aclcpu::loss::Reduction::kSum}) {
      y = {99};
      ASSERT_TRUE(Infer(shape, shape, reduction, &y, &y_dtype, &why)) << why;
      EXPECT_EQ(y, Shape{});
    }
  }
}

TEST(MseLossInferShape, PredictAndLabelMustHaveOneShape) {
  Shape y;
  DType y_dtype;
  std::string why;
  // At this level nothing broadcasts (the aclnn layer does it before): [3,1] and [1,4] differ.
  for (const Shape& label : {Shape{4}, Shape{1, 4}, Shape{3, 4, 1}, Shape{}}) {
    EXPECT_FALSE(Infer({3, 1}, label, Typed("mean"), &y, &y_dtype, &why));
    EXPECT_NE(why.find("predict [3,1] and label " + aclcpu::kernel::ShapeToString(label) + " differ in shape"),
              std::string::npos)
        << why;
  }
}

// The one rule for out's shape, as the aclnn layer checks it and the tiling plans it.
TEST(MseLossInferShape, ReducedShapeForEachReductionAndDim0) {
  using aclcpu::loss::Reduction;
  EXPECT_EQ(mse::ReducedShape({3, 4}, Reduction::kNone, false), (Shape{3, 4}));
  EXPECT_EQ(mse::ReducedShape({3, 4}, Reduction::kNone, true), (Shape{3, 4}));  // none keeps every dim
  for (Reduction r : {Reduction::kMean, Reduction::kSum}) {
    EXPECT_EQ(mse::ReducedShape({3, 4}, r, false), Shape{});
    EXPECT_EQ(mse::ReducedShape({3, 4}, r, true), Shape{4});
    EXPECT_EQ(mse::ReducedShape({5}, r, true), Shape{});
    EXPECT_EQ(mse::ReducedShape({}, r, true), Shape{});  // a 0-d one has no dim 0 to drop
  }
}

TEST(MseLossInferDtype, TakesPredicts) {
  for (DType dtype : kDtypes) {
    Shape y;
    DType y_dtype = DType::kFloat32;
    std::string why;
    ASSERT_TRUE(Infer({3}, {3}, Typed("none"), &y, &y_dtype, &why, dtype)) << why;
    EXPECT_EQ(y_dtype, dtype);
  }
}

// ---- tiling ----

TEST(MseLossTiling, EveryVariantHasItsOwnNumber) {
  std::set<uint64_t> keys;
  for (auto reduce : {mse::ReduceMode::kNone, mse::ReduceMode::kAll, mse::ReduceMode::kAxis0}) {
    for (auto order : {mse::ReduceOrder::kFloat64, mse::ReduceOrder::kMseLossV2A2, mse::ReduceOrder::kMseLossV2950}) {
      if (order != mse::ReduceOrder::kFloat64 && reduce != mse::ReduceMode::kAll) continue;  // only kAll has orders
      for (auto mode : {aclcpu::kernel::ScheduleMode::kContiguous, aclcpu::kernel::ScheduleMode::kBroadcast,
                        aclcpu::kernel::ScheduleMode::kBlocked}) {
        for (int flags = 0; flags < 8; ++flags) {
          for (DType predict : kDtypes) {
            for (DType label : kDtypes) {
              for (DType store : kDtypes) {
                mse::KernelKey key;
                key.reduce = reduce;
                key.order = order;
                key.mode = mode;
                key.stream_stores = (flags & 1) != 0;
                key.round_losses = (flags & 2) != 0;
                key.empty = (flags & 4) != 0;
                key.predict = predict;
                key.label = label;
                key.compute = aclcpu::kernel::PromoteTypes(predict, label);
                key.store = store;
                const uint64_t encoded = key.Encode();
                ASSERT_NE(encoded, aclcpu::kernel::kInvalidTilingKey);
                keys.insert(encoded);
              }
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(keys.size(), 5u * 3 * 8 * 27);  // none, axis0, and all in three orders
}

TEST(MseLossTiling, TheNumberPacksTheTableFromTheLowestBits) {
  mse::KernelKey key;
  key.reduce = mse::ReduceMode::kAll;                 // index 1, bits 0-1
  key.order = mse::ReduceOrder::kMseLossV2950;        // index 2, bits 2-3
  key.mode = aclcpu::kernel::ScheduleMode::kBlocked;  // index 2, bits 4-5
  key.stream_stores = true;                           // bit 6
  key.layout = aclcpu::kernel::kStridedLayout;        // index 4, bits 7-9
  key.round_losses = false;                           // bit 10
  key.empty = true;                                   // bit 11
  key.predict = DType::kFloat16;                      // 1, bits 12-19
  key.label = DType::kBFloat16;                       // 27, bits 20-27
  key.compute = DType::kFloat32;                      // 0, bits 28-35
  key.store = DType::kBFloat16;                       // 27, bits 36-43
  EXPECT_EQ(key.Encode(), 1u + (2u << 2) + (2u << 4) + (1u << 6) + (4u << 7) + (1u << 11) + (1u << 12) +
                              (uint64_t{27} << 20) + (uint64_t{27} << 36));
  EXPECT_EQ(key.ToString(),
            "reduce=1 order=2 schMode=2 streamStores=1 layout=16 roundLosses=0 empty=1 predictDtype=FLOAT16 "
            "labelDtype=BF16 computeDtype=FLOAT storeDtype=BF16");
  // Two inputs' layouts 0-3 and strided (8); 4-7 would name a third input.
  for (uint32_t layout = 0; layout <= aclcpu::kernel::kStridedLayout; ++layout) {
    key.layout = layout;
    EXPECT_EQ(key.Encode() != aclcpu::kernel::kInvalidTilingKey, layout < 4 || layout == aclcpu::kernel::kStridedLayout)
        << layout;
  }
}

TEST(MseLossTiling, KernelLevelChecks) {
  mse::TilingInput input = Graph(DType::kFloat32, {4}, "mean");
  input.label.dtype = DType::kFloat16;
  EXPECT_EQ(TilingError(input), "MseLoss: predict FLOAT, label FLOAT16 and y FLOAT must have one dtype");
  input = Graph(DType::kBFloat16, {4}, "mean");
  input.y.dtype = DType::kFloat32;
  EXPECT_EQ(TilingError(input), "MseLoss: predict BF16, label BF16 and y FLOAT must have one dtype");
  input = Graph(DType::kFloat32, {3, 4}, "sum");
  input.label = View(DType::kFloat32, {4});  // broadcastable, but not at this level
  EXPECT_EQ(TilingError(input), "MseLoss: predict [3,4] and label [4] must have one shape");
  input = Graph(DType::kFloat32, {3, 4}, "sum");
  input.reduce_axis0 = true;
  input.y = View(DType::kFloat32, {4});
  EXPECT_EQ(TilingError(input), "MseLoss: the sum over dim 0 is a step of the aclnn layer (fused only)");
  input = Graph(DType::kFloat32, {3, 4}, "mean");
  input.y = View(DType::kFloat32, {1});
  EXPECT_EQ(TilingError(input), "MseLoss: y [1] is not [] for reduction mean");
  input = Graph(DType::kFloat16, {3, 4}, "none");
  input.y = View(DType::kFloat16, {4, 3});
  EXPECT_EQ(TilingError(input), "MseLoss: y [4,3] is not [3,4] for reduction none");
  for (const char* reduction : {"none", "mean", "sum"}) {
    EXPECT_EQ(TilingError(Graph(DType::kBFloat16, {3, 4}, reduction)), "") << reduction;
  }
}

TEST(MseLossTiling, FusedChecks) {
  // Mixed dtypes and broadcast shapes are the fused kernel's to take.
  for (DType p : kDtypes) {
    for (DType l : kDtypes) {
      for (const char* reduction : {"none", "mean", "sum"}) {
        for (bool axis0 : {false, true}) {
          EXPECT_EQ(TilingError(Fused(p, {3, 1, 4}, l, {5, 1}, reduction, axis0, DType::kBFloat16)), "");
        }
      }
    }
  }
  mse::TilingInput input = Fused(DType::kFloat16, {4}, DType::kBFloat16, {4}, "mean", false, DType::kFloat16);
  input.y.dtype = DType::kFloat16;
  EXPECT_EQ(TilingError(input), "MseLoss: y dtype FLOAT16 is not the promotion of predict FLOAT16 and label BF16");
  input = Fused(DType::kFloat32, {4}, DType::kFloat32, {4}, "sum", false, DType::kFloat32);
  input.label = View(DType::kFloat32, {3});
  EXPECT_NE(TilingError(input).find("MseLoss: predict and label do not broadcast: "), std::string::npos)
      << TilingError(input);
  input = Fused(DType::kFloat32, {3, 4}, DType::kFloat32, {4}, "sum", true, DType::kFloat32);
  input.y = View(DType::kFloat32, {});
  EXPECT_EQ(TilingError(input), "MseLoss: y [] is not [4] for reduction sum");
  input = Fused(DType::kFloat32, {3, 4}, DType::kFloat32, {4}, "sum", false, DType::kFloat32);
  input.y = View(DType::kFloat32, {4});
  EXPECT_EQ(TilingError(input), "MseLoss: y [4] is not [] for reduction sum");
  input = Fused(DType::kFloat32, {3, 4}, DType::kFloat32, {4}, "none", false, DType::kFloat32);
  input.y = View(DType::kFloat32, {4});
  EXPECT_EQ(TilingError(input), "MseLoss: y [4] is not [3,4] for reduction none");
}

TEST(MseLossTiling, TheKeyNamesTheVariant) {
  // aclnnMseLoss: all elements, float32 losses; aclnnMseLossOut: over dim 0, rounded losses.
  mse::KernelKey key =
      KeyOf(Tiling(Fused(DType::kFloat16, {8, 3}, DType::kFloat16, {3}, "mean", false, DType::kBFloat16)));
  EXPECT_EQ(key.reduce, mse::ReduceMode::kAll);
  EXPECT_FALSE(key.round_losses);
  EXPECT_FALSE(key.empty);
  EXPECT_EQ(key.predict, DType::kFloat16);
  EXPECT_EQ(key.compute, DType::kFloat16);
  EXPECT_EQ(key.store, DType::kBFloat16);
  key = KeyOf(Tiling(Fused(DType::kFloat16, {8, 3}, DType::kBFloat16, {3}, "sum", true, DType::kFloat16)));
  EXPECT_EQ(key.reduce, mse::ReduceMode::kAxis0);
  EXPECT_TRUE(key.round_losses);
  EXPECT_EQ(key.label, DType::kBFloat16);
  EXPECT_EQ(key.compute, DType::kFloat32);
  // Reduction none, for either API: the elementwise loop; its schedule mode in the key.
  key = KeyOf(Tiling(Fused(DType::kFloat32, {64, 32}, DType::kFloat32, {64, 32}, "none", true, DType::kFloat32)));
  EXPECT_EQ(key.reduce, mse::ReduceMode::kNone);
  EXPECT_FALSE(key.round_losses);
  EXPECT_EQ(key.mode, aclcpu::kernel::ScheduleMode::kContiguous);
  EXPECT_EQ(key.layout, 0u);
  key = KeyOf(Tiling(Fused(DType::kFloat32, {64, 32}, DType::kFloat32, {32}, "none", false, DType::kFloat32)));
  EXPECT_EQ(key.mode, aclcpu::kernel::ScheduleMode::kBroadcast);
  EXPECT_EQ(key.layout, 0u);  // a row of label is read straight
  key = KeyOf(Tiling(Fused(DType::kFloat32, {64, 32}, DType::kFloat32, {64, 1}, "none", false, DType::kFloat32)));
  EXPECT_EQ(key.layout, 2u);  // a column's value repeats along each row
  mse::TilingInput transposed =
      Fused(DType::kFloat32, {512, 512}, DType::kFloat32, {512, 512}, "none", false, DType::kFloat32);
  transposed.predict.strides = support::Kept({1, 512});
  key = KeyOf(Tiling(transposed));
  EXPECT_EQ(key.mode, aclcpu::kernel::ScheduleMode::kBlocked);
  // A reduction's map: its loop chosen for the layout of its runs too.
  key = KeyOf(Tiling(Fused(DType::kFloat32, {64, 32}, DType::kFloat32, {32}, "mean", false, DType::kFloat32)));
  EXPECT_EQ(key.reduce, mse::ReduceMode::kAll);
  EXPECT_EQ(key.layout, 0u);
  key = KeyOf(Tiling(Fused(DType::kFloat32, {64, 32}, DType::kFloat32, {64, 1}, "sum", true, DType::kFloat32)));
  EXPECT_EQ(key.reduce, mse::ReduceMode::kAxis0);
  EXPECT_EQ(key.layout, 2u);
  mse::TilingInput transposed_mean =
      Fused(DType::kFloat32, {512, 512}, DType::kFloat32, {512, 512}, "mean", false, DType::kFloat32);
  transposed_mean.predict.strides = support::Kept({1, 512});
  EXPECT_EQ(KeyOf(Tiling(transposed_mean)).layout, aclcpu::kernel::kStridedLayout);
  // The graph's kernel sums float32 losses over all elements.
  key = KeyOf(Tiling(Graph(DType::kBFloat16, {5, 5}, "sum")));
  EXPECT_EQ(key.reduce, mse::ReduceMode::kAll);
  EXPECT_FALSE(key.round_losses);
  // Empty: flagged, nothing planned, no workspace.
  for (const char* reduction : {"none", "mean", "sum"}) {
    for (bool axis0 : {false, true}) {
      const mse::TilingData data =
          Tiling(Fused(DType::kFloat32, {0, 3}, DType::kFloat16, {3}, reduction, axis0, DType::kFloat32));
      EXPECT_TRUE(KeyOf(data).empty);
      EXPECT_EQ(data.workspace_bytes, 0u);
      EXPECT_EQ(data.mean, std::string(reduction) == "mean");
    }
  }
}

TEST(MseLossTiling, ThreadsFollowThePlatformAndTheGrain) {
  mse::TilingInput small = Fused(DType::kFloat32, {1000}, DType::kFloat32, {1000}, "none", false, DType::kFloat32);
  EXPECT_EQ(Tiling(small).threads, 1);
  mse::TilingInput big = Fused(DType::kFloat32, {1 << 20}, DType::kFloat32, {1 << 20}, "none", false, DType::kFloat32);
  EXPECT_EQ(Tiling(big).threads, 4);
  big.reduction = aclcpu::loss::Reduction::kMean;
  big.y = View(DType::kFloat32, {});
  EXPECT_EQ(Tiling(big).threads, 4);  // 64 chunks
  big.platform.threads = 1;
  EXPECT_EQ(Tiling(big).threads, 1);
  // A reduction runs on no more threads than it has work items.
  mse::TilingInput two_chunks =
      Fused(DType::kFloat32, {32768}, DType::kFloat32, {32768}, "sum", false, DType::kFloat32);
  EXPECT_EQ(Tiling(two_chunks).threads, 2);
}

TEST(MseLossTiling, ReductionPlanDivisorAndWorkspace) {
  struct Expected {
    Shape shape;
    bool axis0, aliases;
    int64_t rows, columns, chunks, column_blocks;
    bool direct;
    uint64_t workspace;
  };
  // All elements: rows of 16 in chunks of 1024 (16384 elements); over dim 0: dim 0's rows, the
  // other dims the columns, in blocks of 256. Partials (float64, chunks x columns) go to the
  // workspace unless one chunk holds every row and no other work item reads what out overwrites.
  for (const Expected& e : {
           Expected{{16384}, false, false, 1024, 16, 1, 1, true, 0},
           Expected{{16385}, false, false, 1025, 16, 2, 1, false, 2 * 16 * 8},
           Expected{{5}, false, true, 1, 16, 1, 1, true, 0},  // one item: it reads all, then writes
           Expected{{3, 7}, false, false, 2, 16, 1, 1, true, 0},
           Expected{{1024, 300}, true, false, 1024, 300, 1, 2, true, 0},
           Expected{{1024, 300}, true, true, 1024, 300, 1, 2, false, 300 * 8},
           Expected{{1025, 3}, true, false, 1025, 3, 2, 1, false, 2 * 3 * 8},
           Expected{{5, 3}, true, true, 5, 3, 1, 1, true, 0},
           Expected{{2, 3, 4}, true, false, 2, 12, 1, 1, true, 0},
           Expected{{}, true, false, 1, 1, 1, 1, true, 0},
           Expected{{7}, true, false, 7, 1, 1, 1, true, 0},
       }) {
    for (const char* reduction : {"mean", "sum"}) {
      mse::TilingInput input =
          Fused(DType::kFloat32, e.shape, DType::kFloat32, e.shape, reduction, e.axis0, DType::kFloat32);
      input.y_aliases_inputs = e.aliases;
      const mse::TilingData data = Tiling(input);
      const aclcpu::kernel::ReducePlan& plan = std::get<aclcpu::kernel::ReducePlan>(data.plan);
      SCOPED_TRACE(aclcpu::kernel::ShapeToString(e.shape) + (e.axis0 ? " axis0 " : " all ") + reduction);
      EXPECT_EQ(plan.kind, e.axis0 ? aclcpu::kernel::ReduceKind::kAxis0 : aclcpu::kernel::ReduceKind::kAll);
      EXPECT_EQ(plan.rows, e.rows);
      EXPECT_EQ(plan.columns, e.columns);
      EXPECT_EQ(plan.chunks, e.chunks);
      EXPECT_EQ(plan.column_blocks, e.column_blocks);
      EXPECT_EQ(plan.items, e.chunks * e.column_blocks);
      EXPECT_EQ(plan.direct, e.direct);
      EXPECT_EQ(data.workspace_bytes, e.workspace);
      EXPECT_EQ(plan.workspace_bytes, e.workspace);
      // The mean divides by the element count (all) or dim 0's size (over dim 0); a sum by 1.
      int64_t numel = 1;
      for (int64_t d : e.shape) numel *= d;
      const double divisor = std::string(reduction) == "sum" ? 1.0 : static_cast<double>(e.axis0 ? e.rows : numel);
      EXPECT_EQ(plan.divisor, divisor);
      EXPECT_EQ(data.mean, std::string(reduction) == "mean");
    }
  }
  // Reduction none needs no workspace of the tiling's (staging aliased inputs is the API's).
  mse::TilingInput none = Fused(DType::kFloat32, {20000}, DType::kFloat32, {20000}, "none", false, DType::kFloat32);
  none.y_aliases_inputs = true;
  EXPECT_EQ(Tiling(none).workspace_bytes, 0u);
}

// ---- the kernel on host buffers ----

golden::Dtype ToGolden(DType dtype) { return dtype; }  // the golden uses the engine's enum

// Random raw bits of n values of dtype.
std::vector<uint32_t> RandomBits(DType dtype, int64_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> value(-8.0f, 8.0f);
  std::vector<uint32_t> bits;
  for (int64_t i = 0; i < n; ++i) bits.push_back(golden::Narrow(ToGolden(dtype), value(rng)));
  return bits;
}

std::vector<char> Pack(DType dtype, const std::vector<uint32_t>& bits) {
  const size_t size = static_cast<size_t>(aclcpu::kernel::ElementSize(dtype));
  std::vector<char> bytes(bits.size() * size);
  for (size_t i = 0; i < bits.size(); ++i) std::memcpy(&bytes[i * size], &bits[i], size);
  return bytes;
}

std::vector<uint32_t> Unpack(DType dtype, const std::vector<char>& bytes) {
  const size_t size = static_cast<size_t>(aclcpu::kernel::ElementSize(dtype));
  std::vector<uint32_t> bits(bytes.size() / size, 0);
  for (size_t i = 0; i < bits.size(); ++i) std::memcpy(&bits[i], &bytes[i * size], size);
  return bits;
}

// Runs every part, last first: which thread runs which part must not matter.
class ReverseRunner final : public aclcpu::kernel::ParallelRunner {
 public:
  void Run(int parts, aclcpu::kernel::PartFunction part, void* context) override {
    for (int p = parts; p-- > 0;) part(context, p, parts);
  }
};

// The golden's route for a tiling input: the order it asks for, on an NPU of its SoC figures.
golden::LossRoute RouteOf(const mse::TilingInput& input) {
  golden::LossRoute route;
  route.kernel_v1 = input.order == mse::ReduceOrder::kMseLoss950;
  route.nd_formats = input.order != mse::ReduceOrder::kFloat64;  // (the golden's kFloat64 order off 950)
  route.npu.family = input.order == mse::ReduceOrder::kMseLossV2950 || input.order == mse::ReduceOrder::kMseLoss950
                         ? golden::Npu::Family::k950
                         : golden::Npu::Family::k910B;
  route.npu.vector_cores = input.soc.vector_cores;
  route.npu.ub_bytes = input.soc.ub_bytes;
  return route;
}

// Tiles input, runs the kernel on contiguous host buffers, compares y with the golden.
void RunAgainstGolden(const mse::TilingInput& tiling_input, bool axis0, int reduction, uint32_t seed) {
  std::mt19937 rng(seed);
  const golden::Tensor predict{
      ToGolden(tiling_input.predict.dtype),
      std::vector<int64_t>(tiling_input.predict.shape.begin(), tiling_input.predict.shape.end()),
      RandomBits(tiling_input.predict.dtype, aclcpu::kernel::Numel(tiling_input.predict.shape), rng)};
  const golden::Tensor label{
      ToGolden(tiling_input.label.dtype),
      std::vector<int64_t>(tiling_input.label.shape.begin(), tiling_input.label.shape.end()),
      RandomBits(tiling_input.label.dtype, aclcpu::kernel::Numel(tiling_input.label.shape), rng)};
  const mse::TilingData tiling = Tiling(tiling_input);
  std::vector<char> p = Pack(tiling_input.predict.dtype, predict.bits), l = Pack(tiling_input.label.dtype, label.bits);
  const golden::Tensor expected =
      golden::MseLoss(predict, label, reduction, axis0, ToGolden(tiling_input.store_dtype), RouteOf(tiling_input));
  for (int runner_kind = 0; runner_kind < 2; ++runner_kind) {
    std::vector<char> y(expected.bits.size() *
                        static_cast<size_t>(aclcpu::kernel::ElementSize(tiling_input.store_dtype)));
    std::vector<char> workspace(tiling.workspace_bytes + 1);
    aclcpu::kernel::InlineRunner inline_runner;
    ReverseRunner reverse_runner;
    aclcpu::kernel::ParallelRunner& runner =
        runner_kind == 0 ? static_cast<aclcpu::kernel::ParallelRunner&>(inline_runner) : reverse_runner;
    mse::RunKernel(tiling, mse::SelectKernel(tiling.key), p.data(), l.data(), y.data(), workspace.data(), runner);
    const std::vector<uint32_t> actual = Unpack(tiling_input.store_dtype, y);
    ASSERT_EQ(actual.size(), expected.bits.size());
    for (size_t i = 0; i < actual.size(); ++i) {
      const float e = golden::Widen(ToGolden(tiling_input.store_dtype), expected.bits[i]);
      ASSERT_TRUE(actual[i] == expected.bits[i] ||
                  (std::isnan(e) && std::isnan(golden::Widen(ToGolden(tiling_input.store_dtype), actual[i]))))
          << "element " << i << ": 0x" << std::hex << actual[i] << " vs 0x" << expected.bits[i];
    }
  }
}

TEST(MseLossKernel, FusedVariantsMatchTheGolden) {
  uint32_t seed = 1;
  for (DType predict : kDtypes) {
    for (DType label : kDtypes) {
      for (int reduction = 0; reduction < 3; ++reduction) {
        for (bool axis0 : {false, true}) {
          if (reduction == 0 && axis0) continue;  // none reduces nothing: the tiling reads neither axis0 nor order
          const char* name = reduction == 0 ? "none" : reduction == 1 ? "mean" : "sum";
          SCOPED_TRACE(std::string(aclcpu::kernel::DTypeName(predict)) + " " + aclcpu::kernel::DTypeName(label) + " " +
                       name + (axis0 ? " axis0" : ""));
          const DType store = kDtypes[seed % 3];
          // Our order; MSELossV2's on A2 and on 950, on 5 cores (a few blocks each, and one core) --
          // those only for a reduction of every element (a reduction over dim 0 is ours, float64).
          for (auto order :
               {mse::ReduceOrder::kFloat64, mse::ReduceOrder::kMseLossV2A2, mse::ReduceOrder::kMseLossV2950}) {
            if ((reduction == 0 || axis0) && order != mse::ReduceOrder::kFloat64) continue;
            mse::TilingInput small = Fused(predict, {33, 17}, label, {17}, name, axis0, store);
            small.order = order;
            small.soc = mse::SocFacts{5, order == mse::ReduceOrder::kMseLossV2950 ? 253952 : 196352};
            RunAgainstGolden(small, axis0, reduction, seed++);
            // Several chunks (all: 2 of 16384 elements; over dim 0: 2 of 1024 rows x 2 column blocks).
            mse::TilingInput large = Fused(predict, {1100, 300}, label, {1100, 300}, name, axis0, store);
            large.order = order;
            large.soc = small.soc;
            RunAgainstGolden(large, axis0, reduction, seed++);
            if (HasFatalFailure()) return;
          }
        }
      }
    }
  }
}

TEST(MseLossKernel, GraphKernelMatchesTheGolden) {
  uint32_t seed = 100;
  for (DType dtype : kDtypes) {
    for (int reduction = 0; reduction < 3; ++reduction) {
      const char* name = reduction == 0 ? "none" : reduction == 1 ? "mean" : "sum";
      for (const Shape& shape : {Shape{}, Shape{31}, Shape{20000}, Shape{6, 7, 8}}) {
        RunAgainstGolden(Graph(dtype, shape, name), false, reduction, seed++);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(MseLossKernel, EmptyInputs) {
  for (DType store : kDtypes) {
    for (int reduction = 0; reduction < 3; ++reduction) {
      for (bool axis0 : {false, true}) {
        const char* name = reduction == 0 ? "none" : reduction == 1 ? "mean" : "sum";
        const mse::TilingData tiling = Tiling(Fused(DType::kFloat16, {0, 4}, DType::kFloat16, {4}, name, axis0, store));
        std::vector<char> y(16, 0x5a);
        aclcpu::kernel::InlineRunner runner;
        mse::RunKernel(tiling, mse::SelectKernel(tiling.key), nullptr, nullptr, y.data(), nullptr, runner);
        const std::vector<char> untouched(16, 0x5a);
        if (reduction == 0 || axis0) {
          EXPECT_EQ(y, untouched);  // nothing to write
        } else {                    // all elements of nothing: the mean NaN, the sum +0; nothing past the one element
          uint32_t bits = 0;
          const size_t size = static_cast<size_t>(aclcpu::kernel::ElementSize(store));
          std::memcpy(&bits, y.data(), size);
          const float value = golden::Widen(ToGolden(store), bits);
          if (reduction == 1) {
            EXPECT_TRUE(std::isnan(value)) << value;
          } else {
            EXPECT_EQ(bits, 0u);
          }
          EXPECT_TRUE(std::equal(y.begin() + static_cast<std::ptrdiff_t>(size), y.end(), untouched.begin()));
        }
      }
    }
  }
}

TEST(MseLossKernel, TheKeySelectsTheLoopOnceAndTheLaunchRunsIt) {
  mse::TilingData tiling = Tiling(Fused(DType::kFloat32, {8}, DType::kFloat32, {8}, "sum", false, DType::kFloat32));
  const aclcpu::kernel::InnerLoop loop = mse::SelectKernel(tiling.key);
  ASSERT_NE(loop, nullptr);
  std::vector<float> p(8, 1.0f), l(8, 0.0f), y(1, -1.0f);
  aclcpu::kernel::InlineRunner runner;
  mse::RunKernel(tiling, loop, reinterpret_cast<char*>(p.data()), reinterpret_cast<char*>(l.data()),
                 reinterpret_cast<char*>(y.data()), nullptr, runner);
  EXPECT_EQ(y[0], 8.0f);
  // No elements: nothing to loop over; the kernel writes the empty sum itself.
  mse::TilingData empty = Tiling(Fused(DType::kFloat32, {0}, DType::kFloat32, {0}, "sum", false, DType::kFloat32));
  EXPECT_TRUE(empty.key.empty);
  EXPECT_EQ(mse::SelectKernel(empty.key), nullptr);
  mse::RunKernel(empty, nullptr, nullptr, nullptr, reinterpret_cast<char*>(y.data()), nullptr, runner);
  EXPECT_EQ(y[0], 0.0f);
}

}  // namespace

// ---- MSELossV2's orders: every branch of its tilings, against the golden's restatement ----------

namespace routes {

// What a case needs of the split, to show which branch it takes.
struct A2Branch {
  int64_t cores, core_length, tile_length;
};
A2Branch SplitA2(int64_t n, DType dtype, const mse::SocFacts& soc) {
  aclcpu::kernel::NpuSplit split;
  EXPECT_TRUE(mse::MseLossV2SplitA2(n, dtype, soc, &split));
  return {split.cores, split.core_length, split.tile_length};
}

void RunV2(mse::ReduceOrder order, const mse::SocFacts& soc, DType dtype, int64_t n, uint32_t seed) {
  for (const char* reduction : {"mean", "sum"}) {
    mse::TilingInput input = Fused(dtype, {n}, dtype, {n}, reduction, false, dtype);
    input.order = order;
    input.soc = soc;
    RunAgainstGolden(input, false, std::string(reduction) == "mean" ? 1 : 2, seed);
  }
}

}  // namespace routes

// A2/A3 and 310P (ops-nn loss/mse_loss_v2/op_host/arch22/mse_loss_v2_tiling.cpp), on a small UB so
// that every branch shows at small sizes, and on the parts' own figures.
TEST(MseLossV2Routes, A2EveryTilingBranchMatchesTheGolden) {
  // 4 cores and a UB of 1019 blocks after the cores' (32768 - 32 * 5 bytes): a queue of 509 blocks
  // (FLOAT: 2 queues) or 169 (16-bit: 2 queues and 4 cast buffers) with one buffer, 254 or 127 with two.
  const mse::SocFacts small{4, 32768};
  uint32_t seed = 1;
  for (DType dtype : kDtypes) {
    const int64_t per_block = dtype == DType::kFloat32 ? 8 : 16;
    const int64_t one_buffer = dtype == DType::kFloat32 ? 509 : 169, two_buffers = dtype == DType::kFloat32 ? 254 : 127;
    struct Size {
      int64_t n;
      const char* branch;
    };
    const std::vector<Size> sizes = {
        {1, "one value: no block, the last core's tail alone"},
        {per_block - 1, "no whole block"},
        {per_block, "one block"},
        {per_block + 3, "a block and a tail"},
        {per_block * 128 - 1, "fewer blocks than one core takes: one core"},
        {per_block * 128 * 3 + 5, "three cores"},
        {per_block * 128 * 4, "every core, 128 blocks each"},
        {per_block * (128 * 4 + 3) + 7, "the last core's extra blocks and tail"},
        {per_block * 4 * 150, "one tile per core"},
        {per_block * 4 * (one_buffer + 10), "one buffer: a full tile and a tail tile"},
        {per_block * 4 * (2 * one_buffer + 30) + 1, "two buffers"},
        {per_block * 4 * 5 * one_buffer + 2 * per_block + 3, "two buffers: several full tiles and a tail tile"},
    };
    for (const Size& size : sizes) {
      SCOPED_TRACE(std::string(aclcpu::kernel::DTypeName(dtype)) + " n=" + std::to_string(size.n) + ": " + size.branch);
      routes::RunV2(mse::ReduceOrder::kMseLossV2A2, small, dtype, size.n, seed++);
      if (HasFatalFailure()) return;
    }
    // The branches are the ones named.
    EXPECT_EQ(routes::SplitA2(1, dtype, small).cores, 1);
    EXPECT_EQ(routes::SplitA2(per_block * 128 * 3 + 5, dtype, small).cores, 3);
    const routes::A2Branch last = routes::SplitA2(per_block * (128 * 4 + 3) + 7, dtype, small);
    EXPECT_EQ(last.cores, 4);
    EXPECT_EQ(last.core_length, per_block * 128);  // 3 blocks and 7 values more on the last core
    const routes::A2Branch one_tile = routes::SplitA2(per_block * 4 * 150, dtype, small);
    EXPECT_GE(one_tile.tile_length, one_tile.core_length);
    const routes::A2Branch single = routes::SplitA2(per_block * 4 * (one_buffer + 10), dtype, small);
    EXPECT_EQ(single.tile_length, one_buffer * per_block);
    EXPECT_LT(single.tile_length, single.core_length);
    const routes::A2Branch doubled = routes::SplitA2(per_block * 4 * (2 * one_buffer + 30) + 1, dtype, small);
    EXPECT_EQ(doubled.tile_length, two_buffers * per_block);
  }
  // The parts' own figures: 40 and 48 cores with 196352 bytes of UB (A2/A3), 8 and 10 with 262144
  // (310P: 10 cores, 80 lanes: two repeats in core 0's ReduceSum).
  for (const mse::SocFacts& soc :
       {mse::SocFacts{40, 196352}, mse::SocFacts{48, 196352}, mse::SocFacts{8, 262144}, mse::SocFacts{10, 262144}}) {
    for (DType dtype : kDtypes) {
      for (int64_t n : {int64_t{7}, int64_t{1000}, int64_t{65536}, int64_t{40 * 1024 * 8 + 13}, int64_t{1 << 20}}) {
        SCOPED_TRACE(std::to_string(soc.vector_cores) + " cores, " + aclcpu::kernel::DTypeName(dtype) +
                     " n=" + std::to_string(n));
        routes::RunV2(mse::ReduceOrder::kMseLossV2A2, soc, dtype, n, seed++);
        if (HasFatalFailure()) return;
      }
    }
  }
  // Double buffers on a real part: 48 cores, FLOAT, more than 6094 blocks a core.
  EXPECT_LT(routes::SplitA2(int64_t{48} * 6200 * 8, DType::kFloat32, {48, 196352}).tile_length, 3047 * 8);
  routes::RunV2(mse::ReduceOrder::kMseLossV2A2, {48, 196352}, DType::kFloat32, int64_t{48} * 6200 * 8 + 9, seed++);
}

// Ascend950 (.../op_host/arch35/mse_loss_v2_tiling_arch35.cpp, the kernel's ReduceSum by count).
TEST(MseLossV2Routes, Ascend950EveryTilingBranchMatchesTheGolden) {
  uint32_t seed = 500;
  const mse::SocFacts small{8, 253952};  // 8 cores (Ascend950PR_950z)
  for (DType dtype : kDtypes) {
    struct Size {
      int64_t n;
      const char* branch;
    };
    const std::vector<Size> sizes = {
        {1, "one value, one core"},
        {33, "two cores of 32"},
        {64 * 8, "a tile of 64 on each core (ReduceSum scope 1)"},
        {100 * 8, "tiles of 100: scope 2, last core shorter"},
        {1024, "tiles of 128, seven buffers (ubFactor 9024)"},
        {1025, "ten buffers (ubFactor 6336), scope 3"},
        {220 * 8, "scope 4"},
        {3000 * 8 + 1, "scope 5, the last core short"},
        {6336 * 8 + 64, "a core of more than one tile: scope 6 and a short tile"},
        {30000 * 8 + 17, "several tiles a core"},
    };
    for (const Size& size : sizes) {
      SCOPED_TRACE(std::string(aclcpu::kernel::DTypeName(dtype)) + " n=" + std::to_string(size.n) + ": " + size.branch);
      routes::RunV2(mse::ReduceOrder::kMseLossV2950, small, dtype, size.n, seed++);
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_EQ(mse::MseLossV2Split950(1024, small).tile_length, 9024);
  EXPECT_EQ(mse::MseLossV2Split950(1025, small).tile_length, 6336);
  const aclcpu::kernel::NpuSplit short_core = mse::MseLossV2Split950(3000 * 8 + 1, small);
  EXPECT_EQ(short_core.cores, 8);
  EXPECT_EQ(short_core.core_length, 3008);  // the last core takes 2945
  // The parts' own core counts.
  for (int64_t cores : {72, 64, 56, 16}) {
    for (int64_t n : {int64_t{100}, int64_t{5000}, int64_t{300000}, int64_t{1 << 21}}) {
      SCOPED_TRACE(std::to_string(cores) + " cores, n=" + std::to_string(n));
      routes::RunV2(mse::ReduceOrder::kMseLossV2950, {cores, 253952}, DType::kFloat32, n, seed++);
      if (HasFatalFailure()) return;
    }
  }
}

// The NPU orders' loops give the same bits on every SIMD target this CPU runs (each forced in
// turn): vector width changes how many pairs are added at once, never which.
TEST(MseLossV2Routes, EverySimdTargetGivesTheGoldensBits) {
  std::vector<std::string> names;
  uint32_t seed = 900;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    names.push_back(aclcpu::kernel::NpuReduceTarget());
    ASSERT_EQ(names.back(), hwy::TargetName(target)) << "the target was not forced";
    SCOPED_TRACE(names.back());
    for (DType dtype : kDtypes) {
      // A2: one block and a tail, several cores, one buffer and a tail tile (small UB), two buffers.
      for (int64_t n : {int64_t{19}, int64_t{8 * 128 * 3 + 5}, int64_t{8 * 4 * 519}, int64_t{8 * 4 * 1048 + 1}}) {
        routes::RunV2(mse::ReduceOrder::kMseLossV2A2, mse::SocFacts{4, 32768}, dtype, n, seed++);
      }
      // 950: ReduceSum's scopes (up to 64, up to 256, beyond) and several tiles a core.
      for (int64_t n : {int64_t{40 * 8}, int64_t{200 * 8}, int64_t{3000 * 8 + 1}, int64_t{30000 * 8 + 17}}) {
        routes::RunV2(mse::ReduceOrder::kMseLossV2950, mse::SocFacts{8, 253952}, dtype, n, seed++);
      }
      if (HasFatalFailure()) break;
    }
    if (HasFatalFailure()) break;
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_FALSE(names.empty());
  RecordProperty("targets", ::testing::PrintToString(names));
}

// The kernels' sums of few values take shortcuts (a tree of only the lanes that hold values, the
// fold four vectors at a time): each against its plain statement, bit for bit, for every count,
// with -0, NaNs and infinities among the values, on every SIMD target.
TEST(MseLossV2Routes, TheSumsOfFewValuesAreThePlainTrees) {
  namespace k = aclcpu::kernel;
  // The same bits, or both NaN: which NaN's payload an addition of two keeps is the compiler's
  // choice (it may swap the operands), and the project judges every NaN alike.
  auto same = [](float a, float b) {
    uint32_t x, y;
    std::memcpy(&x, &a, sizeof x);
    std::memcpy(&y, &b, sizeof y);
    return x == y || (std::isnan(a) && std::isnan(b));
  };
  auto nan = [](uint32_t payload) {
    const uint32_t b = 0x7fc00000u | payload;
    float value;
    std::memcpy(&value, &b, sizeof value);
    return value;
  };
  // 64 lanes, +0 past n, adjacent pairs added level by level.
  auto plain_tree = [](const float* values, int64_t n) {
    float lanes[64] = {};
    std::copy(values, values + n, lanes);
    for (int width = 64; width > 1; width /= 2) {
      for (int i = 0; i < width / 2; ++i) lanes[i] = lanes[2 * i] + lanes[2 * i + 1];
    }
    return lanes[0];
  };
  auto plain_fold = [](std::vector<float> s) {
    int64_t n = static_cast<int64_t>(s.size());
    while (n > 8) {
      const int64_t off = 8 * ((n + 15) / 16);
      for (int64_t i = 0; i < n - off; ++i) s[i] = s[i] + s[off + i];
      n = off;
    }
    s.resize(static_cast<size_t>(n));
    return s;
  };
  std::mt19937 rng(77);
  std::uniform_real_distribution<float> uniform(-4.0f, 4.0f);
  const std::vector<std::function<float(int64_t)>> patterns = {
      [&](int64_t) { return uniform(rng); },
      [](int64_t) { return -0.0f; },
      [&](int64_t i) { return i % 3 == 0 ? -0.0f : uniform(rng); },
      [&](int64_t i) { return i == 5   ? nan(0x123)
                              : i == 9 ? nan(0x456)
                                       : -0.0f; },
      [&](int64_t i) { return i % 7 == 1   ? INFINITY
                              : i % 7 == 4 ? -INFINITY
                                           : uniform(rng); },
  };
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(k::NpuReduceTarget());
    for (size_t p = 0; p < patterns.size(); ++p) {
      for (int64_t n = 0; n <= 300; ++n) {
        SCOPED_TRACE("pattern " + std::to_string(p) + ", n=" + std::to_string(n));
        std::vector<float> values(static_cast<size_t>(n) + 64);
        for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = patterns[p](i);
        if (n <= 64) {
          ASSERT_TRUE(same(k::Tree64(values.data(), n), plain_tree(values.data(), n)));
          float reference = plain_tree(values.data(), std::min<int64_t>(n, 64));
          ASSERT_TRUE(same(k::SumInRepeats(values.data(), n), reference));
        } else {
          float reference = plain_tree(values.data(), 64);
          for (int64_t first = 64; first < n; first += 64) {
            reference = reference + plain_tree(values.data() + first, std::min<int64_t>(64, n - first));
          }
          ASSERT_TRUE(same(k::SumInRepeats(values.data(), n), reference));
        }
        const std::vector<float> expected = plain_fold(std::vector<float>(values.begin(), values.begin() + n));
        std::vector<float> folded(values.begin(), values.begin() + n);
        k::BisectFold(folded.data(), n);
        for (size_t i = 0; i < expected.size(); ++i) ASSERT_TRUE(same(folded[i], expected[i])) << "lane " << i;
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}
