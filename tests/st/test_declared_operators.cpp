// Every operator the declarations drive, against its golden, through the libraries' tables and
// nothing of its own: each aclnn API (ops/api_table.h) on the dtypes its declaration allows, shapes
// of rank 0 to 8 that broadcast, each layout (contiguous, transposed, strided with an offset), each
// value of its enum attributes, ordinary and special values, bit for bit on the SoC the runtime
// stands for (CTest runs it under a profile of each family); and each kernel as the graph drives it
// (ops/common/op_def/kernel_table.h). A new operator is tested here by being declared; its own
// special values are its own tests' to add.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "golden/golden_op.h"
#include "ops/api_table.h"
#include "ops/common/op_def/kernel_table.h"
#include "support/api_support.h"

namespace {

using support::DeviceTensor;
using support::Layout;

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

// The dtypes of the declaration that the SoC's aclnn layer computes (no BF16 on 310P).
std::vector<aclDataType> Dtypes(const aclcpu::OperatorInfo& op) {
  const bool bf16 = support::CurrentNpu().family != golden::Npu::Family::k310P;
  std::vector<aclDataType> dtypes;
  for (int i = 0; i < op.dtype_count; ++i) {
    const aclDataType acl = static_cast<aclDataType>(aclcpu::kernel::Traits(op.dtypes[i]).acl);
    if (acl != ACL_BF16 || bf16) dtypes.push_back(acl);
  }
  return dtypes;
}

// Whether an API takes inputs of different dtypes (its declared checks ask for no one dtype).
bool TakesMixedDtypes(const aclcpu::ApiOp& api) {
  for (int c = 0; c < api.check_count; ++c) {
    if (api.checks[c].kind == aclcpu::CheckKind::kSameDtype) return false;
  }
  return true;
}

// Input shapes that broadcast to `shape`: the whole shape, trailing dims only, dims of 1, a 0-d
// input -- input k's form chosen by `form`.
std::vector<int64_t> BroadcastInput(const std::vector<int64_t>& shape, int form) {
  switch (form % 4) {
    case 0:
      return shape;
    case 1:
      return std::vector<int64_t>(shape.begin() + static_cast<std::ptrdiff_t>(shape.size() / 2), shape.end());
    case 2: {
      std::vector<int64_t> ones = shape;
      for (size_t d = 0; d < ones.size(); d += 2) ones[d] = 1;
      return ones;
    }
    default:
      return {};
  }
}

// The broadcast shapes tried: ranks 0 to 8.
const std::vector<std::vector<int64_t>> kShapes = {
    {},
    {7},
    {3, 5},
    {2, 3, 4},
    {2, 1, 3, 5},
    {2, 3, 1, 2, 3},
    {1, 2, 2, 3, 1, 2},
    {2, 1, 2, 1, 2, 1, 3},
    {1, 2, 1, 2, 1, 2, 1, 3},
};

struct ApiCase {
  const aclcpu::ApiOp* api;
  std::vector<aclDataType> dtypes;  // each input's, in the API's order
  std::vector<std::vector<int64_t>> shapes;
  std::vector<aclcpu::AttrValue> attributes;  // the operator's, in its order
  Layout layout;
  support::ValueClass values;
  bool optional_absent = false;  // every optional input passed as null (it reads as ones)
};

std::string Describe(const ApiCase& c) {
  std::string text = std::string(c.api->name) + "(";
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    text += (i ? ", " : "") + std::to_string(c.dtypes[i]) + ShapeText(c.shapes[i]);
  }
  for (const aclcpu::AttrValue& value : c.attributes) text += ", " + std::to_string(value.integer);
  return text + ") " + support::LayoutName(c.layout) + " " + support::ValueClassName(c.values) +
         (c.optional_absent ? " optional inputs null" : "") + " on " + aclrtGetSocName();
}

// Runs the case through the table's generic call and compares out with the golden, bit for bit;
// nothing outside out's view written.
void Check(const ApiCase& c, std::mt19937& rng) {
  SCOPED_TRACE(Describe(c));
  const aclcpu::ApiOp& api = *c.api;
  std::vector<std::unique_ptr<DeviceTensor>> inputs;
  std::vector<golden::Tensor> golden_inputs;
  std::vector<aclcpu::kernel::Dims> shapes(static_cast<size_t>(api.param_count));
  std::vector<aclDataType> dtypes(static_cast<size_t>(api.param_count), ACL_DT_UNDEFINED);
  std::vector<aclcpu::ApiArg> args(static_cast<size_t>(api.param_count));
  size_t k = 0;
  for (int p = 0; p < api.param_count; ++p) {
    if (api.params[p].kind == aclcpu::ParamKind::kAttribute) {
      args[static_cast<size_t>(p)].value = c.attributes[static_cast<size_t>(api.params[p].index)];
    }
    if (api.params[p].kind != aclcpu::ParamKind::kInput) continue;
    if (c.optional_absent && api.params[p].optional) {
      golden_inputs.emplace_back();  // 0-d with no data: absent
      ++k;
      continue;
    }
    inputs.push_back(std::make_unique<DeviceTensor>(c.dtypes[k], c.shapes[k], c.layout));
    DeviceTensor& input = *inputs.back();
    input.Write(support::RandomBits(c.dtypes[k], input.numel(), c.values, rng));
    golden_inputs.push_back(input.ToGoldenTensor());
    shapes[static_cast<size_t>(p)] = aclcpu::kernel::Dims(input.shape());
    dtypes[static_cast<size_t>(p)] = c.dtypes[k];
    args[static_cast<size_t>(p)].tensor = input.get();
    ++k;
  }
  aclcpu::kernel::Shape out_shape;
  ASSERT_TRUE(aclcpu::NewOutShape(api, shapes.data(), c.attributes.data(), &out_shape));
  const aclDataType out_dtype = aclcpu::NewOutDtype(api, dtypes.data());
  DeviceTensor out(out_dtype, std::vector<int64_t>(out_shape), c.layout);
  args[static_cast<size_t>(api.out_param())].tensor = out.get();
  const golden::Tensor expected =
      support::GoldenOf(api.name, golden_inputs, c.attributes, support::ToGolden(out_dtype));

  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(api.phase_one(args.data(), &workspace_size, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  void* workspace = nullptr;
  if (workspace_size > 0) {
    ASSERT_EQ(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  ASSERT_EQ(api.launch(workspace, workspace_size, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  if (workspace != nullptr) aclrtFree(workspace);
  EXPECT_EQ(support::CompareBits(support::ToGolden(out_dtype), expected.bits, out.Read()), "");
  EXPECT_EQ(out.ChangedBytesOutsideView(DeviceTensor::kFillPattern), 0);
}

// Parameter param's place among the API's inputs.
int InputOrdinal(const aclcpu::ApiOp& api, int param) {
  int k = 0;
  for (int p = 0; p < param; ++p) k += api.params[p].kind == aclcpu::ParamKind::kInput;
  return k;
}

bool HasOptionalInputs(const aclcpu::ApiOp& api) {
  for (int p = 0; p < api.param_count; ++p) {
    if (api.params[p].optional) return true;
  }
  return false;
}

// Each enum attribute's values in turn (the others at their defaults).
std::vector<std::vector<aclcpu::AttrValue>> AttributeCombinations(const aclcpu::OperatorInfo& op) {
  std::vector<aclcpu::AttrValue> defaults;
  for (int i = 0; i < op.attribute_count; ++i) defaults.push_back(op.attributes[i].default_value);
  std::vector<std::vector<aclcpu::AttrValue>> combinations = {defaults};
  for (int i = 0; i < op.attribute_count; ++i) {
    if (op.attributes[i].kind != aclcpu::AttrKind::kEnum) continue;
    for (int value = 0; value < op.attributes[i].enum_type->count; ++value) {
      std::vector<aclcpu::AttrValue> combination = defaults;
      combination[static_cast<size_t>(i)].integer = value;
      combinations.push_back(combination);
    }
  }
  return combinations;
}

TEST(DeclaredOperators, EveryApiMatchesItsGolden) {
  support::EnsureRuntime();
  std::mt19937 rng(2027);
  int cases = 0;
  for (const aclcpu::ApiOp* api : aclcpu::ApiOps()) {
    int inputs = 0;
    for (int p = 0; p < api->param_count; ++p) inputs += api->params[p].kind == aclcpu::ParamKind::kInput;
    const std::vector<aclDataType> dtypes = Dtypes(*api->op);
    for (const std::vector<aclcpu::AttrValue>& attributes : AttributeCombinations(*api->op)) {
      for (size_t s = 0; s < kShapes.size(); ++s) {
        ApiCase c{api, {}, {}, attributes, Layout::kContiguous, support::ValueClass::kNormal};
        for (int k = 0; k < inputs; ++k) {
          // One dtype for all, or (an API that takes them mixed) each its own.
          const size_t d = TakesMixedDtypes(*api) ? (s + static_cast<size_t>(k)) % dtypes.size() : s % dtypes.size();
          c.dtypes.push_back(dtypes[d]);
          c.shapes.push_back(BroadcastInput(kShapes[s], static_cast<int>(s) + k));
        }
        // The first input out's shape follows has the whole shape, so that the broadcast is it.
        c.shapes[static_cast<size_t>(InputOrdinal(*api, api->broadcast_params[0]))] = kShapes[s];
        for (Layout layout : {Layout::kContiguous, Layout::kTransposed, Layout::kStridedOffset}) {
          c.layout = layout;
          c.values = layout == Layout::kContiguous ? support::ValueClass::kNormal : support::ValueClass::kMixed;
          Check(c, rng);
          ++cases;
        }
        if (HasOptionalInputs(*api)) {  // and without them
          c.optional_absent = true;
          Check(c, rng);
          ++cases;
        }
      }
    }
  }
  // Every API, each attribute value, every shape and layout: 3 x 9 x (1 + enum values) a case each.
  EXPECT_GE(cases, static_cast<int>(aclcpu::ApiOps().size()) * 27);
  std::printf("%d cases\n", cases);
}

// Every API's reductions of every element on inputs long enough for the kernels' splits: past one
// chunk of atvoss's ReduceSch on 950 (8448 float32 values), several chunks a core, the last ones
// short; elsewhere our float64 order over several of its chunks. Contiguous, one shape broadcast.
TEST(DeclaredOperators, EveryReductionOfLargeInputsMatchesItsGolden) {
  support::EnsureRuntime();
  std::mt19937 rng(2029);
  int cases = 0;
  // 700001: two or more chunks a core on 950 (72 cores hold one chunk each up to 608256 float32
  // values); elsewhere the float64 order's chunks are already many at [133, 1000].
  std::vector<std::vector<int64_t>> shapes = {{8449}, {133, 1000}};
  if (support::CurrentNpu().family == golden::Npu::Family::k950) shapes.push_back({700001});
  for (const aclcpu::ApiOp* api : aclcpu::ApiOps()) {
    int inputs = 0;
    for (int p = 0; p < api->param_count; ++p) inputs += api->params[p].kind == aclcpu::ParamKind::kInput;
    for (const std::vector<aclcpu::AttrValue>& attributes : AttributeCombinations(*api->op)) {
      for (const std::vector<int64_t>& shape : shapes) {
        std::vector<aclcpu::kernel::Dims> dims(static_cast<size_t>(api->param_count), aclcpu::kernel::Dims(shape));
        aclcpu::kernel::Shape out_shape;
        ASSERT_TRUE(aclcpu::NewOutShape(*api, dims.data(), attributes.data(), &out_shape));
        if (golden::Count(std::vector<int64_t>(out_shape)) != 1) continue;  // not a reduction of every element
        // Each dtype, and (an API that takes them mixed) FLOAT16 beside FLOAT: float32's split.
        std::vector<std::vector<aclDataType>> dtype_sets;
        for (aclDataType dtype : Dtypes(*api->op)) dtype_sets.emplace_back(static_cast<size_t>(inputs), dtype);
        if (TakesMixedDtypes(*api)) {
          dtype_sets.emplace_back(static_cast<size_t>(inputs), ACL_FLOAT);
          dtype_sets.back()[0] = ACL_FLOAT16;
        }
        for (const std::vector<aclDataType>& dtypes : dtype_sets) {
          // [133, 1000] with the other inputs [1000]: a broadcast (MseLoss's V1 route).
          std::vector<std::vector<int64_t>> input_shapes(static_cast<size_t>(inputs), shape);
          for (size_t k = 1; k < input_shapes.size() && shape.size() == 2; ++k) input_shapes[k] = {shape[1]};
          ApiCase c{api, dtypes, input_shapes, attributes, Layout::kContiguous, support::ValueClass::kNormal};
          Check(c, rng);
          ++cases;
        }
      }
    }
  }
  // MseLoss and each reducing operator's API: mean and sum, two sizes or more, each dtype.
  EXPECT_GE(cases, 3 * 2 * 2 * 2);
  std::printf("%d cases\n", cases);
}

// Each kernel as a TTK row drives it: its definition's dtypes, one shape or a broadcast as it takes
// them, each enum attribute's values, against the golden at the kernel level.
TEST(DeclaredOperators, EveryKernelMatchesItsGolden) {
  support::EnsureRuntime();
  std::mt19937 rng(2028);
  int runs = 0;
  for (const aclcpu::KernelOp& kernel_op : aclcpu::KernelOps()) {
    const aclcpu::OperatorInfo& op = *kernel_op.info;
    for (int d = 0; d < op.dtype_count; ++d) {
      const aclcpu::kernel::DType dtype = op.dtypes[d];
      const aclDataType acl = static_cast<aclDataType>(aclcpu::kernel::Traits(dtype).acl);
      for (const std::vector<aclcpu::AttrValue>& attributes : AttributeCombinations(op)) {
        for (size_t s = 1; s < 5; ++s) {
          SCOPED_TRACE(std::string(op.type) + " " + aclcpu::kernel::DTypeName(dtype) + " " + ShapeText(kShapes[s]));
          std::vector<std::vector<uint32_t>> bits;
          std::vector<std::vector<int64_t>> shapes;
          std::vector<aclcpu::kernel::Dims> dims;
          std::vector<aclcpu::kernel::DType> dtypes(static_cast<size_t>(op.input_count), dtype);
          for (int i = 0; i < op.input_count; ++i) {
            shapes.push_back(op.one_shape || i == 0 ? kShapes[s] : BroadcastInput(kShapes[s], static_cast<int>(s) + i));
          }
          for (const std::vector<int64_t>& shape : shapes) dims.emplace_back(shape);
          aclcpu::kernel::Shape y_shape;
          aclcpu::kernel::DType y_dtype;
          std::string why;
          ASSERT_TRUE(
              aclcpu::InferKernelOutput(op, dims.data(), dtypes.data(), attributes.data(), &y_shape, &y_dtype, &why))
              << why;
          // Contiguous host tensors of the dtype's size, as the kernel reads them.
          const size_t size = static_cast<size_t>(aclcpu::kernel::ElementSize(dtype));
          std::vector<std::vector<char>> memory;
          std::vector<aclcpu::kernel::Shape> strides(shapes.size() + 1);
          std::vector<aclcpu::kernel::TensorView> operands;
          golden::Call call;
          call.kernel_level = true;
          call.npu = support::CurrentNpu();
          call.attributes = attributes;
          call.out_dtype = y_dtype;
          for (size_t i = 0; i < shapes.size(); ++i) {
            bits.push_back(support::RandomBits(acl, golden::Count(shapes[i]), support::ValueClass::kMixed, rng));
            memory.emplace_back(bits[i].size() * size);
            for (size_t e = 0; e < bits[i].size(); ++e) std::memcpy(&memory[i][e * size], &bits[i][e], size);
            strides[i] = aclcpu::kernel::ContiguousStrides(shapes[i]);
            operands.push_back({dtype, shapes[i], strides[i], memory[i].data()});
            call.inputs.push_back(golden::View{dtype, shapes[i], memory[i].data(), static_cast<int>(size), nullptr});
          }
          const std::vector<int64_t> y_dims(y_shape);
          memory.emplace_back(static_cast<size_t>(golden::Count(y_dims)) * size);
          strides.back() = aclcpu::kernel::ContiguousStrides(y_dims);
          operands.push_back({y_dtype, y_dims, strides.back(), memory.back().data()});
          ASSERT_TRUE(kernel_op.run(operands.data(), attributes.data(), &why)) << why;
          const std::unique_ptr<golden::GoldenOutput> golden = golden::MakeGolden(op.case_name, call, &why);
          ASSERT_NE(golden, nullptr) << why;
          const golden::Tensor expected = golden::Evaluate(*golden);
          ASSERT_EQ(expected.shape, y_dims);
          std::vector<uint32_t> actual(expected.bits.size());
          for (size_t e = 0; e < actual.size(); ++e) std::memcpy(&actual[e], &memory.back()[e * size], size);
          EXPECT_EQ(support::CompareBits(expected.dtype, expected.bits, actual), "");
          ++runs;
        }
      }
    }
  }
  EXPECT_GE(runs, static_cast<int>(aclcpu::KernelOps().size()) * 4);
  std::printf("%d runs\n", runs);
}

}  // namespace
