// The numbers themselves, by references that share nothing with the golden's order:
// - an exact reference: the mean and sum of FLOAT inputs (both APIs) within 1 ulp (float32) of
//   the exact sum of the float32 losses, accumulated as an integer;
// - a gradient check: aclnnMseLossBackward against central differences of the forward loss
//   evaluated in float64 (checked against aclnnMseLoss at x), for each reduction; and against
//   central differences of aclnnMseLoss itself, in float32, on small exactly representable cases.
// The worst errors seen are printed and recorded as test properties.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "support/api_support.h"

namespace {

using support::DeviceTensor;
using support::Layout;
using Shape = std::vector<int64_t>;

int64_t Count(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<uint32_t> FloatBits(const std::vector<float>& values) {
  std::vector<uint32_t> bits(values.size());
  std::memcpy(bits.data(), values.data(), values.size() * 4);
  return bits;
}

std::vector<float> Floats(const std::vector<uint32_t>& bits) {
  std::vector<float> values(bits.size());
  std::memcpy(values.data(), bits.data(), bits.size() * 4);
  return values;
}

// A contiguous FLOAT tensor holding values.
std::unique_ptr<DeviceTensor> FloatTensor(const Shape& shape, const std::vector<float>& values) {
  auto t = std::make_unique<DeviceTensor>(ACL_FLOAT, shape, Layout::kContiguous);
  t->Write(FloatBits(values));
  return t;
}

// ---- the exact reference --------------------------------------------------------------------

// The exact sum of finite non-negative float32 values: a fixed-point integer in units of 2^-149
// (the smallest subnormal), in limbs of 32 bits held in 64 (no carry is lost before 2^31 values).
class ExactSum {
 public:
  void Add(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    const uint32_t exponent = bits >> 23, fraction = bits & 0x7fffffu;
    // value = mantissa * 2^(shift - 149)
    const uint64_t mantissa = exponent == 0 ? fraction : (fraction | 0x800000u);
    const int shift = exponent == 0 ? 0 : static_cast<int>(exponent) - 1;
    const uint64_t wide = mantissa << (shift % 32);
    limbs_[static_cast<size_t>(shift / 32)] += wide & 0xffffffffu;
    limbs_[static_cast<size_t>(shift / 32) + 1] += wide >> 32;
  }

  // The sum divided by n as an unevaluated double-double hi + lo (relative error below 2^-100).
  void Quotient(double n, double* hi, double* lo) const {
    std::vector<uint64_t> limbs = limbs_;
    for (size_t i = 0; i + 1 < limbs.size(); ++i) {  // carries
      limbs[i + 1] += limbs[i] >> 32;
      limbs[i] &= 0xffffffffu;
    }
    double h = 0.0, l = 0.0;
    for (size_t i = limbs.size(); i-- > 0;) {  // largest first: each term exact, added with TwoSum
      const double term = std::ldexp(static_cast<double>(limbs[i]), 32 * static_cast<int>(i) - 149);
      const double s = h + term;
      const double v = s - h;
      l += (h - (s - v)) + (term - v);
      h = s;
    }
    const double s = h + l;  // normalized
    l = l - (s - h);
    h = s;
    // Division by n: q = h / n, then the remainder's share.
    const double q = h / n;
    const double p = q * n;
    const double p_error = std::fma(q, n, -p);
    const double r = ((h - p) - p_error + l) / n;
    *hi = q + r;
    *lo = r - (*hi - q);
  }

 private:
  std::vector<uint64_t> limbs_ = std::vector<uint64_t>(12, 0);
};

// |actual - exact| in units of the last place of float32 at exact's magnitude.
double UlpError(float actual, double hi, double lo) {
  const double difference = (static_cast<double>(actual) - hi) - lo;
  int exponent = 0;
  std::frexp(hi, &exponent);  // hi = m * 2^exponent, m in [0.5, 1)
  const double ulp = std::ldexp(1.0, std::max(exponent - 24, -149));
  return std::fabs(difference) / ulp;
}

// A float32 of random sign and magnitude 2^[-12, 12).
float WideRangeValue(std::mt19937& rng) {
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-12, 11);
  const float value = std::ldexp(mantissa(rng), exponent(rng));
  return (rng() & 1) ? value : -value;
}

TEST(MseLossExactReference, MeanAndSumWithinOneUlpOfTheExactValue) {
  support::EnsureRuntime();
  std::mt19937 rng(2024);
  struct Geometry {
    Shape self, target;
  };
  std::vector<Geometry> geometries = {
      {{1}, {1}},
      {{16}, {16}},
      {{17}, {}},
      {{16385}, {16385}},
      {{3, 1000}, {1000}},
      {{1025, 7}, {1, 7}},
      {{2049, 300}, {300}},
      {{1 << 22}, {1 << 22}},
      {{200000, 3}, {200000, 3}},
      {{20000, 260}, {260}},
  };
  std::uniform_int_distribution<int> rank(1, 4), dim(1, 40);
  for (int k = 0; k < 40; ++k) {  // and random small ones
    Shape shape;
    for (int r = rank(rng); r > 0; --r) shape.push_back(dim(rng));
    geometries.push_back({shape, (k % 3 == 0) ? Shape(shape.begin() + 1, shape.end()) : shape});
  }
  double worst = 0.0;
  int results = 0;
  for (const Geometry& g : geometries) {
    std::vector<float> self(static_cast<size_t>(Count(g.self))), target(static_cast<size_t>(Count(g.target)));
    for (float& v : self) v = WideRangeValue(rng);
    for (float& v : target) v = WideRangeValue(rng);
    // NCHW: aclnnMseLoss reaches MseLoss V1, whose reduction here is ours (MSELossV2's float32
    // orders: test_npu_routes.cpp).
    auto self_tensor = FloatTensor(g.self, self), target_tensor = FloatTensor(g.target, target);
    self_tensor->SetFormat(ACL_FORMAT_NCHW);
    target_tensor->SetFormat(ACL_FORMAT_NCHW);
    // The float32 losses of the broadcast (target broadcasts over self's leading dims here).
    const int64_t n = Count(g.self), t = Count(g.target), rows = g.self.empty() ? 1 : g.self[0];
    const int64_t columns = n / rows;
    ExactSum all;
    std::vector<ExactSum> per_column(static_cast<size_t>(columns));
    for (int64_t e = 0; e < n; ++e) {
      const float d = self[static_cast<size_t>(e)] - target[static_cast<size_t>(e % t)];
      const float loss = d * d;
      all.Add(loss);
      per_column[static_cast<size_t>(e % columns)].Add(loss);
    }
    for (bool axis0 : {false, true}) {
      for (int reduction : {1, 2}) {
        const Shape out_shape = axis0 ? Shape(g.self.begin() + 1, g.self.end()) : Shape{};
        DeviceTensor out(ACL_FLOAT, out_shape, Layout::kContiguous);
        ASSERT_EQ(support::RunMseLoss(self_tensor->get(), target_tensor->get(), reduction, out.get(), axis0),
                  ACLNN_SUCCESS)
            << aclGetRecentErrMsg();
        const std::vector<float> actual = Floats(out.Read());
        for (size_t i = 0; i < actual.size(); ++i) {
          double hi, lo;
          const ExactSum& sum = axis0 ? per_column[i] : all;
          sum.Quotient(reduction == 1 ? static_cast<double>(axis0 ? rows : n) : 1.0, &hi, &lo);
          const double error = UlpError(actual[i], hi, lo);
          ASSERT_LE(error, 1.0) << (axis0 ? "MseLossOut" : "MseLoss") << " reduction " << reduction << " element " << i
                                << " of " << n << ": " << actual[i] << " vs exact " << hi;
          worst = std::max(worst, error);
          ++results;
        }
      }
    }
  }
  // Seen (208214 results): 0.500000000 ulp, i.e. the correctly rounded result or, at a float32
  // midpoint, the other neighbour: float64 accumulation leaves less than 1e-9 ulp of its own.
  std::printf("exact reference: %d results, worst error %.9f ulp\n", results, worst);
  RecordProperty("results", results);
  RecordProperty("worst_ulp", std::to_string(worst));
}

// ---- the gradient check -------------------------------------------------------------------

// x and y in [-10, 10] with |x - y| >= 1/64: no gradient component is so small that the
// comparison would measure the central difference's own rounding instead of ours.
void GradientInputs(std::mt19937& rng, int64_t n, int64_t t, std::vector<float>* x, std::vector<float>* y) {
  std::uniform_real_distribution<float> value(-10.0f, 10.0f);
  y->resize(static_cast<size_t>(t));
  for (float& v : *y) v = value(rng);
  x->resize(static_cast<size_t>(n));
  for (int64_t e = 0; e < n; ++e) {
    float v;
    do {
      v = value(rng);
    } while (std::fabs(v - (*y)[static_cast<size_t>(e % t)]) < 1.0f / 64);
    (*x)[static_cast<size_t>(e)] = v;
  }
}

// The forward loss in float64: sum over e of (x_e - y_{e % t})^2 (x_i replaced by xi), with
// Neumaier's compensated summation; divided by n for the mean.
double LossInDouble(const std::vector<float>& x, const std::vector<float>& y, int reduction, int64_t i, double xi) {
  double sum = 0.0, compensation = 0.0;
  const size_t t = y.size();
  for (size_t e = 0; e < x.size(); ++e) {
    const double d = (static_cast<int64_t>(e) == i ? xi : static_cast<double>(x[e])) - static_cast<double>(y[e % t]);
    const double term = d * d;
    const double s = sum + term;
    compensation += std::fabs(sum) >= std::fabs(term) ? (sum - s) + term : (term - s) + sum;
    sum = s;
  }
  sum += compensation;
  return reduction == 1 ? sum / static_cast<double>(x.size()) : sum;
}

// The step: 2^-10 of x's magnitude (at least 2^-10), a power of two, so that x +- h is exact in
// float64. The loss is quadratic in each x_i, so the central difference has no truncation error;
// only its rounding, which a step this size keeps near 1e-13 of the result.
double Step(double x) { return std::ldexp(1.0, std::ilogb(std::max(1.0, std::fabs(x))) - 10); }

TEST(MseLossGradientCheck, BackwardAgainstCentralDifferencesOfTheForwardInFloat64) {
  support::EnsureRuntime();
  // Tolerance: relative 1e-6. The backward rounds three float32 operations (x - y, * cof, * grad):
  // about 2e-7 at most; the central difference in float64 is good to about 1e-12 here.
  const double tolerance = 1e-6;
  std::mt19937 rng(99);
  std::uniform_int_distribution<int> rank(1, 3), dim(1, 12);
  std::uniform_real_distribution<float> grad_value(0.5f, 2.0f);
  double worst[3] = {0.0, 0.0, 0.0};
  int64_t checked[3] = {0, 0, 0};
  for (int reduction = 0; reduction < 3; ++reduction) {
    for (int k = 0; k < 12; ++k) {
      Shape self_shape;
      for (int r = rank(rng); r > 0; --r) self_shape.push_back(dim(rng));
      // Every third case broadcasts target over self's dim 0 (self keeps the full shape, so each
      // x_i is one element of the broadcast and the gradient is the backward's out).
      const Shape target_shape = k % 3 == 2 ? Shape(self_shape.begin() + 1, self_shape.end()) : self_shape;
      const int64_t n = Count(self_shape), t = Count(target_shape);
      std::vector<float> x, y;
      GradientInputs(rng, n, t, &x, &y);
      auto self = FloatTensor(self_shape, x), target = FloatTensor(target_shape, y);
      // gradOutput: random weights of each loss for none; the scalar 1 for mean and sum.
      std::vector<float> grad(static_cast<size_t>(reduction == 0 ? n : 1), 1.0f);
      if (reduction == 0) {
        for (float& g : grad) g = (rng() & 1) ? grad_value(rng) : -grad_value(rng);
      }
      auto grad_tensor = FloatTensor(reduction == 0 ? self_shape : Shape{}, grad);
      DeviceTensor out(ACL_FLOAT, self_shape, Layout::kContiguous);
      ASSERT_EQ(support::RunMseLossBackward(grad_tensor->get(), self->get(), target->get(), reduction, out.get()),
                ACLNN_SUCCESS)
          << aclGetRecentErrMsg();
      const std::vector<float> gradient = Floats(out.Read());
      // The float64 loss is our forward's: aclnnMseLoss gives it at x, to float32's precision.
      DeviceTensor loss(ACL_FLOAT, reduction == 0 ? self_shape : Shape{}, Layout::kContiguous);
      ASSERT_EQ(support::RunMseLoss(self->get(), target->get(), reduction, loss.get(), false), ACLNN_SUCCESS);
      const std::vector<float> forward = Floats(loss.Read());
      for (int64_t i = 0; i < n; ++i) {
        const double xi = x[static_cast<size_t>(i)], h = Step(xi);
        double expected, value_at_x;
        if (reduction == 0) {  // loss i alone, weighted by its gradOutput
          const double yi = y[static_cast<size_t>(i % t)];
          const double plus = (xi + h - yi) * (xi + h - yi), minus = (xi - h - yi) * (xi - h - yi);
          expected = grad[static_cast<size_t>(i)] * (plus - minus) / (2 * h);
          value_at_x = (xi - yi) * (xi - yi);
          EXPECT_LE(std::fabs(forward[static_cast<size_t>(i)] - value_at_x), 1e-6 * value_at_x);
        } else {  // the whole loss, with x_i moved
          expected = (LossInDouble(x, y, reduction, i, xi + h) - LossInDouble(x, y, reduction, i, xi - h)) / (2 * h);
          if (i == 0) {
            value_at_x = LossInDouble(x, y, reduction, -1, 0.0);
            EXPECT_LE(std::fabs(forward[0] - value_at_x), 1e-6 * value_at_x);
          }
        }
        const double error = std::fabs(gradient[static_cast<size_t>(i)] - expected) / std::fabs(expected);
        ASSERT_LE(error, tolerance) << "reduction " << reduction << " case " << k << " element " << i << ": backward "
                                    << gradient[static_cast<size_t>(i)] << ", central difference " << expected;
        worst[reduction] = std::max(worst[reduction], error);
        ++checked[reduction];
      }
    }
  }
  // Seen: 1.02e-7 (none), 1.32e-7 (mean), 5.9e-8 (sum), over about 1500-1800 components each.
  std::printf(
      "gradient check (float64 forward), tolerance %.0e: worst relative error none %.3e (%lld), mean %.3e "
      "(%lld), sum %.3e (%lld)\n",
      tolerance, worst[0], static_cast<long long>(checked[0]), worst[1], static_cast<long long>(checked[1]), worst[2],
      static_cast<long long>(checked[2]));
  RecordProperty("worst_none", std::to_string(worst[0]));
  RecordProperty("worst_mean", std::to_string(worst[1]));
  RecordProperty("worst_sum", std::to_string(worst[2]));
}

// The same check against our forward itself: aclnnMseLoss (float32) at x_i +- h. Inputs on a grid
// of 2^-10 in [-8, 8] and h a power of two near |x_i - y_i| keep x_i +- h exact in float32; what
// remains is the forward's float32 rounding of the loss, divided by 2h: a looser tolerance.
TEST(MseLossGradientCheck, BackwardAgainstCentralDifferencesOfOurFloat32Forward) {
  support::EnsureRuntime();
  const double tolerance = 1e-4;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> grid(-8 * 1024, 8 * 1024), size(1, 12);
  double worst[3] = {0.0, 0.0, 0.0};
  for (int reduction = 0; reduction < 3; ++reduction) {
    for (int k = 0; k < 6; ++k) {
      const int64_t n = size(rng);
      std::vector<float> x(static_cast<size_t>(n)), y(static_cast<size_t>(n));
      // |x - y| >= 2, so h >= 2: the loss's float32 rounding (at most 2^-24 of 12 * 16^2 for the sum)
      // moves the difference quotient by at most 2.3e-5 of the gradient.
      for (int64_t e = 0; e < n; ++e) {
        do {
          x[static_cast<size_t>(e)] = static_cast<float>(grid(rng)) / 1024;
          y[static_cast<size_t>(e)] = static_cast<float>(grid(rng)) / 1024;
        } while (std::fabs(x[static_cast<size_t>(e)] - y[static_cast<size_t>(e)]) < 2.0f);
      }
      auto self = FloatTensor({n}, x), target = FloatTensor({n}, y);
      const std::vector<float> ones(static_cast<size_t>(reduction == 0 ? n : 1), 1.0f);
      auto grad_tensor = FloatTensor(reduction == 0 ? Shape{n} : Shape{}, ones);
      DeviceTensor out(ACL_FLOAT, {n}, Layout::kContiguous);
      ASSERT_EQ(support::RunMseLossBackward(grad_tensor->get(), self->get(), target->get(), reduction, out.get()),
                ACLNN_SUCCESS);
      const std::vector<float> gradient = Floats(out.Read());
      // Our forward at x with x_i moved by delta: out element i (none) or the 0-d result.
      auto forward = [&](int64_t i, float delta) {
        std::vector<float> moved = x;
        moved[static_cast<size_t>(i)] += delta;  // exact: both on the grid, well inside float32
        auto moved_tensor = FloatTensor({n}, moved);
        DeviceTensor loss(ACL_FLOAT, reduction == 0 ? Shape{n} : Shape{}, Layout::kContiguous);
        EXPECT_EQ(support::RunMseLoss(moved_tensor->get(), target->get(), reduction, loss.get(), false), ACLNN_SUCCESS);
        return static_cast<double>(Floats(loss.Read())[reduction == 0 ? static_cast<size_t>(i) : 0]);
      };
      for (int64_t i = 0; i < n; ++i) {
        const double d = static_cast<double>(x[static_cast<size_t>(i)]) - y[static_cast<size_t>(i)];
        const float h = std::ldexp(1.0f, std::ilogb(std::fabs(d)));
        const double expected = (forward(i, h) - forward(i, -h)) / (2.0 * h);
        const double error = std::fabs(gradient[static_cast<size_t>(i)] - expected) / std::fabs(expected);
        ASSERT_LE(error, tolerance) << "reduction " << reduction << " n " << n << " element " << i << ": backward "
                                    << gradient[static_cast<size_t>(i)] << ", central difference " << expected;
        worst[reduction] = std::max(worst[reduction], error);
      }
    }
  }
  // Seen: 5.6e-8 (none), 1.46e-6 (mean), 1.16e-6 (sum).
  std::printf(
      "gradient check (our float32 forward), tolerance %.0e: worst relative error none %.3e, mean %.3e, sum "
      "%.3e\n",
      tolerance, worst[0], worst[1], worst[2]);
  RecordProperty("worst_none", std::to_string(worst[0]));
  RecordProperty("worst_mean", std::to_string(worst[1]));
  RecordProperty("worst_sum", std::to_string(worst[2]));
}

}  // namespace
