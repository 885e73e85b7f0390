// The case runner's core (tools/case_runner): the literal parser in both dialects, the CSV and
// JSON case readers, NPY files, the input generator and the judging; then the readers under
// random mutation of valid files (byte flips, truncations, insertions): each mutated file either
// parses or is reported, and nothing crashes or throws.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "case_files.h"
#include "inputs.h"
#include "judge.h"
#include "literal.h"
#include "npy.h"

namespace {

namespace cr = case_runner;
using Kind = cr::Value::Kind;
using RangeKind = cr::ValueRange::Kind;

// CASES.md §1's example, plus rows that use the other value-range forms.
const char kCsv[] =
    "testcase_name,network_name,op_name,input_shapes,input_dtypes,input_formats,output_shapes,output_dtypes,"
    "output_formats,attributes,input_data_ranges,is_enabled\n"
    "mse_grad_demo_0001,DemoNet,mse_loss_grad,\"((32, 8), (32, 8), ())\",\"('float16',)\",,\"((32, 8),)\","
    "\"('float16',)\",,{'reduction': 'mean'},,1\n"
    "mse_grad_demo_0002,DemoNet,mse_loss_grad,\"((4, 3, 5), (1, 3, 1), (4, 3, 5))\",\"('bfloat16',)\",,"
    "\"((4, 3, 5),)\",\"('bfloat16',)\",,{'reduction': 'sum'},,1\n"
    "mse_grad_demo_0003,DemoNet,mse_loss_grad,\"((7,), (7,), (7,))\",\"('float32',)\",,\"((7,),)\","
    "\"('float32',)\",,{'reduction': 'none'},,0\n"
    "ranges,DemoNet,mse_loss_grad,\"((2,), (2,), (2,))\",\"('float32', 'float32', 'float32')\",,,,,,"
    "\"((-1, 1.5), ('nan',), ('-inf', 'inf'))\",1\n"
    "one_range,DemoNet,mse_loss_grad,\"((2,), (2,), (2,))\",\"('float32',)\",,,,,,\"(-3, 3)\",\n";

// CASES.md §2's example, plus a case with the other forms.
const char kJson[] = R"([
  {"id": 0, "name": "mse_backward_demo", "aclnn_name": "MseLossBackward",
   "api_type": "ascend_aclnn_mse_loss_backward",
   "inputs": [
     {"name": "gradOutput", "type": "tensor", "required": true, "dtype": "bf16",
      "shape": [6, 1, 4], "range_values": [-10, 10]},
     {"name": "self", "type": "tensor", "required": true, "dtype": "bf16",
      "shape": [6, 5, 4], "range_values": ["nan"]},
     {"name": "target", "type": "tensor", "required": true, "dtype": "bf16",
      "shape": [], "range_values": 0},
     {"name": "reduction", "type": "attr", "required": true, "dtype": "int",
      "shape": null, "range_values": [0, 2]}
   ]},
  {"id": 1, "name": "forms", "backward": true, "standard": {"x": [1.5e-3, "\u00e9"]},
   "inputs": [
     {"name": "reduction", "type": "attr", "dtype": "int", "range_values": 1},
     {"name": "target", "type": "tensor", "dtype": "fp16", "shape": [3], "range_values": ["-inf", "inf"]},
     {"name": "self", "type": "tensor", "dtype": "fp32", "shape": [3], "range_values": ["inf"]},
     {"name": "gradOutput", "type": "tensor", "dtype": "fp32", "shape": [1], "range_values": "nan"}
   ]}
])";

cr::Value Parse(const std::string& text, cr::Dialect dialect) {
  cr::Value value;
  std::string error;
  EXPECT_TRUE(cr::ParseLiteral(text, dialect, &value, &error)) << text << ": " << error;
  return value;
}

std::string ParseError(const std::string& text, cr::Dialect dialect) {
  cr::Value value;
  std::string error;
  EXPECT_FALSE(cr::ParseLiteral(text, dialect, &value, &error)) << text;
  return error;
}

std::vector<cr::Case> ParseCases(const std::string& text) {
  std::vector<cr::Case> cases;
  std::string error;
  EXPECT_TRUE(cr::ParseCaseText(text, "t", &cases, &error)) << error;
  return cases;
}

TEST(CaseRunnerLiteral, PythonTuplesListsAndDicts) {
  const cr::Value one = Parse("(7,)", cr::Dialect::kPython);
  ASSERT_EQ(one.kind, Kind::kList);
  ASSERT_EQ(one.items.size(), 1u);
  EXPECT_EQ(one.items[0].integer, 7);
  EXPECT_EQ(Parse("(7)", cr::Dialect::kPython).kind, Kind::kInt);  // parentheses, not a tuple
  EXPECT_TRUE(Parse(" () ", cr::Dialect::kPython).items.empty());
  const cr::Value shapes = Parse("((32, 8), (32, 8), ())", cr::Dialect::kPython);
  ASSERT_EQ(shapes.items.size(), 3u);
  EXPECT_EQ(shapes.items[1].items[1].integer, 8);
  EXPECT_TRUE(shapes.items[2].items.empty());
  const cr::Value attrs = Parse("{'reduction': \"mean\", 'x': [1, 2,],}", cr::Dialect::kPython);
  ASSERT_NE(attrs.Find("reduction"), nullptr);
  EXPECT_EQ(attrs.Find("reduction")->text, "mean");
  EXPECT_EQ(attrs.Find("x")->items.size(), 2u);
  EXPECT_EQ(Parse("-1.5e3", cr::Dialect::kPython).number, -1500.0);
  EXPECT_EQ(Parse("+.5", cr::Dialect::kPython).number, 0.5);
  EXPECT_TRUE(Parse("True", cr::Dialect::kPython).boolean);
  EXPECT_EQ(Parse("None", cr::Dialect::kPython).kind, Kind::kNull);
}

TEST(CaseRunnerLiteral, JsonIsStrict) {
  EXPECT_EQ(Parse("\"\\u00e9\\ud83d\\ude00\"", cr::Dialect::kJson).text, "\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(Parse("[true, false, null, -0.5e1]", cr::Dialect::kJson).items[3].number, -5.0);
  for (const char* bad :
       {"[1, 2,]", "{'a': 1}", "(1,)", "01", "+1", "1.", "[1 2]", "{\"a\": 1,}", "{\"a\": 1, \"a\": 2}", "True",
        "\"\\x\"", "\"\\ud800\"", "1e999", "99999999999999999999", "\"a\nb\"", "[1] x", ""}) {
    ParseError(bad, cr::Dialect::kJson);
  }
  EXPECT_NE(ParseError(std::string(65, '[') + std::string(65, ']'), cr::Dialect::kJson).find("nested"),
            std::string::npos);
  Parse(std::string(60, '[') + std::string(60, ']'), cr::Dialect::kJson);
}

TEST(CaseRunnerLiteral, ErrorsSayWhere) {
  EXPECT_EQ(ParseError("[1,\n 2 x]", cr::Dialect::kJson).rfind("line 2 column 4: ", 0), 0u);
  EXPECT_EQ(ParseError("((1, 2)", cr::Dialect::kPython).rfind("column 8: ", 0), 0u);
}

TEST(CaseRunnerCsvLine, QuotedFieldsHoldCommasAndQuotes) {
  std::vector<std::string> fields;
  std::string error;
  ASSERT_TRUE(cr::SplitCsvLine("a,\"(1, 2)\",,\"say \"\"hi\"\"\",", &fields, &error));
  EXPECT_EQ(fields, (std::vector<std::string>{"a", "(1, 2)", "", "say \"hi\"", ""}));
  EXPECT_FALSE(cr::SplitCsvLine("a,\"(1, 2", &fields, &error));
  EXPECT_EQ(error, "field 2: unterminated quote");
  EXPECT_FALSE(cr::SplitCsvLine("a,\"b\"c", &fields, &error));
}

TEST(CaseRunnerDetectFormat, ByContentNotByName) {
  EXPECT_EQ(cr::DetectFormat(kCsv), cr::FileFormat::kCsv);
  EXPECT_EQ(cr::DetectFormat(kJson), cr::FileFormat::kJson);
  EXPECT_EQ(cr::DetectFormat("\xEF\xBB\xBF\n  [ ]"), cr::FileFormat::kJson);
  EXPECT_EQ(cr::DetectFormat("\n\nname,testcase_name\n"), cr::FileFormat::kCsv);
  EXPECT_EQ(cr::DetectFormat("{\"a\": 1}"), cr::FileFormat::kUnknown);
  EXPECT_EQ(cr::DetectFormat("a,b,c\n"), cr::FileFormat::kUnknown);
  EXPECT_EQ(cr::DetectFormat(""), cr::FileFormat::kUnknown);
  std::vector<cr::Case> cases;
  std::string error;
  EXPECT_FALSE(cr::ParseCaseText("a,b\n1,2\n", "x.csv", &cases, &error));
  EXPECT_NE(error.find("x.csv: not a case file"), std::string::npos);
  EXPECT_FALSE(cr::ParseCaseText("[1,", "x.json", &cases, &error));
  EXPECT_EQ(error, "x.json: JSON: column 4: expected a value, found the end");
  EXPECT_FALSE(cr::ParseCaseText("testcase_name,input_shapes\nx,\"((1,),(1,),(1,))\"\n", "h.csv", &cases, &error));
  EXPECT_EQ(error, "h.csv line 1: the header has no input_dtypes column");
}

TEST(CaseRunnerCsvCases, TheExampleOfCasesMd) {
  const std::vector<cr::Case> cases = ParseCases(kCsv);
  ASSERT_EQ(cases.size(), 5u);
  for (const cr::Case& c : cases) EXPECT_EQ(c.error, "") << c.where;
  const cr::Case& first = cases[0];
  EXPECT_EQ(first.level, cr::Case::Level::kKernel);
  EXPECT_EQ(first.name, "mse_grad_demo_0001");
  EXPECT_EQ(first.where, "t line 2");
  EXPECT_EQ(first.inputs[cr::kSelf].name, "predict");
  EXPECT_EQ(first.inputs[cr::kSelf].shape, (std::vector<int64_t>{32, 8}));
  EXPECT_TRUE(first.inputs[cr::kGrad].shape.empty());
  EXPECT_EQ(first.inputs[cr::kTarget].dtype, cr::Dtype::kFloat16);
  EXPECT_TRUE(first.has_reduction);
  EXPECT_EQ(first.reduction, "mean");
  EXPECT_TRUE(first.has_output_shape && first.has_output_dtype);
  EXPECT_EQ(first.output_shape, (std::vector<int64_t>{32, 8}));
  EXPECT_EQ(first.inputs[0].range.kind, RangeKind::kUniform);  // empty: the default range
  EXPECT_EQ(first.inputs[0].range.lo, cr::kDefaultLo);
  EXPECT_EQ(cases[1].inputs[cr::kTarget].shape, (std::vector<int64_t>{1, 3, 1}));
  EXPECT_EQ(cases[1].output_dtype, cr::Dtype::kBFloat16);
  EXPECT_FALSE(cases[2].enabled);
  const cr::Case& ranges = cases[3];
  EXPECT_FALSE(ranges.has_reduction);  // no attributes: the definition's default
  EXPECT_FALSE(ranges.has_output_shape);
  EXPECT_EQ(ranges.inputs[0].range.hi, 1.5);
  EXPECT_EQ(ranges.inputs[1].range.kind, RangeKind::kNan);
  EXPECT_EQ(ranges.inputs[2].range.kind, RangeKind::kMixedInf);
  for (const cr::TensorSpec& input : cases[4].inputs) EXPECT_EQ(input.range.lo, -3.0);
  EXPECT_TRUE(cases[4].enabled);  // is_enabled empty

  // Windows line ends and a byte-order mark read the same.
  std::string crlf = "\xEF\xBB\xBF";
  for (const char* p = kCsv; *p != '\0'; ++p) crlf += *p == '\n' ? std::string("\r\n") : std::string(1, *p);
  const std::vector<cr::Case> again = ParseCases(crlf);
  ASSERT_EQ(again.size(), 5u);
  for (size_t i = 0; i < again.size(); ++i) {
    EXPECT_EQ(again[i].error, "");
    EXPECT_EQ(again[i].name, cases[i].name);
    EXPECT_EQ(again[i].enabled, cases[i].enabled);
  }
}

TEST(CaseRunnerCsvCases, AMalformedRowIsACaseWithAnErrorNamingItsField) {
  const std::string header = "testcase_name,input_shapes,input_dtypes,attributes,input_data_ranges,is_enabled\n";
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"a,\"((1,), (1,))\",\"('float32',)\",,,1", "field input_shapes: expected 3 shapes (predict, label, dout)"},
      {"a,\"((1,), (1,), (-1,))\",\"('float32',)\",,,1",
       "field input_shapes: dout: dims must be non-negative integers"},
      {"a,\"((1,), (1,), (1,))\",float64,,,1", "field input_dtypes: column 1: unknown word \"float64\""},
      {"a,\"((1,), (1,), (1,))\",\"('float64',)\",,,1",
       "field input_dtypes: unknown dtype \"float64\"; expected float32, float16 or bfloat16"},
      {"a,\"((1,), (1,), (1,))\",\"('float32',)\",{'reduction': 1},,1", "field attributes: reduction must be a string"},
      {"a,\"((1,), (1,), (1,))\",\"('float32',)\",,\"(2, 1)\",1",
       "field input_data_ranges: the low end of [lo, hi] is above the high end"},
      {"a,\"((1,), (1,), (1,))\",\"('float32',)\",,\"(1,)\",1",
       "field input_data_ranges: expected [lo, hi], 0, \"nan\", [\"nan\"], [\"inf\"], [\"-inf\"] or [\"-inf\", "
       "\"inf\"]"},
      {"a,\"((1,), (1,), (1,))\",\"('float32',)\",,,yes", "field is_enabled: \"yes\" is not 0 or 1"},
      {",\"((1,), (1,), (1,))\",\"('float32',)\",,,1", "field testcase_name: empty"},
      {"a,\"((65536, 65536), (1,), (1,))\",\"('float32',)\",,,1",
       "field input_shapes: predict: more than 2^28 elements, the runner's limit per tensor"},
      {"a,b", "the row has 2 fields, the header 6"},
  };
  for (const auto& row : rows) {
    const std::vector<cr::Case> cases = ParseCases(header + "good,\"((1,), (1,), (1,))\",float32,,,0\n" + row.first);
    ASSERT_EQ(cases.size(), 2u);
    EXPECT_EQ(cases[0].error, "");
    EXPECT_EQ(cases[1].error, row.second) << row.first;
    EXPECT_EQ(cases[1].where, "t line 3");
  }
}

TEST(CaseRunnerJsonCases, TheExampleOfCasesMd) {
  const std::vector<cr::Case> cases = ParseCases(kJson);
  ASSERT_EQ(cases.size(), 2u);
  const cr::Case& demo = cases[0];
  EXPECT_EQ(demo.error, "");
  EXPECT_EQ(demo.level, cr::Case::Level::kApi);
  EXPECT_EQ(demo.where, "t case id 0 at line 2");
  EXPECT_EQ(demo.reductions, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_TRUE(demo.reduction_is_range);
  EXPECT_EQ(demo.inputs[cr::kGrad].name, "gradOutput");
  EXPECT_EQ(demo.inputs[cr::kGrad].shape, (std::vector<int64_t>{6, 1, 4}));
  EXPECT_EQ(demo.inputs[cr::kGrad].range.hi, 10.0);
  EXPECT_EQ(demo.inputs[cr::kSelf].range.kind, RangeKind::kNan);
  EXPECT_EQ(demo.inputs[cr::kSelf].dtype, cr::Dtype::kBFloat16);
  EXPECT_TRUE(demo.inputs[cr::kTarget].shape.empty());
  EXPECT_EQ(demo.inputs[cr::kTarget].range.kind, RangeKind::kZeros);
  const cr::Case& forms = cases[1];
  EXPECT_EQ(forms.error, "");
  EXPECT_EQ(forms.reductions, (std::vector<int64_t>{1}));
  EXPECT_FALSE(forms.reduction_is_range);
  EXPECT_EQ(forms.inputs[cr::kTarget].range.kind, RangeKind::kMixedInf);
  EXPECT_EQ(forms.inputs[cr::kSelf].range.kind, RangeKind::kPosInf);
  EXPECT_EQ(forms.inputs[cr::kGrad].range.kind, RangeKind::kNan);
}

TEST(CaseRunnerJsonCases, AnUnreadableCaseIsReportedAndTheOthersKept) {
  auto input = [](const char* name, const char* range) {
    return std::string("{\"name\": \"") + name + "\", \"type\": \"tensor\", \"dtype\": \"fp32\", \"shape\": [2], " +
           "\"range_values\": " + range + "}";
  };
  auto with = [&](const char* grad_range, const char* reduction, const std::string& extra) {
    return std::string("{\"id\": 7, \"name\": \"c\", \"inputs\": [") + input("gradOutput", grad_range) + ", " +
           input("self", "[0, 1]") + ", " + input("target", "0") +
           ", {\"name\": \"reduction\", \"type\": \"attr\", \"range_values\": " + reduction + "}" + extra + "]}";
  };
  const std::vector<std::pair<std::string, std::string>> bad = {
      {with("[\"nan\", \"nan\"]", "1", ""),
       "field inputs[0].range_values: expected [lo, hi], 0, \"nan\", [\"nan\"], "
       "[\"inf\"], [\"-inf\"] or [\"-inf\", \"inf\"]"},
      {with("1", "1", ""),
       "field inputs[0].range_values: expected [lo, hi], 0, \"nan\", [\"nan\"], [\"inf\"], "
       "[\"-inf\"] or [\"-inf\", \"inf\"]"},
      {with("[\"inf\", 1]", "1", ""),
       "field inputs[0].range_values: expected [lo, hi], 0, \"nan\", [\"nan\"], "
       "[\"inf\"], [\"-inf\"] or [\"-inf\", \"inf\"]"},
      {with("[0, 1]", "[2, 0]", ""), "field inputs[3].range_values: the low end of [lo, hi] is above the high end"},
      {with("[0, 1]", "[0, 1000]", ""), "field inputs[3].range_values: more than 256 values"},
      {with("[0, 1]", "1.5", ""), "field inputs[3].range_values: expected an integer or [lo, hi] of integers"},
      {with("[0, 1]", "1", ", " + input("out", "0")),
       "field inputs[4].name: unknown tensor \"out\"; expected self, target or gradOutput (out is not listed)"},
      {with("[0, 1]", "1", ", " + input("self", "0")), "field inputs[4].name: self is listed twice"},
      {"{\"id\": 7, \"name\": \"c\", \"aclnn_name\": \"Add\", \"inputs\": []}",
       "field aclnn_name: expected \"MseLossBackward\", the one API this runner runs"},
      {"{\"id\": 7, \"name\": \"c\", \"inputs\": []}", "field inputs: no self tensor"},
      {"{\"id\": 7, \"inputs\": []}", "field name: missing, or not a non-empty string"},
      {"[1]", "the case is not a JSON object"},
  };
  for (const auto& b : bad) {
    const std::vector<cr::Case> cases = ParseCases("[" + with("[0, 1]", "[0, 2]", "") + ",\n" + b.first + "]");
    ASSERT_EQ(cases.size(), 2u);
    EXPECT_EQ(cases[0].error, "");
    EXPECT_EQ(cases[1].error, b.second) << b.first;
  }
  EXPECT_EQ(ParseCases("[" + with("[0, 1]", "1", "") + "]")[0].error, "");
}

TEST(CaseRunnerNpy, WritesVersion1AndReadsItBack) {
  for (const cr::NpyArray& array : {cr::NpyArray{"<f4", {2, 3}, {1, 2, 3, 0x7fc00000u, 0x80000000u, 0xffffffffu}},
                                    cr::NpyArray{"<f2", {}, {0x3c00}}, cr::NpyArray{"<u2", {3}, {1, 0xffff, 0x7fc0}},
                                    cr::NpyArray{"<f4", {0, 4}, {}}, cr::NpyArray{"<u2", {3, 0}, {}}}) {
    const std::string bytes = cr::EncodeNpy(array);
    EXPECT_EQ(bytes.compare(0, 8, std::string("\x93NUMPY\x01\x00", 8)), 0);
    const size_t header = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
    EXPECT_EQ((10 + header) % 64, 0u);
    EXPECT_EQ(bytes[10 + header - 1], '\n');
    cr::NpyArray back;
    std::string error;
    ASSERT_TRUE(cr::DecodeNpy(bytes, &back, &error)) << error;
    EXPECT_EQ(back.descr, array.descr);
    EXPECT_EQ(back.shape, array.shape);
    EXPECT_EQ(back.bits, array.bits);
  }
  EXPECT_NE(cr::EncodeNpy(cr::NpyArray{"<f2", {5}, {0, 0, 0, 0, 0}}).find("'shape': (5,)"), std::string::npos);
  cr::NpyArray back;
  std::string error;
  std::string cut = cr::EncodeNpy(cr::NpyArray{"<f4", {2}, {1, 2}});
  cut.pop_back();
  EXPECT_FALSE(cr::DecodeNpy(cut, &back, &error));
  EXPECT_EQ(error, "NPY data has 7 bytes; its shape needs 8");
}

TEST(CaseRunnerInputs, DependOnlyOnSeedCaseNameAndInput) {
  cr::TensorSpec spec{"self", cr::Dtype::kFloat32, {64}, cr::ValueRange{RangeKind::kUniform, -2.0, 3.0}};
  const golden::Tensor a = cr::MakeInput(spec, 1, "case", 0);
  EXPECT_EQ(cr::MakeInput(spec, 1, "case", 0).bits, a.bits);
  EXPECT_NE(cr::MakeInput(spec, 2, "case", 0).bits, a.bits);
  EXPECT_NE(cr::MakeInput(spec, 1, "case2", 0).bits, a.bits);
  EXPECT_NE(cr::MakeInput(spec, 1, "case", 1).bits, a.bits);
  for (uint32_t bits : a.bits) {
    const float value = golden::Widen(golden::Dtype::kFloat32, bits);
    EXPECT_TRUE(value >= -2.0f && value <= 3.0f) << value;
  }
}

TEST(CaseRunnerInputs, HonourEveryRangeForm) {
  auto values = [](RangeKind kind, cr::Dtype dtype) {
    const cr::TensorSpec spec{"x", dtype, {2, 50}, cr::ValueRange{kind, 0.0, 0.0}};
    const golden::Tensor t = cr::MakeInput(spec, 9, "n", 0);
    std::vector<float> out;
    for (uint32_t bits : t.bits) out.push_back(golden::Widen(t.dtype, bits));
    return out;
  };
  for (cr::Dtype dtype : {cr::Dtype::kFloat32, cr::Dtype::kFloat16, cr::Dtype::kBFloat16}) {
    for (float v : values(RangeKind::kZeros, dtype)) EXPECT_EQ(v, 0.0f);
    for (float v : values(RangeKind::kNan, dtype)) EXPECT_TRUE(std::isnan(v));
    for (float v : values(RangeKind::kPosInf, dtype)) EXPECT_EQ(v, INFINITY);
    for (float v : values(RangeKind::kNegInf, dtype)) EXPECT_EQ(v, -INFINITY);
    int positive = 0, negative = 0;
    for (float v : values(RangeKind::kMixedInf, dtype)) {
      ASSERT_TRUE(std::isinf(v));
      (v > 0 ? positive : negative) += 1;
    }
    EXPECT_GT(positive, 0);
    EXPECT_GT(negative, 0);
  }
  EXPECT_EQ(cr::MakeInput(cr::TensorSpec{"x", cr::Dtype::kFloat16, {}, {}}, 1, "n", 0).bits.size(), 1u);  // 0-d
}

TEST(CaseRunnerJudge, BitExactExceptThatAnyNanMatchesAnyNan) {
  const golden::Tensor expected{golden::Dtype::kFloat32, {3}, {0x3f800000u, 0x7fc00000u, 0x00000000u}};
  EXPECT_EQ(cr::CompareExact(expected, expected), "");
  golden::Tensor other_nan = expected;
  other_nan.bits[1] = 0xffc00001u;
  EXPECT_EQ(cr::CompareExact(expected, other_nan), "");
  golden::Tensor negative_zero = expected;
  negative_zero.bits[2] = 0x80000000u;
  EXPECT_EQ(cr::CompareExact(expected, negative_zero), "index 2: expected 0 (0x00000000), actual -0 (0x80000000)");
  const golden::Tensor half{golden::Dtype::kFloat16, {1}, {0x3c00}};
  EXPECT_EQ(cr::CompareExact(half, golden::Tensor{golden::Dtype::kFloat16, {1}, {0x3c01}}),
            "index 0: expected 1 (0x3c00), actual 1.00097656 (0x3c01)");
  EXPECT_EQ(cr::CompareExact(half, golden::Tensor{golden::Dtype::kFloat16, {1, 1}, {0x3c00}}),
            "shape [1, 1] differs from the expected [1]");
}

TEST(CaseRunnerJudge, ToleranceIsPerDtypeAndAShareOfTheElements) {
  // 1000 float16 elements of 1.0; off by one unit (~9.8e-4 relative) is within fp16's 1e-3.
  golden::Tensor expected{golden::Dtype::kFloat16, {1000}, std::vector<uint32_t>(1000, 0x3c00)};
  golden::Tensor actual = expected;
  for (uint32_t& bits : actual.bits) bits = 0x3c01;
  const cr::Tolerance tolerance;
  EXPECT_EQ(cr::CompareTolerance(expected, actual, tolerance), "");
  actual.bits.assign(1000, 0x3c00);
  actual.bits[10] = 0x3c02;  // 2e-3: over, but 1 in 1000 is within the 0.1% share
  EXPECT_EQ(cr::CompareTolerance(expected, actual, tolerance), "");
  actual.bits[20] = 0x7e00;  // a NaN where 1.0 is expected: a second one over
  EXPECT_EQ(cr::CompareTolerance(expected, actual, tolerance),
            "2 of 1000 elements (0.2%) over rtol 0.001 (allowed: 0.1%); first at index 10: expected 1 (0x3c00), "
            "actual 1.00195312 (0x3c02)");
  // float32 values for a bf16 output; infinities must match in sign.
  const golden::Tensor bf16{golden::Dtype::kBFloat16, {2}, {0x3f80, 0x7f80}};
  const golden::Tensor as_float{golden::Dtype::kFloat32, {2}, {0x3f800001u, 0x7f800000u}};
  EXPECT_EQ(cr::CompareTolerance(bf16, as_float, tolerance), "");
  const golden::Tensor wrong_inf{golden::Dtype::kFloat32, {2}, {0x3f800000u, 0xff800000u}};
  EXPECT_NE(cr::CompareTolerance(bf16, wrong_inf, tolerance), "");
}

// ---- mutations of valid files ----

std::string Mutate(std::string text, std::mt19937& rng) {
  static const char kStructural[] = "\"',()[]{}:0123456789-+.eE \n\r\tnaifTFu\\";
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    const size_t at = rng() % (text.size() + 1);
    switch (rng() % 6) {
      case 0:  // flip one bit
        if (!text.empty()) text[at % text.size()] ^= static_cast<char>(1 << (rng() % 8));
        break;
      case 1:  // any byte
        if (!text.empty()) text[at % text.size()] = static_cast<char>(rng());
        break;
      case 2:  // a character that matters to the grammar
        text.insert(at, 1, kStructural[rng() % (sizeof kStructural - 1)]);
        break;
      case 3:  // truncate
        text.resize(at);
        break;
      case 4:  // delete a run
        text.erase(at, rng() % 16);
        break;
      default:  // duplicate a run elsewhere
        text.insert(at, text.substr(rng() % (text.size() + 1), rng() % 32));
        break;
    }
  }
  return text;
}

// "" when the reader's answer is well-formed: an error, or cases that each are readable or say why.
std::string CheckParsed(bool ok, const std::vector<cr::Case>& cases, const std::string& error) {
  if (!ok) return error.empty() ? "failed without a message" : "";
  for (const cr::Case& c : cases) {
    if (c.where.empty()) return "a case without a location";
    if (!c.error.empty() || !c.enabled) continue;
    if (c.name.empty()) return "a readable case without a name";
    for (const cr::TensorSpec& input : c.inputs) {
      int64_t numel = 1;
      for (int64_t dim : input.shape) {
        if (dim < 0) return "a negative dim";
        numel = dim == 0 ? 0 : numel * dim;
      }
      if (numel > cr::kMaxElements) return "a tensor over the limit";
      if (input.range.kind == RangeKind::kUniform && !(input.range.lo <= input.range.hi)) return "a bad range";
    }
    if (c.level == cr::Case::Level::kApi && (c.reductions.empty() || c.reductions.size() > cr::kMaxRangeRuns)) {
      return "a bad reduction list";
    }
  }
  return "";
}

TEST(CaseRunnerFuzz, MutatedCaseFilesParseOrAreReported) {
  std::mt19937 rng(20240601);
  size_t parsed = 0, rejected = 0;
  for (const std::string& valid : {std::string(kCsv), std::string(kJson)}) {
    for (int i = 0; i < 20000; ++i) {
      const std::string text = Mutate(valid, rng);
      std::vector<cr::Case> cases;
      std::string error;
      bool ok = false;
      try {
        ok = cr::ParseCaseText(text, "fuzz", &cases, &error);
      } catch (...) {
        FAIL() << "threw on:\n" << text;
      }
      const std::string problem = CheckParsed(ok, cases, error);
      ASSERT_EQ(problem, "") << "on:\n" << text;
      (ok ? parsed : rejected) += 1;
    }
  }
  EXPECT_GT(parsed, 1000u);  // the mutations reach past the first syntax check
  EXPECT_GT(rejected, 1000u);
}

TEST(CaseRunnerFuzz, MutatedLiteralsAndNpyFilesParseOrAreReported) {
  std::mt19937 rng(7);
  const std::string literals[] = {"((32, 8), (32, 8), ())", "{'reduction': 'mean', 'x': [1.5, -2e3, True, None]}",
                                  "(('-inf', 'inf'), ('nan',), (-1, 1))"};
  for (int i = 0; i < 20000; ++i) {
    for (const std::string& valid : literals) {
      const std::string text = Mutate(valid, rng);
      for (cr::Dialect dialect : {cr::Dialect::kPython, cr::Dialect::kJson}) {
        cr::Value value;
        std::string error;
        if (!cr::ParseLiteral(text, dialect, &value, &error)) {
          ASSERT_FALSE(error.empty()) << text;
        }
      }
    }
  }
  const std::string npy = cr::EncodeNpy(cr::NpyArray{"<f2", {3, 2}, {1, 2, 3, 4, 5, 6}});
  for (int i = 0; i < 20000; ++i) {
    const std::string bytes = Mutate(npy, rng);
    cr::NpyArray array;
    std::string error;
    if (cr::DecodeNpy(bytes, &array, &error)) {
      size_t numel = 1;
      for (int64_t dim : array.shape) numel *= static_cast<size_t>(dim);
      ASSERT_EQ(array.bits.size(), numel);
    } else {
      ASSERT_FALSE(error.empty());
    }
  }
}

}  // namespace
