// aclnnMseLoss and aclnnMseLossOut through the public API against the golden, bit for bit.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "nnopbase/nnopbase_internal.h"
#include "support/api_support.h"

namespace {

using support::DeviceTensor;
using support::Layout;
using support::ValueClass;
using Shape = std::vector<int64_t>;

const aclDataType kDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};

std::string Describe(const Shape& s) {
  std::string text = "[";
  for (size_t i = 0; i < s.size(); ++i) text += (i ? "," : "") + std::to_string(s[i]);
  return text + "]";
}

struct Case {
  aclDataType self_dtype = ACL_FLOAT, target_dtype = ACL_FLOAT, out_dtype = ACL_FLOAT;
  int reduction = 1;
  bool axis0 = false;  // aclnnMseLossOut
  Shape self, target;
  Layout layout = Layout::kContiguous;
  ValueClass values = ValueClass::kNormal;
  uint32_t seed = 1;

  std::string Name() const {
    return std::string(axis0 ? "MseLossOut" : "MseLoss") + " self " + std::to_string(self_dtype) + Describe(self) +
           " target " + std::to_string(target_dtype) + Describe(target) + " out " + std::to_string(out_dtype) +
           " reduction " + std::to_string(reduction) + " " + support::LayoutName(layout) + " " +
           support::ValueClassName(values) + " seed " + std::to_string(seed);
  }
};

Shape OutShape(const Case& c) {
  Shape broadcast;
  EXPECT_TRUE(golden::BroadcastShape({c.self, c.target}, &broadcast));
  if (c.reduction == 0) return broadcast;
  if (c.axis0) return broadcast.empty() ? broadcast : Shape(broadcast.begin() + 1, broadcast.end());
  return {};
}

void RunCase(const Case& c) {
  SCOPED_TRACE(c.Name());
  std::mt19937 rng(c.seed);
  DeviceTensor self(c.self_dtype, c.self, c.layout), target(c.target_dtype, c.target, c.layout);
  self.Write(support::RandomBits(c.self_dtype, self.numel(), c.values, rng));
  target.Write(support::RandomBits(c.target_dtype, target.numel(), c.values, rng));
  DeviceTensor out(c.out_dtype, OutShape(c), c.layout);
  const golden::Tensor expected = golden::MseLoss(self.ToGoldenTensor(), target.ToGoldenTensor(), c.reduction, c.axis0,
                                                  support::ToGolden(c.out_dtype));
  ASSERT_EQ(support::RunMseLoss(self.get(), target.get(), c.reduction, out.get(), c.axis0), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(support::CompareBits(support::ToGolden(c.out_dtype), expected.bits, out.Read()), "");
}

TEST(MseLossSmoke, DtypesReductionsBothApis) {
  uint32_t seed = 1;
  for (bool axis0 : {false, true}) {
    for (aclDataType s : kDtypes) {
      for (aclDataType t : kDtypes) {
        for (aclDataType o : kDtypes) {
          for (int reduction : {0, 1, 2}) {
            Case c;
            c.self_dtype = s;
            c.target_dtype = t;
            c.out_dtype = o;
            c.reduction = reduction;
            c.axis0 = axis0;
            c.self = {7, 33};
            c.target = {33};
            c.seed = seed++;
            RunCase(c);
          }
        }
      }
    }
  }
}

TEST(MseLossSmoke, LargeAndThreads) {
  for (int threads : {1, 2, 3, 7}) {
    aclcpu::SetKernelThreadCount(threads);
    for (bool axis0 : {false, true}) {
      for (int reduction : {0, 1, 2}) {
        for (const Shape& shape : {Shape{3000, 700}, Shape{5, 300000}, Shape{2100000}}) {
          Case c;
          c.reduction = reduction;
          c.axis0 = axis0;
          c.self = shape;
          c.target = shape;
          c.self_dtype = ACL_BF16;
          c.target_dtype = ACL_FLOAT16;
          c.seed = 7;
          RunCase(c);
        }
      }
    }
  }
  aclcpu::SetKernelThreadCount(0);
}

}  // namespace
