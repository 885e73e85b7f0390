// Every rejection of aclnnMseLossGetWorkspaceSize and aclnnMseLossOutGetWorkspaceSize (the table of
// phase one's rejections in docs/semantics.md, "MseLoss and MseLossOut"), each with its code and a message naming the
// parameter and the values, in the documented order of the checks; then the launches' own rejections (null, consumed or
// destroyed executor, a workspace too small or null, a dead stream, memory freed between the phases).
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "support/api_support.h"
#include "support/expect_error.h"

namespace {

using support::DeviceTensor;
using support::Layout;
using Shape = std::vector<int64_t>;

// One of the two APIs.
struct Api {
  bool axis0;
  const char* phase_one;  // the name its messages start with
  const char* launch;
};
const Api kApis[] = {{false, "aclnnMseLossGetWorkspaceSize", "aclnnMseLoss"},
                     {true, "aclnnMseLossOutGetWorkspaceSize", "aclnnMseLossOut"}};

aclnnStatus GetWorkspaceSize(const Api& api, const aclTensor* self, const aclTensor* target, int64_t reduction,
                             aclTensor* out, uint64_t* workspace_size, aclOpExecutor** executor) {
  return api.axis0 ? aclnnMseLossOutGetWorkspaceSize(self, target, reduction, out, workspace_size, executor)
                   : aclnnMseLossGetWorkspaceSize(self, target, reduction, out, workspace_size, executor);
}

aclnnStatus Launch(const Api& api, void* workspace, uint64_t workspace_size, aclOpExecutor* executor,
                   aclrtStream stream = nullptr) {
  return api.axis0 ? aclnnMseLossOut(workspace, workspace_size, executor, stream)
                   : aclnnMseLoss(workspace, workspace_size, executor, stream);
}

// Phase one; on success the executor is destroyed (the test asks for the status and the message).
aclnnStatus PhaseOne(const Api& api, const aclTensor* self, const aclTensor* target, int64_t reduction,
                     aclTensor* out) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = GetWorkspaceSize(api, self, target, reduction, out, &workspace_size, &executor);
  if (status == ACLNN_SUCCESS) {
    EXPECT_NE(executor, nullptr);
    aclDestroyAclOpExecutor(executor);
  } else {
    EXPECT_EQ(executor, nullptr);
  }
  return status;
}

// out's shape for a valid call: the broadcast shape, without dim 0, or 0-d.
Shape OutShape(const Api& api, int64_t reduction, const Shape& broadcast) {
  if (reduction == 0) return broadcast;
  if (api.axis0) return broadcast.empty() ? broadcast : Shape(broadcast.begin() + 1, broadcast.end());
  return {};
}

class MseLossValidation : public ::testing::Test {
 protected:
  void SetUp() override { support::EnsureRuntime(); }

  std::unique_ptr<DeviceTensor> Make(const Shape& shape, aclDataType dtype = ACL_FLOAT) {
    return std::make_unique<DeviceTensor>(dtype, shape, Layout::kContiguous);
  }

  // A tensor on memory of `bytes` of this test's own (freed when the test ends, after the tensor).
  aclTensor* Raw(const Shape& dims, const Shape& strides, int64_t offset, const Shape& storage, aclFormat format,
                 void* data, aclDataType dtype = ACL_FLOAT) {
    aclTensor* t = aclCreateTensor(dims.data(), dims.size(), dtype, strides.data(), offset, format, storage.data(),
                                   storage.size(), data);
    EXPECT_NE(t, nullptr) << aclGetRecentErrMsg();
    raw_.emplace_back(t, [](aclTensor* p) { aclDestroyTensor(p); });
    return t;
  }
  void* Memory(size_t bytes) {
    void* memory = nullptr;
    EXPECT_EQ(aclrtMalloc(&memory, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    memory_.emplace_back(memory, [](void* p) { aclrtFree(p); });
    return memory;
  }

 private:
  std::vector<std::unique_ptr<void, void (*)(void*)>> memory_;  // destroyed after raw_
  std::vector<std::unique_ptr<aclTensor, void (*)(aclTensor*)>> raw_;
};

TEST_F(MseLossValidation, NullTensorsAndOutputPointers) {
  for (const Api& api : kApis) {
    auto s = Make({4}), t = Make({4}), o = Make({});
    EXPECT_FAILS(PhaseOne(api, nullptr, t->get(), 1, o->get()), ACLNN_ERR_PARAM_NULLPTR,
                 std::string(api.phase_one) + ": self is null");
    EXPECT_FAILS(PhaseOne(api, s->get(), nullptr, 1, o->get()), ACLNN_ERR_PARAM_NULLPTR,
                 std::string(api.phase_one) + ": target is null");
    EXPECT_FAILS(PhaseOne(api, s->get(), t->get(), 1, nullptr), ACLNN_ERR_PARAM_NULLPTR,
                 std::string(api.phase_one) + ": out is null");
    // The first null in parameter order is named.
    EXPECT_FAILS(PhaseOne(api, nullptr, nullptr, 1, nullptr), ACLNN_ERR_PARAM_NULLPTR, "self is null");
    EXPECT_FAILS(PhaseOne(api, s->get(), nullptr, 1, nullptr), ACLNN_ERR_PARAM_NULLPTR, "target is null");
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    EXPECT_FAILS(GetWorkspaceSize(api, s->get(), t->get(), 1, o->get(), nullptr, &executor), ACLNN_ERR_PARAM_NULLPTR,
                 std::string(api.phase_one) + ": workspaceSize is null");
    EXPECT_FAILS(GetWorkspaceSize(api, s->get(), t->get(), 1, o->get(), &workspace_size, nullptr),
                 ACLNN_ERR_PARAM_NULLPTR, std::string(api.phase_one) + ": executor is null");
    EXPECT_EQ(executor, nullptr);
    // A null tensor comes before a null output pointer.
    EXPECT_FAILS(GetWorkspaceSize(api, s->get(), nullptr, 1, o->get(), nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR,
                 "target is null");
    // A null data pointer of a non-empty tensor is 161001 too (found with the memory checks).
    const Shape dims{4}, unit{1};
    aclTensor* null_data = Raw(dims, unit, 0, dims, ACL_FORMAT_ND, nullptr);
    EXPECT_FAILS(PhaseOne(api, null_data, t->get(), 1, o->get()), ACLNN_ERR_PARAM_NULLPTR,
                 "self has a null data pointer");
    // ... but an empty one may have none.
    const Shape empty{0};
    aclTensor* empty_null = Raw(empty, unit, 0, empty, ACL_FORMAT_ND, nullptr);
    auto empty_out = Make(OutShape(api, 0, {0}));
    EXPECT_EQ(PhaseOne(api, empty_null, t->get(), 0, empty_out->get()), ACLNN_ERR_PARAM_INVALID);  // [0] vs [4]
    auto t0 = Make({1});
    EXPECT_EQ(PhaseOne(api, empty_null, t0->get(), 0, empty_out->get()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  }
}

TEST_F(MseLossValidation, DtypesOfSelfTargetAndOut) {
  for (const Api& api : kApis) {
    struct Bad {
      aclDataType dtype;
      const char* name;
    };
    for (const Bad& b :
         {Bad{ACL_INT32, "INT32"}, Bad{ACL_DOUBLE, "DOUBLE"}, Bad{ACL_INT8, "INT8"}, Bad{ACL_UINT8, "UINT8"},
          Bad{ACL_BOOL, "BOOL"}, Bad{ACL_INT64, "INT64"}, Bad{ACL_INT16, "INT16"}, Bad{ACL_COMPLEX64, "COMPLEX64"},
          Bad{ACL_HIFLOAT8, "HIFLOAT8"}, Bad{ACL_FLOAT8_E4M3FN, "FLOAT8_E4M3FN"}}) {
      const aclDataType bad = b.dtype;
      const std::string name = b.name;
      auto good = Make({4}), bad_tensor = Make({4}, bad), o = Make({}), bad_out = Make({}, bad);
      EXPECT_FAILS(PhaseOne(api, bad_tensor->get(), good->get(), 1, o->get()), ACLNN_ERR_PARAM_INVALID,
                   std::string(api.phase_one) + ": self dtype " + name +
                       " is not one the operator computes on Ascend910B3; expected FLOAT, FLOAT16 or BF16");
      EXPECT_FAILS(PhaseOne(api, good->get(), bad_tensor->get(), 1, o->get()), ACLNN_ERR_PARAM_INVALID,
                   "target dtype " + name + " is not one the operator computes");
      EXPECT_FAILS(PhaseOne(api, good->get(), good->get(), 1, bad_out->get()), ACLNN_ERR_PARAM_INVALID,
                   "out dtype " + name + " is not one the operator computes");
    }
    // Every triple of the three dtypes is accepted: self and target need not agree, nor out.
    const aclDataType dtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
    for (aclDataType s : dtypes) {
      for (aclDataType t : dtypes) {
        for (aclDataType o : dtypes) {
          auto self = Make({2, 3}, s), target = Make({3}, t);
          for (int64_t reduction : {0, 1, 2}) {
            auto out = Make(OutShape(api, reduction, {2, 3}), o);
            EXPECT_EQ(PhaseOne(api, self->get(), target->get(), reduction, out->get()), ACLNN_SUCCESS)
                << aclGetRecentErrMsg();
          }
        }
      }
    }
  }
}

TEST_F(MseLossValidation, ReductionOutOfRange) {
  for (const Api& api : kApis) {
    auto s = Make({4}), t = Make({4}), o = Make({4}), scalar = Make({});
    for (int64_t reduction : {int64_t{-1}, int64_t{3}, int64_t{1} << 40, INT64_MIN, INT64_MAX}) {
      EXPECT_FAILS(PhaseOne(api, s->get(), t->get(), reduction, o->get()), ACLNN_ERR_PARAM_INVALID,
                   std::string(api.phase_one) + ": reduction " + std::to_string(reduction) +
                       " is invalid; expected 0 (none), 1 (mean) or 2 (sum)");
    }
    EXPECT_EQ(PhaseOne(api, s->get(), t->get(), 0, o->get()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    for (int64_t reduction : {1, 2}) {
      EXPECT_EQ(PhaseOne(api, s->get(), t->get(), reduction, scalar->get()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    }
  }
}

TEST_F(MseLossValidation, MoreThanEightDims) {
  const Shape nine(9, 1), eight(8, 1), seven(7, 1);
  for (const Api& api : kApis) {
    for (int which = 0; which < 2; ++which) {
      auto s = Make(which == 0 ? nine : eight), t = Make(which == 1 ? nine : eight);
      auto o = Make(nine), scalar = Make({});
      EXPECT_FAILS(PhaseOne(api, s->get(), t->get(), 0, o->get()), ACLNN_ERR_PARAM_INVALID,
                   std::string(api.phase_one) + ": " + (which == 0 ? "self" : "target") +
                       " has 9 dims; at most 8 are supported");
      EXPECT_FAILS(PhaseOne(api, s->get(), t->get(), 2, scalar->get()), ACLNN_ERR_PARAM_INVALID, "has 9 dims");
    }
    auto s = Make(eight), t = Make(eight), o = Make(eight), scalar = Make({}), reduced = Make(seven);
    EXPECT_EQ(PhaseOne(api, s->get(), t->get(), 0, o->get()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(PhaseOne(api, s->get(), t->get(), 1, api.axis0 ? reduced->get() : scalar->get()), ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
  }
}

TEST_F(MseLossValidation, ShapesThatDoNotBroadcast) {
  for (const Api& api : kApis) {
    auto s = Make({2, 3}), t = Make({4, 3}), o = Make({4, 3});
    EXPECT_FAILS(PhaseOne(api, s->get(), t->get(), 0, o->get()), ACLNN_ERR_PARAM_INVALID,
                 std::string(api.phase_one) + ": self [2,3] and target [4,3] do not broadcast");
    auto s2 = Make({5}), t2 = Make({3, 1, 4}), scalar = Make({});
    EXPECT_FAILS(PhaseOne(api, s2->get(), t2->get(), 1, scalar->get()), ACLNN_ERR_PARAM_INVALID,
                 "self [5] and target [3,1,4] do not broadcast");
    auto s3 = Make({0}), t3 = Make({3}), o3 = Make({0});  // 0 does not stretch to 3
    EXPECT_FAILS(PhaseOne(api, s3->get(), t3->get(), 0, o3->get()), ACLNN_ERR_PARAM_INVALID,
                 "self [0] and target [3] do not broadcast");
  }
}

TEST_F(MseLossValidation, NoneOutMustHaveTheBroadcastShape) {
  for (const Api& api : kApis) {
    auto s = Make({4, 1}), t = Make({3});
    for (const Shape& wrong : {Shape{4, 4}, Shape{12}, Shape{1, 4, 3}, Shape{3}, Shape{}}) {
      auto o = Make(wrong);
      std::string dims = "[";
      for (size_t i = 0; i < wrong.size(); ++i) dims += (i ? "," : "") + std::to_string(wrong[i]);
      EXPECT_FAILS(PhaseOne(api, s->get(), t->get(), 0, o->get()), ACLNN_ERR_PARAM_INVALID,
                   std::string(api.phase_one) + ": out shape " + dims + "] differs from the broadcast shape [4,3]");
    }
    auto o = Make({4, 3});
    EXPECT_EQ(PhaseOne(api, s->get(), t->get(), 0, o->get()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  }
}

TEST_F(MseLossValidation, MseLossMeanAndSumOutMustBeZeroD) {
  const Api& api = kApis[0];
  auto s = Make({4, 1}), t = Make({3}), zero_d = Make({});
  for (int64_t reduction : {1, 2}) {
    const std::string name = reduction == 1 ? "mean" : "sum";
    for (const Shape& wrong : {Shape{1}, Shape{1, 1}, Shape{4, 3}, Shape{3}}) {
      auto o = Make(wrong);
      EXPECT_FAILS(PhaseOne(api, s->get(), t->get(), reduction, o->get()), ACLNN_ERR_PARAM_INVALID,
                   "aclnnMseLossGetWorkspaceSize: out shape",
                   "differs from the 0-d shape of reduction " + name + " []");
    }
    EXPECT_EQ(PhaseOne(api, s->get(), t->get(), reduction, zero_d->get()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  }
}

TEST_F(MseLossValidation, MseLossOutMeanAndSumOutIsTheBroadcastShapeWithoutDimZero) {
  const Api& api = kApis[1];
  for (int64_t reduction : {1, 2}) {
    auto s = Make({4, 1, 5}), t = Make({3, 1});  // broadcast [4,3,5]
    for (const Shape& wrong : {Shape{}, Shape{4, 3, 5}, Shape{4, 3}, Shape{1, 3, 5}, Shape{15}, Shape{5, 3}}) {
      auto o = Make(wrong);
      EXPECT_FAILS(PhaseOne(api, s->get(), t->get(), reduction, o->get()), ACLNN_ERR_PARAM_INVALID,
                   "aclnnMseLossOutGetWorkspaceSize: out shape",
                   "differs from the broadcast shape without dim 0 [3,5]");
    }
    auto o = Make({3, 5});
    EXPECT_EQ(PhaseOne(api, s->get(), t->get(), reduction, o->get()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    // A 1-d broadcast shape: out is 0-d; a 0-d one: 0-d too (dim 0 of nothing is nothing).
    auto s1 = Make({4}), t1 = Make({}), one = Make({1}), zero_d = Make({});
    EXPECT_FAILS(PhaseOne(api, s1->get(), t1->get(), reduction, one->get()), ACLNN_ERR_PARAM_INVALID,
                 "out shape [1] differs from the broadcast shape without dim 0 []");
    EXPECT_EQ(PhaseOne(api, s1->get(), t1->get(), reduction, zero_d->get()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(PhaseOne(api, t1->get(), t1->get(), reduction, zero_d->get()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_FAILS(PhaseOne(api, t1->get(), t1->get(), reduction, one->get()), ACLNN_ERR_PARAM_INVALID,
                 "out shape [1] differs from the broadcast shape without dim 0 []");
  }
}

TEST_F(MseLossValidation, PrivateFormatsAreRejectedPlainOnesAccepted) {
  for (const Api& api : kApis) {
    void* memory = Memory(1024);
    const Shape shape{2, 2, 2, 2}, strides{8, 4, 2, 1};
    auto s = Make(shape), t = Make(shape), o = Make(shape);
    for (int which = 0; which < 3; ++which) {
      for (aclFormat format : {ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z, ACL_FORMAT_FRACTAL_NZ, ACL_FORMAT_NDC1HWC0,
                               ACL_FRACTAL_Z_3D, ACL_FORMAT_NC1HWC0_C04, ACL_FORMAT_UNDEFINED}) {
        aclTensor* raw = Raw(shape, strides, 0, shape, format, memory);
        const char* name = which == 0 ? "self" : which == 1 ? "target" : "out";
        EXPECT_FAILS(
            PhaseOne(api, which == 0 ? raw : s->get(), which == 1 ? raw : t->get(), 0, which == 2 ? raw : o->get()),
            ACLNN_ERR_PARAM_INVALID, std::string(api.phase_one) + ": " + name + " format",
            "is a private NPU layout; use ND (or a plain layout read as ND)");
      }
    }
    for (aclFormat format : {ACL_FORMAT_ND, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC,
                             ACL_FORMAT_HWCN, ACL_FORMAT_NC, ACL_FORMAT_NCL}) {
      aclTensor* raw = Raw(shape, strides, 0, shape, format, memory);
      EXPECT_EQ(PhaseOne(api, s->get(), raw, 0, o->get()), ACLNN_SUCCESS) << format << " " << aclGetRecentErrMsg();
      EXPECT_EQ(PhaseOne(api, raw, t->get(), 0, o->get()), ACLNN_SUCCESS) << format << " " << aclGetRecentErrMsg();
    }
  }
}

TEST_F(MseLossValidation, ViewsOutsideTheirStorage) {
  for (const Api& api : kApis) {
    void* memory = Memory(4096);
    auto s = Make({4}), scalar = Make({});
    const Shape dims{4}, storage{4}, stride2{2}, unit{1}, huge_stride{int64_t{1} << 62};
    aclTensor* strided = Raw(dims, stride2, 0, storage, ACL_FORMAT_ND, memory);
    EXPECT_FAILS(PhaseOne(api, s->get(), strided, 1, scalar->get()), ACLNN_ERR_PARAM_INVALID,
                 std::string(api.phase_one) + ": target view [4]", "outside its storage [4]");
    aclTensor* offset = Raw(dims, unit, 1, storage, ACL_FORMAT_ND, memory);
    EXPECT_FAILS(PhaseOne(api, offset, s->get(), 1, scalar->get()), ACLNN_ERR_PARAM_INVALID, "self view [4]",
                 "and offset 1", "outside its storage");
    aclTensor* overflow = Raw(dims, huge_stride, 0, storage, ACL_FORMAT_ND, memory);
    EXPECT_FAILS(PhaseOne(api, s->get(), overflow, 1, scalar->get()), ACLNN_ERR_PARAM_INVALID, "target view",
                 "overflows int64");
    // out too: a 0-d out at an offset past its storage.
    const Shape none{}, one{1};
    aclTensor* out_past = Raw(none, none, 1, one, ACL_FORMAT_ND, memory);
    EXPECT_FAILS(PhaseOne(api, s->get(), s->get(), 2, out_past), ACLNN_ERR_PARAM_INVALID, "out view []",
                 "outside its storage [1]");
  }
}

TEST_F(MseLossValidation, StorageOutsideALiveAllocation) {
  for (const Api& api : kApis) {
    void* memory = Memory(16);
    auto s = Make({4}), o = Make({4});
    const Shape dims{4}, unit{1}, big_storage{8};
    aclTensor* too_big = Raw(dims, unit, 0, big_storage, ACL_FORMAT_ND, memory);  // 32 bytes in 16
    EXPECT_FAILS(PhaseOne(api, s->get(), too_big, 0, o->get()), ACLNN_ERR_PARAM_INVALID,
                 std::string(api.phase_one) + ": target storage at " + support::PtrText(memory) + " of 32 bytes",
                 "is not inside one live aclrtMalloc allocation");
    std::vector<float> host(4);
    aclTensor* on_host = Raw(dims, unit, 0, dims, ACL_FORMAT_ND, host.data());
    EXPECT_FAILS(PhaseOne(api, on_host, s->get(), 0, o->get()), ACLNN_ERR_PARAM_INVALID, "self storage",
                 "is not inside one live aclrtMalloc allocation");
    void* freed = nullptr;
    ASSERT_EQ(aclrtMalloc(&freed, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    aclTensor* dangling = Raw(dims, unit, 0, dims, ACL_FORMAT_ND, freed);
    ASSERT_EQ(aclrtFree(freed), ACL_SUCCESS);
    EXPECT_FAILS(PhaseOne(api, s->get(), s->get(), 0, dangling), ACLNN_ERR_PARAM_INVALID, "out storage",
                 "is not inside one live aclrtMalloc allocation");
  }
}

TEST_F(MseLossValidation, SelfOverlappingOut) {
  for (const Api& api : kApis) {
    void* memory = Memory(4096);
    const Shape dims{2, 3}, storage{64};
    struct OutLayout {
      Shape strides;
      bool overlaps;
    };
    // Reduction none: out [2,3]. MseLossOut's mean and sum: out [2,3] of a broadcast [5,2,3].
    auto s = Make(dims), t = Make(dims), s3 = Make({5, 2, 3});
    for (const OutLayout& layout :
         {OutLayout{{0, 1}, true}, OutLayout{{1, 0}, true}, OutLayout{{2, 1}, true}, OutLayout{{1, 1}, true},
          OutLayout{{3, 1}, false}, OutLayout{{1, 2}, false}, OutLayout{{3, 2}, false}}) {
      aclTensor* out = Raw(dims, layout.strides, 0, storage, ACL_FORMAT_ND, memory);
      for (int64_t reduction : {0, 1, 2}) {
        if (reduction != 0 && !api.axis0) continue;  // MseLoss's 0-d out cannot overlap itself
        const aclTensor* self = reduction == 0 ? s->get() : s3->get();
        const aclnnStatus status = PhaseOne(api, self, t->get(), reduction, out);
        if (layout.overlaps) {
          EXPECT_FAILS(status, ACLNN_ERR_PARAM_INVALID, std::string(api.phase_one) + ": out view [2,3] with strides",
                       "has elements that overlap each other");
        } else {
          EXPECT_EQ(status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
        }
      }
    }
    // A dim of size 1 may have any stride: with the others row-major the view is contiguous.
    const Shape unit_dims{2, 1, 3};
    auto su = Make(unit_dims), tu = Make(unit_dims);
    aclTensor* unit_out = Raw(unit_dims, {3, 99, 1}, 0, storage, ACL_FORMAT_ND, memory);
    EXPECT_EQ(PhaseOne(api, su->get(), tu->get(), 0, unit_out), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    aclTensor* unit_overlapping = Raw(unit_dims, {1, 99, 1}, 0, storage, ACL_FORMAT_ND, memory);
    EXPECT_FAILS(PhaseOne(api, su->get(), tu->get(), 0, unit_overlapping), ACLNN_ERR_PARAM_INVALID,
                 std::string(api.phase_one) + ": out view [2,1,3] with strides",
                 "has elements that overlap each other");
    // An empty out cannot overlap itself, whatever its strides.
    const Shape empty{0, 3}, zero_strides{0, 0};
    aclTensor* empty_out = Raw(empty, zero_strides, 0, storage, ACL_FORMAT_ND, memory);
    auto se = Make(empty), te = Make({3});
    EXPECT_EQ(PhaseOne(api, se->get(), te->get(), 0, empty_out), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  }
}

TEST_F(MseLossValidation, DestroyedTensors) {
  for (const Api& api : kApis) {
    for (int which = 0; which < 3; ++which) {
      auto s = Make({4}), t = Make({4}), o = Make({4});
      const Shape dims{4};
      aclTensor* dead =
          aclCreateTensor(dims.data(), 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims.data(), 1, s->storage());
      ASSERT_EQ(aclDestroyTensor(dead), ACLNN_SUCCESS);
      const char* name = which == 0 ? "self" : which == 1 ? "target" : "out";
      EXPECT_FAILS(
          PhaseOne(api, which == 0 ? dead : s->get(), which == 1 ? dead : t->get(), 0, which == 2 ? dead : o->get()),
          ACLNN_ERR_PARAM_INVALID,
          std::string(api.phase_one) + ": " + name + " is not a live aclTensor (destroyed, or never created)");
    }
  }
}

// An empty view's offset is never checked (nothing of it is read or written), so it may be any
// value, even one whose byte offset overflows int64: phase one and the launch must not compute it.
// (Found by the fuzzer: UndefinedBehaviorSanitizer, signed overflow in the first element's address.)
TEST_F(MseLossValidation, AnEmptyViewMayHaveAnyOffset) {
  void* memory = Memory(64);
  const Shape empty{0, 3}, strides{3, 1}, storage{1};
  for (int64_t offset : {INT64_MAX / 3, INT64_MAX, int64_t{1} << 62}) {
    aclTensor* self = Raw(empty, strides, offset, storage, ACL_FORMAT_ND, memory);
    auto target = Make({1, 3});
    for (const Api& api : kApis) {
      for (int64_t reduction : {0, 1, 2}) {
        auto out = Make(OutShape(api, reduction, empty));
        EXPECT_EQ(support::RunMseLoss(self, target->get(), reduction, out->get(), api.axis0), ACLNN_SUCCESS)
            << api.launch << " reduction " << reduction << " offset " << offset << ": " << aclGetRecentErrMsg();
      }
    }
    auto grad = Make({1, 3}), grad_out = Make(empty);
    EXPECT_EQ(support::RunMseLossBackward(grad->get(), self, target->get(), 1, grad_out->get()), ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    EXPECT_EQ(support::RunMseLossBackward(self, target->get(), target->get(), 1, grad_out->get()), ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
  }
}

// Nearly INT64_MAX elements from one stored value (zero strides): a valid call, planned without
// overflow; its workspace holds the partial sums of 2^49 chunks (not launched here).
TEST_F(MseLossValidation, AReductionOfNearlyInt64MaxElementsIsPlanned) {
  void* memory = Memory(64);
  const int64_t big = (int64_t{1} << 62) - 1;
  const Shape one{1}, zero_strides{0, 0};
  aclTensor* self = Raw({2, big}, zero_strides, 0, one, ACL_FORMAT_ND, memory);
  aclTensor* target = Raw({}, {}, 1, {2}, ACL_FORMAT_ND, memory);
  auto scalar = Make({});
  // ND: MSELossV2, its cores' lanes kept without a workspace; NCHW: MseLoss V1, our reduction.
  aclTensor* self_nchw = Raw({2, big}, zero_strides, 0, one, ACL_FORMAT_NCHW, memory);
  aclTensor* target_nchw = Raw({}, {}, 1, {2}, ACL_FORMAT_NCHW, memory);
  for (int64_t reduction : {1, 2}) {
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    ASSERT_EQ(aclnnMseLossGetWorkspaceSize(self, target, reduction, scalar->get(), &workspace_size, &executor),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    EXPECT_EQ(workspace_size, 0u);
    aclDestroyAclOpExecutor(executor);
    ASSERT_EQ(
        aclnnMseLossGetWorkspaceSize(self_nchw, target_nchw, reduction, scalar->get(), &workspace_size, &executor),
        ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    EXPECT_EQ(workspace_size, uint64_t{1} << 56);  // 2^49 chunks x 16 columns x 8 bytes
    aclDestroyAclOpExecutor(executor);
  }
  aclTensor* rows = Raw({big, 2}, zero_strides, 0, one, ACL_FORMAT_ND, memory);
  auto out = Make({2});
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnMseLossOutGetWorkspaceSize(rows, target, 1, out->get(), &workspace_size, &executor), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(workspace_size, uint64_t{1} << 56);  // 2^52 chunks x 2 columns x 8 bytes
  aclDestroyAclOpExecutor(executor);
}

// Inputs that each hold few elements (zero strides) but broadcast to more than int64 counts:
// refused after the broadcast (the backward refuses its out of that shape; a reduction's out is
// small). (Found by the fuzzer: UBSan, signed overflow counting the broadcast's elements.)
TEST_F(MseLossValidation, ABroadcastOfMoreElementsThanInt64Counts) {
  void* memory = Memory(64);
  const int64_t k2Pow62 = int64_t{1} << 62;
  const Shape one{1};
  aclTensor* self = Raw({k2Pow62}, {0}, 0, one, ACL_FORMAT_ND, memory);
  aclTensor* target = Raw({2, 1}, {1, 1}, 0, {2}, ACL_FORMAT_ND, memory);
  auto scalar = Make({}), row = Make({1});
  for (const Api& api : kApis) {
    for (int64_t reduction : {0, 1, 2}) {
      EXPECT_FAILS(PhaseOne(api, self, target, reduction, api.axis0 ? row->get() : scalar->get()),
                   ACLNN_ERR_PARAM_INVALID,
                   std::string(api.phase_one) +
                       ": self [4611686018427387904] and target [2,1] broadcast to "
                       "[2,4611686018427387904], whose element count overflows int64");
    }
    // 2^62 elements still count: planned (not launched).
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    ASSERT_EQ(GetWorkspaceSize(api, self, self, 1, scalar->get(), &workspace_size, &executor), ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    aclDestroyAclOpExecutor(executor);
  }
}

// An empty broadcast whose other dims multiply past int64 ([X, X, 0] from [X, 1, 0] and [1, X, 0]):
// valid, and empty: the mean of nothing is NaN, the sum 0, and the other outs are written nothing.
// (Found by the fuzzer: UBSan, signed overflow counting the elements of such a shape in the tiling.)
TEST_F(MseLossValidation, AnEmptyBroadcastWhoseOtherDimsOverflow) {
  void* memory = Memory(64);
  ASSERT_EQ(aclrtMemset(memory, 64, 0x5a, 64), ACL_SUCCESS);
  const int64_t big = int64_t{1} << 40;
  const Shape one{1};
  aclTensor* self = Raw({big, 1, 0}, {0, 0, 0}, 0, one, ACL_FORMAT_ND, memory);
  aclTensor* target = Raw({1, big, 0}, {0, 0, 0}, 0, one, ACL_FORMAT_ND, memory);
  aclTensor* losses = Raw({big, big, 0}, {0, 0, 0}, 0, one, ACL_FORMAT_ND, memory);
  aclTensor* rows = Raw({big, 0}, {0, 0}, 0, one, ACL_FORMAT_ND, memory);
  for (const Api& api : kApis) {
    for (int64_t reduction : {0, 1, 2}) {
      auto scalar = Make({});
      aclTensor* out = reduction == 0 ? losses : (api.axis0 ? rows : scalar->get());
      ASSERT_EQ(support::RunMseLoss(self, target, reduction, out, api.axis0), ACLNN_SUCCESS)
          << api.launch << " reduction " << reduction << ": " << aclGetRecentErrMsg();
      if (!api.axis0 && reduction != 0) {
        const uint32_t bits = scalar->Read().at(0);
        EXPECT_EQ(bits, reduction == 1 ? 0x7fc00000u : 0u) << "reduction " << reduction;
      }
      std::vector<unsigned char> bytes(64);  // the inputs' and the empty outs' memory: untouched
      ASSERT_EQ(aclrtMemcpy(bytes.data(), bytes.size(), memory, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
      EXPECT_EQ(bytes, std::vector<unsigned char>(64, 0x5a)) << api.launch << " reduction " << reduction;
    }
  }
}

// An input of 2^40 elements (one stored value) that broadcasts with an empty one to nothing: the
// mean is NaN, the sum 0, the "none" loss empty. (The fuzzer's harness no longer launches such
// calls: its golden would read every element of the large input.)
TEST_F(MseLossValidation, AnEmptyBroadcastOfALargeInput) {
  void* memory = Memory(64);
  const int64_t big = int64_t{1} << 40;
  const Shape one{1};
  aclTensor* large = Raw({big}, {0}, 0, one, ACL_FORMAT_ND, memory);
  aclTensor* empty = Raw({0, 1}, {1, 1}, 0, one, ACL_FORMAT_ND, memory);
  aclTensor* losses = Raw({0, big}, {0, 0}, 0, one, ACL_FORMAT_ND, memory);
  for (int64_t reduction : {0, 1, 2}) {
    auto scalar = Make({});
    ASSERT_EQ(support::RunMseLoss(large, empty, reduction, reduction == 0 ? losses : scalar->get(), false),
              ACLNN_SUCCESS)
        << "reduction " << reduction << ": " << aclGetRecentErrMsg();
    if (reduction != 0) {
      EXPECT_EQ(scalar->Read().at(0), reduction == 1 ? 0x7fc00000u : 0u) << reduction;
    }
  }
}

// The checks run in the order docs/semantics.md's table gives: nulls, dtypes, reduction, dims,
// broadcast, out shape, formats, memory -- ops-nn's CheckParams order
// (loss/mse_loss/op_api/aclnn_mse_loss.cpp: nulls, dtypes, reduction, shapes; it only warns of a
// format), then our own checks of formats and memory. Each call below has two faults; the earlier one is reported.
TEST_F(MseLossValidation, ChecksInTheDocumentedOrder) {
  for (const Api& api : kApis) {
    void* memory = Memory(64);
    auto good = Make({4}), scalar = Make({}), int_tensor = Make({4}, ACL_INT32), nine = Make(Shape(9, 1));
    auto other = Make({3}), wrong_out = Make({7});
    const Shape dims{4}, unit{1}, big_storage{100};
    aclTensor* private_format = Raw(dims, unit, 0, dims, ACL_FORMAT_NC1HWC0, memory);
    aclTensor* outside = Raw(dims, unit, 0, big_storage, ACL_FORMAT_ND, memory);
    // null before dtype
    EXPECT_FAILS(PhaseOne(api, int_tensor->get(), nullptr, 1, scalar->get()), ACLNN_ERR_PARAM_NULLPTR,
                 "target is null");
    // dtype before reduction
    EXPECT_FAILS(PhaseOne(api, good->get(), int_tensor->get(), 7, scalar->get()), ACLNN_ERR_PARAM_INVALID,
                 "target dtype INT32");
    // reduction before dims
    EXPECT_FAILS(PhaseOne(api, nine->get(), good->get(), 7, scalar->get()), ACLNN_ERR_PARAM_INVALID, "reduction 7");
    // dims before broadcast
    EXPECT_FAILS(PhaseOne(api, nine->get(), other->get(), 1, scalar->get()), ACLNN_ERR_PARAM_INVALID,
                 "self has 9 dims");
    // broadcast before out shape
    EXPECT_FAILS(PhaseOne(api, good->get(), other->get(), 1, wrong_out->get()), ACLNN_ERR_PARAM_INVALID,
                 "do not broadcast");
    // out shape before formats
    EXPECT_FAILS(PhaseOne(api, private_format, good->get(), 1, wrong_out->get()), ACLNN_ERR_PARAM_INVALID,
                 "out shape [7]");
    // formats before memory
    EXPECT_FAILS(PhaseOne(api, outside, private_format, 1, scalar->get()), ACLNN_ERR_PARAM_INVALID, "target format");
    // memory last: with everything else right, it is reported.
    EXPECT_FAILS(PhaseOne(api, outside, good->get(), 1, scalar->get()), ACLNN_ERR_PARAM_INVALID, "self storage");
    // An invalid out dtype comes before a wrong out shape and a bad reduction.
    auto int_out = Make({7}, ACL_INT32);
    EXPECT_FAILS(PhaseOne(api, good->get(), good->get(), 9, int_out->get()), ACLNN_ERR_PARAM_INVALID,
                 "out dtype INT32");
  }
}

// ---- the launch ------------------------------------------------------------------------------

// Phase one of a valid call; the executor and workspace size in *executor, *size.
void PhaseOneOk(const Api& api, const aclTensor* self, const aclTensor* target, int64_t reduction, aclTensor* out,
                uint64_t* size, aclOpExecutor** executor) {
  ASSERT_EQ(GetWorkspaceSize(api, self, target, reduction, out, size, executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_NE(*executor, nullptr);
}

TEST_F(MseLossValidation, LaunchWithANullConsumedOrDestroyedExecutor) {
  for (const Api& api : kApis) {
    EXPECT_FAILS(Launch(api, nullptr, 0, nullptr), ACLNN_ERR_PARAM_NULLPTR,
                 std::string(api.launch) + ": executor is null");
    auto s = Make({4}), t = Make({4}), o = Make({});
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    PhaseOneOk(api, s->get(), t->get(), 1, o->get(), &size, &executor);
    EXPECT_EQ(size, 0u);
    EXPECT_EQ(Launch(api, nullptr, 0, executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    EXPECT_FAILS(Launch(api, nullptr, 0, executor), ACLNN_ERR_PARAM_INVALID,
                 std::string(api.launch) + ": executor " + support::PtrText(executor) + " is not a live executor");
    PhaseOneOk(api, s->get(), t->get(), 1, o->get(), &size, &executor);
    ASSERT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
    EXPECT_FAILS(Launch(api, nullptr, 0, executor), ACLNN_ERR_PARAM_INVALID, "is not a live executor");
    // A repeatable executor runs until it is destroyed.
    PhaseOneOk(api, s->get(), t->get(), 1, o->get(), &size, &executor);
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(Launch(api, nullptr, 0, executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  }
}

// A reduction in more than one chunk keeps its partial sums (float64, chunks x columns) in the
// workspace; one chunk needs none (kernel/reduce.h).
TEST_F(MseLossValidation, WorkspaceOfTheReductions) {
  struct Expected {
    bool axis0;
    Shape shape;
    uint64_t bytes;  // 64-byte aligned
  };
  for (const Expected& e :
       {Expected{false, {16384}, 0}, Expected{false, {16385}, 2 * 16 * 8}, Expected{false, {32769}, 3 * 16 * 8},
        Expected{false, {1025, 16}, 2 * 16 * 8}, Expected{true, {1024, 3}, 0}, Expected{true, {1025, 3}, 64},
        Expected{true, {1025, 8}, 2 * 8 * 8}, Expected{true, {3000, 40}, 3 * 40 * 8}, Expected{true, {5, 300}, 0}}) {
    const Api& api = kApis[e.axis0 ? 1 : 0];
    auto s = Make(e.shape), t = Make(e.shape);
    for (int64_t reduction : {1, 2}) {
      auto o = Make(OutShape(api, reduction, e.shape));
      uint64_t size = 99;
      aclOpExecutor* executor = nullptr;
      if (!e.axis0) {  // ND: MSELossV2, which keeps its cores' lanes without a workspace
        PhaseOneOk(api, s->get(), t->get(), reduction, o->get(), &size, &executor);
        EXPECT_EQ(size, 0u) << api.launch << " " << e.shape[0];
        aclDestroyAclOpExecutor(executor);
        s->SetFormat(ACL_FORMAT_NCHW);  // MseLoss V1: our reduction
        t->SetFormat(ACL_FORMAT_NCHW);
      }
      PhaseOneOk(api, s->get(), t->get(), reduction, o->get(), &size, &executor);
      EXPECT_EQ(size, e.bytes) << api.launch << " " << e.shape[0];
      aclDestroyAclOpExecutor(executor);
      s->SetFormat(ACL_FORMAT_ND);
      t->SetFormat(ACL_FORMAT_ND);
    }
    auto none_out = Make(e.shape);  // the elementwise loss needs no workspace
    uint64_t size = 99;
    aclOpExecutor* executor = nullptr;
    PhaseOneOk(api, s->get(), t->get(), 0, none_out->get(), &size, &executor);
    EXPECT_EQ(size, 0u);
    aclDestroyAclOpExecutor(executor);
  }
}

TEST_F(MseLossValidation, LaunchWithTooSmallOrNoWorkspace) {
  for (const Api& api : kApis) {
    const Shape shape = api.axis0 ? Shape{2000, 9} : Shape{20000};
    auto s = Make(shape), t = Make(shape), o = Make(OutShape(api, 2, shape));
    s->SetFormat(ACL_FORMAT_NCHW);  // aclnnMseLoss: MseLoss V1, whose reduction (ours) has a workspace
    t->SetFormat(ACL_FORMAT_NCHW);
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    PhaseOneOk(api, s->get(), t->get(), 2, o->get(), &size, &executor);
    ASSERT_GT(size, 0u);
    void* workspace = Memory(size);
    EXPECT_FAILS(Launch(api, workspace, size - 1, executor), ACLNN_ERR_PARAM_INVALID,
                 std::string(api.launch) + ": workspaceSize " + std::to_string(size - 1) + " is smaller than the " +
                     std::to_string(size) + " bytes phase one asked for");
    EXPECT_FAILS(Launch(api, nullptr, size, executor), ACLNN_ERR_PARAM_NULLPTR,
                 std::string(api.launch) + ": workspace is null but " + std::to_string(size) + " bytes are needed");
    std::vector<char> host(size);
    EXPECT_FAILS(Launch(api, host.data(), size, executor), ACLNN_ERR_PARAM_INVALID,
                 "is not inside one live aclrtMalloc allocation");
    // None of them consumed the executor.
    EXPECT_EQ(Launch(api, workspace, size, executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  }
}

TEST_F(MseLossValidation, LaunchOnADeadStreamOrAfterTheMemoryWasFreed) {
  for (const Api& api : kApis) {
    auto s = Make({4}), t = Make({4}), o = Make({});
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    PhaseOneOk(api, s->get(), t->get(), 1, o->get(), &size, &executor);
    aclrtStream not_a_stream = reinterpret_cast<aclrtStream>(&size);
    EXPECT_FAILS(Launch(api, nullptr, 0, executor, not_a_stream), ACLNN_ERR_RUNTIME_ERROR, "not a live stream");
    EXPECT_EQ(Launch(api, nullptr, 0, executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();  // not consumed
    EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    // The target's memory freed between the phases.
    void* memory = nullptr;
    ASSERT_EQ(aclrtMalloc(&memory, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    const Shape dims{4}, unit{1};
    aclTensor* target = Raw(dims, unit, 0, dims, ACL_FORMAT_ND, memory);
    PhaseOneOk(api, s->get(), target, 1, o->get(), &size, &executor);
    ASSERT_EQ(aclrtFree(memory), ACL_SUCCESS);
    EXPECT_FAILS(Launch(api, nullptr, 0, executor), ACLNN_ERR_PARAM_INVALID,
                 std::string(api.launch) + ": the memory of target is no longer inside a live aclrtMalloc allocation");
    aclDestroyAclOpExecutor(executor);
  }
}

}  // namespace

namespace {

// A FLOAT16 self of 2^62 elements on a few bytes (stride 0) beside a FLOAT target: ops-nn's aclnn
// layer casts it to FLOAT first (aclnn_mse_loss.cpp: l0op::Contiguous, l0op::Cast), 2^64 bytes, and
// gets no tensor: 561103. Ours reads it in place, but refuses as ops-nn's does; 2^59 is planned.
TEST_F(MseLossValidation, ACastCopyOfMoreBytesThanInt64Counts) {
  void* memory = Memory(16);
  const aclTensor* target = Raw({1}, {1}, 0, {1}, ACL_FORMAT_ND, Memory(4));
  aclTensor* out = Raw({}, {}, 0, {1}, ACL_FORMAT_ND, Memory(4));
  const aclTensor* huge = Raw({int64_t{1} << 62}, {0}, 0, {1}, ACL_FORMAT_ND, memory, ACL_FLOAT16);
  for (int64_t reduction : {1, 2}) {
    EXPECT_FAILS(PhaseOne(kApis[0], huge, target, reduction, out), ACLNN_ERR_INNER_NULLPTR,
                 "aclnnMseLossGetWorkspaceSize: the contiguous FLOAT copy of self [4611686018427387904] has more "
                 "bytes than int64 counts");
  }
  const aclTensor* large = Raw({int64_t{1} << 59}, {0}, 0, {1}, ACL_FORMAT_ND, memory, ACL_FLOAT16);
  EXPECT_EQ(PhaseOne(kApis[0], large, target, 2, out), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

}  // namespace
