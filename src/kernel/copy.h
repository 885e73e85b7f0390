// Copies of strided views into contiguous memory, planned in phase one and run at the launch: how
// the aclnn layer stages an input (ops-nn's l0op::Contiguous, or a copy of an input out overlaps),
// or casts it to the dtype its kernel computes in (l0op::Cast).
#ifndef ACLNN_CPU_KERNEL_COPY_H_
#define ACLNN_CPU_KERNEL_COPY_H_

#include "parallel.h"
#include "schedule.h"
#include "tensor_view.h"

namespace aclcpu {
namespace kernel {

struct CopyPlan {
  ElementwisePlan plan;  // source, then the contiguous copy
  int threads = 1;
  DType from = DType::kFloat32;  // the source's dtype and the copy's
  DType to = DType::kFloat32;
};

// Plans the copy of `source` (its data unused) into a contiguous tensor of its shape and dtype
// `to` (each element rounded to nearest, ties to even, as ops-nn's Cast rounds on 950: RINT; a
// widening is exact); a source stepping across its memory (transposed) is copied in blocks read
// along its contiguous dim.
CopyPlan PlanCopyToContiguous(const TensorView& source, const Platform& platform);
CopyPlan PlanCopyToContiguous(const TensorView& source, DType to, const Platform& platform);

// Runs a planned copy from source (the view's first element) to dst.
void RunCopy(const CopyPlan& copy, const char* source, char* dst, ParallelRunner& runner);

// Whether reading the view's elements in row-major order steps across its memory while another
// dim is contiguous (a transposed view): each element would come from a new cache line.
bool ReadsAcrossMemory(const TensorView& view);

}  // namespace kernel
}  // namespace aclcpu

#endif  // ACLNN_CPU_KERNEL_COPY_H_
