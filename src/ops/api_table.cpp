// What generic callers do with the API table (api_table.h); the table itself is generated.
#include "api_table.h"

#include <cstring>

#include "ops/common/op_def/promotion.h"

namespace aclcpu {
namespace {

constexpr int kMaxBroadcast = 8;  // more than any API broadcasts

}  // namespace

int ApiOp::out_param() const {
  for (int i = 0; i < param_count; ++i) {
    if (params[i].kind == ParamKind::kOutput) return i;
  }
  return -1;
}

int ApiOp::param_of(ParamKind kind, int index) const {
  for (int i = 0; i < param_count; ++i) {
    if (params[i].kind == kind && params[i].index == index) return i;
  }
  return -1;
}

const ApiOp* FindApiOp(const char* name) {
  for (const ApiOp* op : ApiOps()) {
    if (std::strcmp(op->name, name) == 0) return op;
  }
  return nullptr;
}

bool NewOutShape(const ApiOp& api, const kernel::Dims* shapes, const AttrValue* attributes, kernel::Shape* shape) {
  kernel::Dims listed[kMaxBroadcast];
  if (api.broadcast_count > kMaxBroadcast) return false;
  for (int i = 0; i < api.broadcast_count; ++i) listed[i] = shapes[api.broadcast_params[i]];
  kernel::Shape broadcast;
  const bool broadcasts = kernel::BroadcastShapes(listed, api.broadcast_count, &broadcast, nullptr);
  if (!broadcasts) broadcast.assign(listed[0].begin(), listed[0].end());
  if (api.sum_to >= 0) {
    shape->assign(shapes[api.sum_to].begin(), shapes[api.sum_to].end());
  } else {
    *shape = ShapeFor(RuleFor(api.out_shape, attributes), broadcast);
  }
  return broadcasts;
}

aclDataType NewOutDtype(const ApiOp& api, const aclDataType* dtypes) {
  aclDataType result = ACL_DT_UNDEFINED;
  int promoted = 0;
  for (int i = 0; i < api.promote_count; ++i) {
    // As the API layer promotes: the first two, then each next one with the result; an absent
    // optional input (no dtype) is left out.
    const aclDataType next = dtypes[api.promote_params[i]];
    if (next == ACL_DT_UNDEFINED) continue;
    result = promoted == 0 ? next : (promoted == 1 ? PromoteType(result, next) : PromoteType(next, result));
    ++promoted;
  }
  return result;
}

}  // namespace aclcpu
