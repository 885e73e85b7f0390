// Every rejection of aclnnMseLossBackwardGetWorkspaceSize (the table of phase one's rejections in
// docs/semantics.md, "MseLoss and MseLossOut", which covers the backward too): the documented code
// and a message naming the parameter and the values.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "support/api_support.h"

namespace {

using support::DeviceTensor;
using support::Layout;
using Shape = std::vector<int64_t>;

class Validation : public ::testing::Test {
 protected:
  void SetUp() override { support::EnsureRuntime(); }

  std::unique_ptr<DeviceTensor> Make(const Shape& shape, aclDataType dtype = ACL_FLOAT) {
    return std::make_unique<DeviceTensor>(dtype, shape, Layout::kContiguous);
  }

  // Phase one with these arguments; returns its status and keeps the message.
  aclnnStatus PhaseOne(const aclTensor* grad, const aclTensor* self, const aclTensor* target, int64_t reduction,
                       aclTensor* out) {
    uint64_t workspace = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status =
        aclnnMseLossBackwardGetWorkspaceSize(grad, self, target, reduction, out, &workspace, &executor);
    message_ = aclGetRecentErrMsg();
    if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
    return status;
  }

  void ExpectMessageHas(const std::string& text) {
    EXPECT_NE(message_.find(text), std::string::npos) << "message: " << message_;
  }

  std::string message_;
};

TEST_F(Validation, NullTensorsAndOutputs) {
  auto g = Make({4}), s = Make({4}), t = Make({4}), o = Make({4});
  EXPECT_EQ(PhaseOne(nullptr, s->get(), t->get(), 1, o->get()), ACLNN_ERR_PARAM_NULLPTR);
  ExpectMessageHas("gradOutput is null");
  EXPECT_EQ(PhaseOne(g->get(), nullptr, t->get(), 1, o->get()), ACLNN_ERR_PARAM_NULLPTR);
  ExpectMessageHas("self is null");
  EXPECT_EQ(PhaseOne(g->get(), s->get(), nullptr, 1, o->get()), ACLNN_ERR_PARAM_NULLPTR);
  ExpectMessageHas("target is null");
  EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 1, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  ExpectMessageHas("out is null");
  aclOpExecutor* executor = nullptr;
  uint64_t workspace = 0;
  EXPECT_EQ(aclnnMseLossBackwardGetWorkspaceSize(g->get(), s->get(), t->get(), 1, o->get(), nullptr, &executor),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("workspaceSize is null"), std::string::npos);
  EXPECT_EQ(aclnnMseLossBackwardGetWorkspaceSize(g->get(), s->get(), t->get(), 1, o->get(), &workspace, nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("executor is null"), std::string::npos);
  EXPECT_EQ(aclnnMseLossBackward(nullptr, 0, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
}

TEST_F(Validation, SelfAndOutDtypes) {
  for (aclDataType bad : {ACL_INT32, ACL_DOUBLE, ACL_INT8, ACL_BOOL, ACL_INT64}) {
    auto g = Make({4}, bad), s = Make({4}, bad), t = Make({4}, bad), o = Make({4});
    EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 1, o->get()), ACLNN_ERR_PARAM_INVALID);
    ExpectMessageHas("self dtype");
    ExpectMessageHas("FLOAT, FLOAT16 or BF16");
    auto g2 = Make({4}), s2 = Make({4}), t2 = Make({4}), o2 = Make({4}, bad);
    EXPECT_EQ(PhaseOne(g2->get(), s2->get(), t2->get(), 1, o2->get()), ACLNN_ERR_PARAM_INVALID);
    ExpectMessageHas("out dtype");
  }
}

TEST_F(Validation, InputDtypesMustMatchSelf) {
  auto g = Make({4}, ACL_FLOAT16), s = Make({4}), t = Make({4}), o = Make({4});
  EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 1, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("gradOutput dtype FLOAT16 differs from self dtype FLOAT");
  auto g2 = Make({4}, ACL_BF16), s2 = Make({4}, ACL_BF16), t2 = Make({4}, ACL_FLOAT16), o2 = Make({4}, ACL_BF16);
  EXPECT_EQ(PhaseOne(g2->get(), s2->get(), t2->get(), 1, o2->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("target dtype FLOAT16 differs from self dtype BF16");
}

TEST_F(Validation, ReductionOutOfRange) {
  auto g = Make({4}), s = Make({4}), t = Make({4}), o = Make({4});
  for (int64_t reduction : {int64_t{-1}, int64_t{3}, int64_t{1} << 40}) {
    EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), reduction, o->get()), ACLNN_ERR_PARAM_INVALID);
    ExpectMessageHas("reduction " + std::to_string(reduction));
  }
  for (int64_t reduction : {0, 1, 2}) EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), reduction, o->get()), 0);
}

TEST_F(Validation, MoreThanEightDims) {
  const Shape nine(9, 1), eight(8, 1);
  for (int which = 0; which < 3; ++which) {
    auto g = Make(which == 0 ? nine : eight), s = Make(which == 1 ? nine : eight), t = Make(which == 2 ? nine : eight);
    auto o = Make(nine);
    EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 1, o->get()), ACLNN_ERR_PARAM_INVALID);
    ExpectMessageHas(std::string(which == 0 ? "gradOutput" : which == 1 ? "self" : "target") + " has 9 dims");
  }
  auto g = Make(eight), s = Make(eight), t = Make(eight), o = Make(eight);
  EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 1, o->get()), ACLNN_SUCCESS) << message_;
}

TEST_F(Validation, ShapesThatDoNotBroadcast) {
  auto g = Make({2, 3}), s = Make({4, 3}), t = Make({4, 3}), o = Make({4, 3});
  EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 1, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("do not broadcast");
  ExpectMessageHas("[2,3]");
}

TEST_F(Validation, OutShapeMustBeTheBroadcastShape) {
  auto g = Make({4, 1}), s = Make({1, 3}), t = Make({3}), o = Make({4, 4});
  EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 1, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("out shape [4,4] differs from the broadcast shape [4,3]");
  auto o2 = Make({12});
  EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 1, o2->get()), ACLNN_ERR_PARAM_INVALID);
  auto o3 = Make({1, 4, 3});
  EXPECT_EQ(PhaseOne(g->get(), s->get(), t->get(), 1, o3->get()), ACLNN_ERR_PARAM_INVALID);
}

TEST_F(Validation, PrivateFormatsAreRejectedPlainOnesAccepted) {
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 1024, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  const Shape shape{2, 2, 2, 2};
  const Shape strides{8, 4, 2, 1};
  auto make = [&](aclFormat format) {
    return aclCreateTensor(shape.data(), 4, ACL_FLOAT, strides.data(), 0, format, shape.data(), 4, memory);
  };
  auto g = Make(shape), s = Make(shape), o = Make(shape);
  for (aclFormat format : {ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z, ACL_FORMAT_FRACTAL_NZ, ACL_FORMAT_NDC1HWC0,
                           ACL_FRACTAL_Z_3D, ACL_FORMAT_NC1HWC0_C04, ACL_FORMAT_UNDEFINED}) {
    aclTensor* t = make(format);
    EXPECT_EQ(PhaseOne(g->get(), s->get(), t, 1, o->get()), ACLNN_ERR_PARAM_INVALID) << format;
    ExpectMessageHas("target format");
    aclDestroyTensor(t);
  }
  for (aclFormat format : {ACL_FORMAT_ND, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC,
                           ACL_FORMAT_HWCN, ACL_FORMAT_NC, ACL_FORMAT_NCL}) {
    aclTensor* t = make(format);
    EXPECT_EQ(PhaseOne(g->get(), s->get(), t, 1, o->get()), ACLNN_SUCCESS) << format << " " << message_;
    aclDestroyTensor(t);
  }
  aclrtFree(memory);
}

TEST_F(Validation, ViewOutsideItsStorage) {
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  auto g = Make({4}), s = Make({4}), o = Make({4});
  const Shape dims{4}, storage{4}, stride2{2}, unit{1};
  aclTensor* strided =
      aclCreateTensor(dims.data(), 1, ACL_FLOAT, stride2.data(), 0, ACL_FORMAT_ND, storage.data(), 1, memory);
  EXPECT_EQ(PhaseOne(g->get(), s->get(), strided, 1, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("target view [4]");
  ExpectMessageHas("outside its storage [4]");
  aclTensor* offset =
      aclCreateTensor(dims.data(), 1, ACL_FLOAT, unit.data(), 1, ACL_FORMAT_ND, storage.data(), 1, memory);
  EXPECT_EQ(PhaseOne(g->get(), offset, s->get(), 1, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("self view");
  const Shape huge_stride{int64_t{1} << 62};
  aclTensor* overflow =
      aclCreateTensor(dims.data(), 1, ACL_FLOAT, huge_stride.data(), 0, ACL_FORMAT_ND, storage.data(), 1, memory);
  EXPECT_EQ(PhaseOne(g->get(), s->get(), overflow, 1, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("overflows");
  for (aclTensor* t : {strided, offset, overflow}) aclDestroyTensor(t);
  aclrtFree(memory);
}

TEST_F(Validation, StorageOutsideAnAllocation) {
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  auto g = Make({4}), s = Make({4}), o = Make({4});
  const Shape dims{4}, unit{1}, big_storage{8};
  // Storage of 8 floats in a 16-byte allocation.
  aclTensor* too_big =
      aclCreateTensor(dims.data(), 1, ACL_FLOAT, unit.data(), 0, ACL_FORMAT_ND, big_storage.data(), 1, memory);
  EXPECT_EQ(PhaseOne(g->get(), s->get(), too_big, 1, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("target storage");
  ExpectMessageHas("not inside one live aclrtMalloc allocation");
  // Host memory that never came from aclrtMalloc.
  std::vector<float> host(4);
  aclTensor* on_host =
      aclCreateTensor(dims.data(), 1, ACL_FLOAT, unit.data(), 0, ACL_FORMAT_ND, dims.data(), 1, host.data());
  EXPECT_EQ(PhaseOne(g->get(), s->get(), on_host, 1, o->get()), ACLNN_ERR_PARAM_INVALID);
  // A freed allocation.
  void* freed = nullptr;
  ASSERT_EQ(aclrtMalloc(&freed, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  aclTensor* dangling =
      aclCreateTensor(dims.data(), 1, ACL_FLOAT, unit.data(), 0, ACL_FORMAT_ND, dims.data(), 1, freed);
  ASSERT_EQ(aclrtFree(freed), ACL_SUCCESS);
  EXPECT_EQ(PhaseOne(g->get(), dangling, s->get(), 1, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("self storage");
  // A null data pointer.
  aclTensor* null_data =
      aclCreateTensor(dims.data(), 1, ACL_FLOAT, unit.data(), 0, ACL_FORMAT_ND, dims.data(), 1, nullptr);
  EXPECT_EQ(PhaseOne(null_data, s->get(), g->get(), 1, o->get()), ACLNN_ERR_PARAM_NULLPTR);
  ExpectMessageHas("gradOutput has a null data pointer");
  for (aclTensor* t : {too_big, on_host, dangling, null_data}) aclDestroyTensor(t);
  aclrtFree(memory);
}

TEST_F(Validation, SelfOverlappingOut) {
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  const Shape dims{2, 3}, storage{64};
  auto g = Make(dims), s = Make(dims), t = Make(dims);
  struct OutLayout {
    Shape strides;
    bool overlaps;
  };
  for (const OutLayout& layout :
       {OutLayout{{0, 1}, true}, OutLayout{{1, 0}, true}, OutLayout{{2, 1}, true}, OutLayout{{1, 1}, true},
        OutLayout{{3, 1}, false}, OutLayout{{1, 2}, false}, OutLayout{{3, 2}, false}}) {
    aclTensor* out =
        aclCreateTensor(dims.data(), 2, ACL_FLOAT, layout.strides.data(), 0, ACL_FORMAT_ND, storage.data(), 1, memory);
    const aclnnStatus status = PhaseOne(g->get(), s->get(), t->get(), 0, out);
    if (layout.overlaps) {
      EXPECT_EQ(status, ACLNN_ERR_PARAM_INVALID) << layout.strides[0] << "," << layout.strides[1];
      ExpectMessageHas("out view [2,3]");
      ExpectMessageHas("overlap");
    } else {
      EXPECT_EQ(status, ACLNN_SUCCESS) << layout.strides[0] << "," << layout.strides[1] << " " << message_;
    }
    aclDestroyTensor(out);
  }
  aclrtFree(memory);
}

TEST_F(Validation, DestroyedTensor) {
  auto g = Make({4}), s = Make({4}), o = Make({4});
  const Shape dims{4};
  aclTensor* t = aclCreateTensor(dims.data(), 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims.data(), 1, s->storage());
  ASSERT_EQ(aclDestroyTensor(t), ACLNN_SUCCESS);
  EXPECT_EQ(PhaseOne(g->get(), s->get(), t, 1, o->get()), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageHas("target is not a live aclTensor");
}

TEST_F(Validation, EmptyInputsGiveAnExecutorThatWritesNothing) {
  for (int64_t reduction : {0, 1, 2}) {
    auto g = Make({0, 3}), s = Make({0, 3}), t = Make({1, 3}), o = Make({0, 3});
    uint64_t workspace = 7;
    aclOpExecutor* executor = nullptr;
    ASSERT_EQ(
        aclnnMseLossBackwardGetWorkspaceSize(g->get(), s->get(), t->get(), reduction, o->get(), &workspace, &executor),
        ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    EXPECT_EQ(workspace, 0u);
    ASSERT_NE(executor, nullptr);
    EXPECT_EQ(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  }
  // A non-empty target broadcast against an empty self: out is empty and nothing is written.
  auto g = Make({}), s = Make({2, 0}), t = Make({2, 1}), o = Make({2, 0});
  EXPECT_EQ(support::RunMseLossBackward(g->get(), s->get(), t->get(), 1, o->get()), ACLNN_SUCCESS);
}

TEST_F(Validation, LaunchChecks) {
  auto g = Make({4}), s = Make({4}), t = Make({4}), o = Make({4});
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnMseLossBackwardGetWorkspaceSize(g->get(), s->get(), t->get(), 1, o->get(), &workspace, &executor), 0);
  aclrtStream not_a_stream = reinterpret_cast<aclrtStream>(&workspace);
  EXPECT_EQ(aclnnMseLossBackward(nullptr, 0, executor, not_a_stream), ACLNN_ERR_RUNTIME_ERROR);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("not a live stream"), std::string::npos) << aclGetRecentErrMsg();
  // The failed launch did not consume the executor.
  EXPECT_EQ(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("not a live executor"), std::string::npos);
}

}  // namespace
