// Copies of strided views into contiguous memory, planned in phase one and run at the launch: how
// the aclnn layer stages an input (ops-nn's l0op::Contiguous, or a copy of an input out overlaps).
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
};

// Plans the copy of `source` (its data unused) into a contiguous tensor of its dtype and shape; a
// source stepping across its memory (transposed) is copied in blocks read along its contiguous dim.
CopyPlan PlanCopyToContiguous(const TensorView& source, const Platform& platform);

// Runs a planned copy from source (the view's first element) to dst.
void RunCopy(const CopyPlan& copy, const char* source, char* dst, ParallelRunner& runner);

// Whether reading the view's elements in row-major order steps across its memory while another
// dim is contiguous (a transposed view): each element would come from a new cache line.
bool ReadsAcrossMemory(const TensorView& view);

}  // namespace kernel
}  // namespace aclcpu

#endif  // ACLNN_CPU_KERNEL_COPY_H_
