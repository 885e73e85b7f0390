#include "reduce_op.h"

#include <limits>

#include "float_convert.h"

namespace aclcpu {
namespace kernel {

const std::vector<KeyFieldOf<ReduceKey>>& ReduceKey::Fields() {
  using Key = ReduceKey;
  static const std::vector<KeyFieldOf<Key>> fields = {
      {{"order", KeyFieldKind::kList, 2, {0, 1}}, &KeyValue<&Key::order>},  // ReduceOrder
      {{"mean", KeyFieldKind::kBool, 1, {}}, &KeyValue<&Key::mean>},
      {{"empty", KeyFieldKind::kBool, 1, {}}, &KeyValue<&Key::empty>},
      {{"layout", KeyFieldKind::kList, 5, LayoutValues(kMaxInputs)}, &KeyValue<&Key::layout>},
      {{"dtype", KeyFieldKind::kDType, 8, {}}, &KeyValue<&Key::dtype>},
      {{"storeDtype", KeyFieldKind::kDType, 8, {}}, &KeyValue<&Key::store_dtype>},
      {{"dag", KeyFieldKind::kList, 2, {0, 1, 2, 3}}, &KeyValue<&Key::dag>},  // of an operator's Dags
  };
  return fields;
}

bool PlanReduceOp(const ReduceOpInput& input, ReduceTiling* tiling, std::string* error) {
  const ElementwiseOpInput& call = input.elementwise;
  const int inputs = call.num_inputs;
  const int y = inputs;
  const DType dtype = call.operands[0].dtype;
  for (int i = 1; i <= y; ++i) {
    if (call.operands[i].dtype == dtype) continue;
    *error = std::string(call.op) + ": " + call.names[i] + " dtype " + DTypeName(call.operands[i].dtype) +
             " differs from " + call.names[0] + " dtype " + DTypeName(dtype);
    return false;
  }
  if (!call.operands[y].shape.empty()) {
    *error = std::string(call.op) + ": " + call.names[y] + " " + ShapeToString(call.operands[y].shape) +
             " is not 0-d, as a reduction of every element makes it";
    return false;
  }
  Dims shapes[kMaxInputs];
  for (int i = 0; i < inputs; ++i) shapes[i] = call.operands[i].shape;
  Shape shape;
  std::string why;
  if (!BroadcastShapes(shapes, inputs, &shape, &why)) {
    *error = std::string(call.op) + ": the inputs do not broadcast: " + why;
    return false;
  }
  ReduceTiling& result = *tiling;  // every field set below, in place
  ReduceKey& key = result.key;
  key = ReduceKey();
  key.order = input.order;
  key.mean = input.mean;
  key.dtype = dtype;
  key.store_dtype = call.store_dtype;
  key.dag = call.dag;
  result.context = call.context;
  result.num_inputs = inputs;
  result.threads = 1;
  result.workspace_bytes = 0;
  int64_t n = 0;
  if (!CheckedNumel(shape, &n)) {  // a broadcast of stride-0 inputs can name more elements than int64 counts
    *error =
        std::string(call.op) + ": the broadcast shape " + ShapeToString(shape) + " has more elements than int64 counts";
    return false;
  }
  key.empty = n == 0;
  if (key.empty) return true;

  OperandDims operands[kMaxInputs];
  for (int i = 0; i < inputs; ++i) operands[i] = call.operands[i].Operand();
  OperandDims out = call.operands[y].Operand();
  out.element_size = ElementSize(call.store_dtype);
  if (input.order == ReduceOrder::kReduceSch) {
    NpuSplit split;
    if (!ReduceSchSplit(n, static_cast<int>(ElementSize(dtype)), input.sch_dag, input.sch_platform, &split, &why)) {
      *error = std::string(call.op) + ": " + why;
      return false;
    }
    // The mean's scale: the tiling's meanVar, (float)(1.0 / N) (reduce_tiling.cpp, ComputeStride).
    const float scale = input.mean ? static_cast<float>(1.0 / static_cast<double>(n)) : 1.0f;
    auto& plan = result.plan.emplace<NpuReducePlan>();
    if (!PlanNpuReduction(NpuOrder::kReduceSch, split, scale, false, shape, operands, inputs, out, call.platform, &plan,
                          &why)) {
      *error = std::string(call.op) + ": cannot plan the reduction: " + why;
      return false;
    }
    key.layout = MapLayout(plan.map, inputs);
    result.threads = plan.threads;
  } else {
    auto& plan = result.plan.emplace<ReducePlan>();
    const double divisor = input.mean ? static_cast<double>(n) : 1.0;
    if (!PlanReduction(ReduceKind::kAll, shape, operands, inputs, out, divisor, true, call.platform, &plan, &why)) {
      *error = std::string(call.op) + ": cannot plan the reduction: " + why;
      return false;
    }
    key.layout = MapLayout(plan.map, inputs);
    result.threads = plan.threads;
    result.workspace_bytes = plan.workspace_bytes;
  }
  return true;
}

void RunReduceOp(const ReduceTiling& tiling, InnerLoop map_loop, const char* const* inputs, char* y, char* workspace,
                 ParallelRunner& runner) {
  const ReduceKey& key = tiling.key;
  if (key.empty) {  // the mean of nothing is NaN, its sum 0 (ops-nn's empty-tensor fill)
    StoreFromFloat(key.store_dtype, key.mean ? std::numeric_limits<float>::quiet_NaN() : 0.0f, y);
    return;
  }
  char* bases[kMaxOperands];
  for (int i = 0; i < tiling.num_inputs; ++i) bases[i] = const_cast<char*>(inputs[i]);
  if (key.order == ReduceOrder::kReduceSch) {
    RunNpuReduction(std::get<NpuReducePlan>(tiling.plan), bases, map_loop, &tiling.context, key.dtype, key.store_dtype,
                    y, runner);
  } else {
    RunReduction(std::get<ReducePlan>(tiling.plan), bases, map_loop, &tiling.context, key.dtype, key.store_dtype, y,
                 workspace, runner);
  }
}

}  // namespace kernel
}  // namespace aclcpu
