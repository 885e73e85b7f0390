// The reduction of the loss operators, one type from the API to the kernel: the aclnn API passes it
// as an integer (0 none, 1 mean, 2 sum), a graph node (a case file's row) as the definition's string
// attribute ("none", "mean", "sum"); each is parsed once, where it enters, and the layers below take
// the type.
#ifndef ACLNN_CPU_OPS_LOSS_COMMON_LOSS_REDUCTION_H_
#define ACLNN_CPU_OPS_LOSS_COMMON_LOSS_REDUCTION_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace aclcpu {
namespace loss {

enum class Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2 };  // the aclnn API's numbering

// For messages: the strings a definition accepts, and the integers the API accepts.
constexpr const char kReductionNames[] = "none, mean or sum";
constexpr const char kReductionNumbers[] = "0 (none), 1 (mean) or 2 (sum)";

inline const char* ReductionName(Reduction reduction) {
  switch (reduction) {
    case Reduction::kNone:
      return "none";
    case Reduction::kMean:
      return "mean";
    case Reduction::kSum:
      return "sum";
  }
  return "";
}

// Whether the API's number names mean or sum (the reductions to one value).
inline bool IsMeanOrSum(int64_t value) { return value == 1 || value == 2; }

inline bool ReductionFromApi(int64_t value, Reduction* reduction) {
  if (value < 0 || value > 2) return false;
  *reduction = static_cast<Reduction>(value);
  return true;
}

inline bool ReductionFromName(const std::string& name, Reduction* reduction) {
  for (Reduction r : {Reduction::kNone, Reduction::kMean, Reduction::kSum}) {
    if (std::string_view(name) == ReductionName(r)) {
      *reduction = r;
      return true;
    }
  }
  return false;
}

}  // namespace loss
}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_LOSS_COMMON_LOSS_REDUCTION_H_
