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
  InnerLoop loop = nullptr;  // each element read, converted and written
};

// Plans the copy of `source` (its data unused) into a contiguous tensor of its shape and dtype
// `to` (each element rounded to nearest, ties to even, as ops-nn's Cast rounds on 950: RINT; a
// widening is exact); a source stepping across its memory (transposed) is copied in blocks read
// along its contiguous dim.
CopyPlan PlanCopyToContiguous(const TensorView& source, const Platform& platform);
CopyPlan PlanCopyToContiguous(const TensorView& source, DType to, const Platform& platform);

// Plans the cast of a view of integers (dims and strides in elements; its data unused) into a
// contiguous tensor of dtype `to`, as ops-math's Cast on 950 rounds (math/cast/op_kernel/arch35/
// cast_struct.h): the integer to float32 to nearest, ties to even (RINT), then that to `to` the same
// way. That is each of its routes: INT32 and INT64 to FLOAT RINT; INT64 to FLOAT16 or BF16 and
// INT16 or INT32 to BF16 through FLOAT; BOOL, INT8 and UINT8 through FLOAT16 (exact); INT16 and INT32
// to FLOAT16 directly, RINT -- the same, as every integer below 2^24 is exact in float32 and every
// one from 65520 up becomes inf either way. A BOOL byte is read as INT8, as that Cast reads it.
CopyPlan PlanIntegerCast(IntegerType from, Dims shape, Dims strides, DType to, const Platform& platform);

// Plans the cast of a contiguous tensor of dtype `from` (its shape) into a view of a WideType
// (its strides, in elements), as ops-math's Cast widens a result: exactly, to DOUBLE, or as the
// real part of a complex number whose imaginary part is +0 (COMPLEX64 in float32, COMPLEX128 in
// double, COMPLEX32 in FLOAT16 -- from a FLOAT16 tensor only).
CopyPlan PlanWideCast(DType from, Dims shape, WideType to, Dims strides, const Platform& platform);

// Runs a planned copy from source (the view's first element) to dst.
void RunCopy(const CopyPlan& copy, const char* source, char* dst, ParallelRunner& runner);

// Whether reading the view's elements in row-major order steps across its memory while another
// dim is contiguous (a transposed view): each element would come from a new cache line.
bool ReadsAcrossMemory(const TensorView& view);

}  // namespace kernel
}  // namespace aclcpu

#endif  // ACLNN_CPU_KERNEL_COPY_H_
