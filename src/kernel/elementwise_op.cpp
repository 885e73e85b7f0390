#include "elementwise_op.h"

#include <cstring>

namespace aclcpu {
namespace kernel {

const std::vector<KeyFieldOf<ElementwiseKey>>& ElementwiseKey::Fields() {
  using Key = ElementwiseKey;
  static const std::vector<KeyFieldOf<Key>> fields = {
      {{"schMode", KeyFieldKind::kList, 2, {0, 1, 2}}, &KeyValue<&Key::mode>},  // ScheduleMode
      {{"scalarInput", KeyFieldKind::kBool, 1, {}}, &KeyValue<&Key::scalar_input>},
      {{"streamStores", KeyFieldKind::kBool, 1, {}}, &KeyValue<&Key::stream_stores>},
      {{"layout", KeyFieldKind::kList, 5, LayoutValues(kMaxInputs)}, &KeyValue<&Key::layout>},
      {{"dtype", KeyFieldKind::kDType, 8, {}}, &KeyValue<&Key::dtype>},
      {{"storeDtype", KeyFieldKind::kDType, 8, {}}, &KeyValue<&Key::store_dtype>},
      {{"dag", KeyFieldKind::kList, 2, {0, 1, 2, 3}}, &KeyValue<&Key::dag>},  // of an operator's Dags
  };
  return fields;
}

bool PlanElementwiseOp(const ElementwiseOpInput& input, ElementwiseTiling* tiling, std::string* error) {
  const int inputs = input.num_inputs;
  const int y = inputs;  // the output is the last operand
  const DType dtype = input.operands[0].dtype;
  for (int i = 1; i <= y; ++i) {
    if (input.operands[i].dtype == dtype) continue;
    *error = std::string(input.op) + ": " + input.names[i] + " dtype " + DTypeName(input.operands[i].dtype) +
             " differs from " + input.names[0] + " dtype " + DTypeName(dtype);
    return false;
  }
  ElementwiseTiling& result = *tiling;  // every field set below, in place (the executor copies it next)
  ElementwiseKey& key = result.key;
  key.dtype = dtype;
  key.store_dtype = input.store_dtype;
  key.dag = input.dag;
  key.scalar_input = input.scalar_input >= 0 && Numel(input.operands[input.scalar_input].shape) == 1;
  result.context = input.context;
  result.num_inputs = inputs;
  result.scalar_input = input.scalar_input;

  OperandDims operands[kMaxOperands];
  for (int i = 0; i <= y; ++i) operands[i] = input.operands[i].Operand();
  if (key.scalar_input) {  // the kernel reads its one value into a place of its own: stride 0
    static constexpr int64_t kZeros[Shape::kCapacity] = {};
    operands[input.scalar_input].strides = Dims(kZeros, operands[input.scalar_input].shape.size());
  }
  operands[y].element_size = ElementSize(input.store_dtype);
  std::string why;
  if (!PlanElementwise(input.operands[y].shape, operands, inputs + 1, &result.plan, &why)) {
    std::string shapes;
    for (int i = 0; i < inputs; ++i) shapes += (i == 0 ? "" : ", ") + ShapeToString(input.operands[i].shape);
    *error = std::string(input.op) + ": cannot plan the inputs " + shapes + " into " + input.names[y] + " " +
             ShapeToString(input.operands[y].shape) + ": " + why;
    return false;
  }
  Schedule schedule = ScheduleElementwise(input.platform, inputs, &result.plan);
  if (input.store_dtype != dtype) schedule = ForStoreCast(schedule);
  key.mode = schedule.mode;
  key.stream_stores = schedule.stream_stores;
  key.layout = schedule.layout;
  result.threads = schedule.threads;
  return true;
}

void RunElementwiseOp(const ElementwiseTiling& tiling, InnerLoop loop, const char* const* inputs, char* y,
                      ParallelRunner& runner) {
  if (tiling.plan.numel == 0) return;

  char* bases[kMaxOperands];
  for (int i = 0; i < tiling.num_inputs; ++i) bases[i] = const_cast<char*>(inputs[i]);
  bases[tiling.num_inputs] = y;
  // A single value is read before any element of y is written (y may cover it).
  alignas(8) char value[8] = {};
  if (tiling.key.scalar_input) {
    std::memcpy(value, inputs[tiling.scalar_input], static_cast<size_t>(ElementSize(tiling.key.dtype)));
    bases[tiling.scalar_input] = value;
  }
  RunElementwise(tiling.plan, bases, loop, &tiling.context, runner, tiling.threads);
}

}  // namespace kernel
}  // namespace aclcpu
