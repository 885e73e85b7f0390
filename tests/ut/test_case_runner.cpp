// The case runner's core (tools/case_runner): the literal parser in both dialects, the CSV and
// JSON case readers, NPY files, the input generator, the judging, the work pool and JUnit; then
// the readers under random mutation of valid files (byte flips, truncations, insertions): each
// mutated file either parses or is reported, and nothing crashes or throws.
#include <gtest/gtest.h>
#include <hwy/targets.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "case_files.h"
#include "inputs.h"
#include "judge.h"
#include "junit.h"
#include "literal.h"
#include "npy.h"
#include "ops.h"
#include "ops/loss/mse_loss/golden/mse_loss_golden.h"
#include "ops/loss/mse_loss_grad/golden/mse_loss_grad_golden.h"
#include "report.h"
#include "run_tensors.h"
#include "runner.h"
#include "work_pool.h"

namespace {

// The reduction of each of a JSON case's runs.
std::vector<int64_t> Reductions(const case_runner::Case& c) {
  std::vector<int64_t> values;
  for (const case_runner::Case::ApiRun& run : c.api_runs) values.push_back(run.attributes.at(0).integer);
  return values;
}

namespace cr = case_runner;
using Kind = cr::Value::Kind;

// MseLossGrad's inputs in the op table's order: self (predict), target (label), gradOutput (dout).
constexpr size_t kSelf = 0, kTarget = 1, kGrad = 2;

const char kRangeForms[] =
    "expected [lo, hi], [lo, hi, special...], 0, \"nan\", \"inf\", \"-inf\" or a list of specials such as "
    "[\"-inf\", \"inf\"] (specials: numbers, inf, -inf, nan)";

bool IsOnly(const cr::ValueRange& range, float special) {
  if (range.uniform || range.specials.size() != 1) return false;
  return std::isnan(special) ? std::isnan(range.specials[0])
                             : std::memcmp(&range.specials[0], &special, sizeof special) == 0;
}

// A table in ops-nn's ttk CSV form (docs/case-runner.md), with rows that use
// every value-range form.
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

// A case list in ops-nn's atk JSON form (docs/case-runner.md), with a case that
// uses the other forms.
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
  {"id": 1, "name": "forms", "aclnn_name": "aclnnMseLossBackward", "backward": true, "standard": {"x": [1.5e-3, "\u00e9"]},
   "inputs": [
     {"name": "reduction", "type": "attr", "dtype": "int", "range_values": 1},
     {"name": "target", "type": "tensor", "dtype": "fp16", "shape": [3], "range_values": ["-inf", "inf"]},
     {"name": "self", "type": "tensor", "dtype": "fp32", "shape": [3], "range_values": ["inf"]},
     {"name": "gradOutput", "type": "tensor", "dtype": "fp32", "shape": [1], "range_values": "nan"}
   ]},
  {"id": 2, "name": "forms", "aclnn_name": "MseLossBackward", "is_boundary": true,
   "inputs": [
     {"name": "reduction", "type": "attr", "dtype": "int", "range_values": 2},
     {"name": "target", "type": "tensor", "dtype": "fp32", "shape": [3], "range_values": "-inf"},
     {"name": "self", "type": "tensor", "dtype": "fp32", "shape": [3], "range_values": "inf"},
     {"name": "gradOutput", "type": "tensor", "dtype": "fp32", "shape": [3],
      "range_values": [-100, 100, 0, -0.0, "inf", "-inf", "nan"]}
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
  EXPECT_EQ(first.op, cr::FindKernelOp("mse_loss_grad"));
  EXPECT_EQ(first.Label(), "mse_grad_demo_0001");  // CSV rows have no id
  EXPECT_EQ(first.inputs[kSelf].name, "predict");
  EXPECT_EQ(first.inputs[kSelf].shape, (std::vector<int64_t>{32, 8}));
  EXPECT_TRUE(first.inputs[kGrad].shape.empty());
  EXPECT_EQ(first.inputs[kTarget].dtype, cr::Dtype::kFloat16);
  EXPECT_EQ(first.attributes, (std::map<std::string, std::string>{{"reduction", "mean"}}));
  EXPECT_TRUE(first.has_output_shape && first.has_output_dtype);
  EXPECT_EQ(first.output_shape, (std::vector<int64_t>{32, 8}));
  EXPECT_TRUE(first.inputs[0].range.uniform);  // empty: the default range
  EXPECT_EQ(first.inputs[0].range.lo, cr::kDefaultLo);
  EXPECT_EQ(cr::kDefaultLo, -2.0);  // TTK's DEFAULT_LOW and DEFAULT_HIGH
  EXPECT_EQ(first.inputs[0].range.hi, 2.0);
  EXPECT_TRUE(first.inputs[0].range.specials.empty());
  EXPECT_EQ(cases[1].inputs[kTarget].shape, (std::vector<int64_t>{1, 3, 1}));
  EXPECT_EQ(cases[1].output_dtype, cr::Dtype::kBFloat16);
  EXPECT_FALSE(cases[2].enabled);
  const cr::Case& ranges = cases[3];
  EXPECT_TRUE(ranges.attributes.empty());  // no attributes: the definition's default
  EXPECT_FALSE(ranges.has_output_shape);
  EXPECT_EQ(ranges.inputs[0].range.hi, 1.5);
  EXPECT_TRUE(IsOnly(ranges.inputs[1].range, NAN));
  EXPECT_FALSE(ranges.inputs[2].range.uniform);
  EXPECT_EQ(ranges.inputs[2].range.specials, (std::vector<float>{-INFINITY, INFINITY}));
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
  const std::string header =
      "testcase_name,op_name,input_shapes,input_dtypes,attributes,input_data_ranges,is_enabled\n";
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"a,,\"((1,), (1,), (1,), (1,), (1,))\",\"('float32',)\",,,1",
       "field op_name: empty, and 5 input shapes fit no operator; name one of " + cr::KernelOpNames(true)},
      {"a,mse_loss_grad,\"((1,), 2, (1,))\",\"('float32',)\",,,1",
       "field input_shapes: label: a shape must be a list of dims"},
      {"a,mse_loss_grad,\"((1,), (1,), (-1,))\",\"('float32',)\",,,1",
       "field input_shapes: dout: dims must be non-negative integers"},
      {"a,mse_loss_grad,\"((1,), (1,), (1,))\",float64,,,1", "field input_dtypes: column 1: unknown word \"float64\""},
      {"a,mse_loss_grad,\"((1,), (1,), (1,))\",\"('float64',)\",,,1",
       "field input_dtypes: unknown dtype \"float64\"; expected one of float32, float16, bfloat16"},
      {"a,mse_loss_grad,\"((1,), (1,), (1,))\",\"('float32',)\",{'reduction': 1},,1",
       "field attributes: reduction must be a string"},
      {"a,mse_loss_grad,\"((1,), (1,), (1,))\",\"('float32',)\",,\"(2, 1)\",1",
       "field input_data_ranges: the low end of [lo, hi] is above the high end"},
      {"a,mse_loss_grad,\"((1,), (1,), (1,))\",\"('float32',)\",,\"(1, 'uniform')\",1",
       std::string("field input_data_ranges: ") + kRangeForms},
      {"a,mse_loss_grad,\"((1,), (1,), (1,))\",\"('float32',)\",,\"((0, 1), (0, 1), (0, 1), (0, 1))\",1",
       "field input_data_ranges: 4 ranges for 3 inputs (predict, label and dout); TTK marks such a row invalid "
       "(CASE_FIELD_AMBIGUOUS)"},
      {"a,mse_loss_grad,\"((1,), (1,), (1,))\",\"('float32',)\",,\"(None, (0, 1), (0, 1))\",1",
       "field input_data_ranges: predict: None, which TTK gives only an absent optional input; for a given input its "
       "RandomData cannot draw from None"},
      {"a,mse_loss_grad,\"((1,), (1,), (1,))\",\"('float32',)\",,\"(((0, 1), (0, 1)),)\",1",
       "field input_data_ranges: predict: a list of ranges is for a tensor list"},
      {"a,mse_loss_grad,\"((1,), (1,), (1,))\",\"('float32',)\",,\"((0, 1), (0, 1), ('x',))\",1",
       std::string("field input_data_ranges: dout: ") + kRangeForms},
      {"a,mse_loss_grad,\"((1,), (1,), (1,))\",\"('float32',)\",,,yes",
       "field is_enabled: \"yes\" is not TRUE, FALSE (in any case), 1 or 0"},
      {"a,mse_loss_grad,\"((1,), (1,), (1,))\",\"('float32',)\",,,2",
       "field is_enabled: \"2\" is not TRUE, FALSE (in any case), 1 or 0"},
      {",mse_loss_grad,\"((1,), (1,), (1,))\",\"('float32',)\",,,1", "field testcase_name: empty"},
      {"a,mse_loss_grad,\"((4294967296, 4294967296), (1,), (1,))\",\"('float32',)\",,,1",
       "field input_shapes: predict: the element count overflows 64 bits"},
      {"a,b", "the row has 2 fields, the header 7"},
  };
  for (const auto& row : rows) {
    const std::vector<cr::Case> cases =
        ParseCases(header + "good,mse_loss_grad,\"((1,), (1,), (1,))\",float32,,,0\n" + row.first);
    ASSERT_EQ(cases.size(), 2u);
    EXPECT_EQ(cases[0].error, "");
    EXPECT_EQ(cases[1].error, row.second) << row.first;
    EXPECT_EQ(cases[1].where, "t line 3");
  }
}

TEST(CaseRunnerJsonCases, TheExampleOfCasesMd) {
  const std::vector<cr::Case> cases = ParseCases(kJson);
  ASSERT_EQ(cases.size(), 3u);
  const cr::Case& demo = cases[0];
  EXPECT_EQ(demo.error, "");
  EXPECT_EQ(demo.level, cr::Case::Level::kApi);
  EXPECT_EQ(demo.op, cr::FindApiOp("MseLossBackward"));
  EXPECT_EQ(demo.where, "t case id 0 at line 2");
  EXPECT_EQ(demo.Label(), "mse_backward_demo#0");
  EXPECT_EQ(Reductions(demo), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(demo.api_runs[2].suffix, "[reduction=2]");  // a range: each run names its value
  EXPECT_EQ(demo.inputs[kGrad].name, "gradOutput");
  EXPECT_EQ(demo.inputs[kGrad].shape, (std::vector<int64_t>{6, 1, 4}));
  EXPECT_EQ(demo.inputs[kGrad].range.hi, 10.0);
  EXPECT_TRUE(IsOnly(demo.inputs[kSelf].range, NAN));
  EXPECT_EQ(demo.inputs[kSelf].dtype, cr::Dtype::kBFloat16);
  EXPECT_TRUE(demo.inputs[kTarget].shape.empty());
  EXPECT_TRUE(IsOnly(demo.inputs[kTarget].range, 0.0f));
  const cr::Case& forms = cases[1];  // aclnn_name with its aclnn prefix
  EXPECT_EQ(forms.error, "");
  EXPECT_EQ(forms.op, cr::FindApiOp("MseLossBackward"));
  EXPECT_EQ(Reductions(forms), (std::vector<int64_t>{1}));
  EXPECT_EQ(forms.api_runs[0].suffix, "");
  EXPECT_EQ(forms.inputs[kTarget].range.specials, (std::vector<float>{-INFINITY, INFINITY}));
  EXPECT_TRUE(IsOnly(forms.inputs[kSelf].range, INFINITY));
  EXPECT_TRUE(IsOnly(forms.inputs[kGrad].range, NAN));
  // The same name again with another id: another case. Bare "inf", "-inf"; a range with specials.
  const cr::Case& again = cases[2];
  EXPECT_EQ(again.error, "");
  EXPECT_EQ(again.Label(), "forms#2");
  EXPECT_TRUE(IsOnly(again.inputs[kSelf].range, INFINITY));
  EXPECT_TRUE(IsOnly(again.inputs[kTarget].range, -INFINITY));
  const cr::ValueRange& mixed = again.inputs[kGrad].range;
  EXPECT_TRUE(mixed.uniform);
  EXPECT_EQ(mixed.lo, -100.0);
  EXPECT_EQ(mixed.hi, 100.0);
  ASSERT_EQ(mixed.specials.size(), 5u);
  EXPECT_EQ(mixed.specials[0], 0.0f);
  EXPECT_FALSE(std::signbit(mixed.specials[0]));
  EXPECT_TRUE(std::signbit(mixed.specials[1]) && mixed.specials[1] == 0.0f);  // -0 keeps its sign
  EXPECT_EQ(mixed.specials[2], INFINITY);
  EXPECT_EQ(mixed.specials[3], -INFINITY);
  EXPECT_TRUE(std::isnan(mixed.specials[4]));
}

// An attribute the API names otherwise than its kernel: ATK lists SmoothL1LossBackward's beta, TTK's
// rows SmoothL1LossGradV2's sigma (a float), both the declaration's attribute sigma.
TEST(CaseRunnerJsonCases, AttributesByTheApisNamesAndRowsByTheKernels) {
  const std::string inputs =
      R"({"name": "gradOut", "type": "tensor", "dtype": "fp32", "shape": [], "range_values": [-5, 5]},
         {"name": "self", "type": "tensor", "dtype": "fp32", "shape": [3, 2], "range_values": [-5, 5]},
         {"name": "target", "type": "tensor", "dtype": "fp32", "shape": [3, 2], "range_values": [-5, 5]},
         {"name": "reduction", "type": "attr", "dtype": "int", "range_values": 2},)";
  const std::vector<cr::Case> cases =
      ParseCases(R"([{"id": 0, "name": "sl1", "aclnn_name": "SmoothL1LossBackward", "inputs": [)" + inputs +
                 R"({"name": "beta", "type": "attr", "dtype": "float32", "range_values": 0.7}]},
          {"id": 1, "name": "sl1", "aclnn_name": "SmoothL1LossBackward", "inputs": [)" +
                 inputs + R"({"name": "sigma", "type": "attr", "dtype": "float32", "range_values": 0.7}]}])");
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].error, "");
  ASSERT_EQ(cases[0].api_runs.size(), 1u);
  const std::vector<aclcpu::AttrValue>& values = cases[0].api_runs[0].attributes;  // the declaration's order
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values[0].real, 0.7);
  EXPECT_EQ(values[1].integer, 2);
  EXPECT_EQ(cases[1].error, "field inputs[4].name: unknown attr \"sigma\"; the API has reduction and beta");

  const std::vector<cr::Case> rows = ParseCases(
      "testcase_name,op_name,input_shapes,input_dtypes,output_shapes,output_dtypes,attributes\n"
      "sl1_row,smooth_l1_loss_grad_v2,\"((4,), (4,), (4,))\",\"('float32',)\",\"((4,),)\",\"('float32',)\","
      "\"{'sigma': 0.7, 'reduction': 'sum'}\"\n"
      "sl1_int,smooth_l1_loss_grad_v2,\"((4,), (4,), (4,))\",\"('float32',)\",,,\"{'sigma': 1, 'reduction': 'x'}\"\n"
      "sl1_str,smooth_l1_loss_grad_v2,\"((4,), (4,), (4,))\",\"('float32',)\",,,\"{'sigma': '1', 'reduction': "
      "'x'}\"\n");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].error, "");
  EXPECT_EQ(rows[0].op, cr::FindKernelOp("smooth_l1_loss_grad_v2"));
  std::vector<aclcpu::AttrValue> kernel;
  std::string why;
  ASSERT_TRUE(cr::KernelAttributes(rows[0], &kernel, &why)) << why;
  EXPECT_EQ(kernel[0].real, 0.7);
  EXPECT_EQ(kernel[1].integer, 2);  // sum
  EXPECT_EQ(rows[1].error, "");     // an integer is a number; the reduction's name is judged later
  EXPECT_FALSE(cr::KernelAttributes(rows[1], &kernel, &why));
  EXPECT_NE(rows[2].error.find("sigma must be"), std::string::npos) << rows[2].error;
}

// An attribute the API fixes (aclnnL1Loss passes LpLoss p = 1 itself): ATK lists no such parameter,
// the run carries the fixed value, and listing it is an unknown attr.
TEST(CaseRunnerJsonCases, AnAttributeTheApiFixes) {
  const std::string inputs =
      R"({"name": "self", "type": "tensor", "dtype": "fp32", "shape": [3], "range_values": [-5, 5]},
         {"name": "target", "type": "tensor", "dtype": "fp32", "shape": [3], "range_values": [-5, 5]},
         {"name": "reduction", "type": "attr", "dtype": "int", "range_values": 1})";
  const std::vector<cr::Case> cases =
      ParseCases(R"([{"id": 0, "name": "l1", "aclnn_name": "L1Loss", "inputs": [)" + inputs + R"(]},
                    {"id": 1, "name": "l1", "aclnn_name": "L1Loss", "inputs": [)" +
                 inputs + R"(, {"name": "p", "type": "attr", "dtype": "int", "range_values": 1}]}])");
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].error, "");
  ASSERT_EQ(cases[0].api_runs.size(), 1u);
  const std::vector<aclcpu::AttrValue>& values = cases[0].api_runs[0].attributes;  // p, reduction
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values[0].integer, 1);
  EXPECT_EQ(values[1].integer, 1);
  EXPECT_EQ(cases[1].error, "field inputs[3].name: unknown attr \"p\"; the API has only reduction");
}

TEST(CaseRunnerCsvCases, RealTableForms) {
  // The columns of ops-nn's own tables, bare inf/nan mixed into a range, -0, and a tolerance.
  const std::string text =
      "testcase_name,network_name,op_name,input_shapes,input_dtypes,input_formats,output_shapes,output_dtypes,"
      "output_formats,input_ori_shapes,input_ori_formats,output_ori_shapes,output_ori_formats,attributes,"
      "input_data_ranges,precision_tolerances,absolute_precision,output_inplace_indexes,"
      "output_shape_unknown_indexes,is_enabled,remark,soc_series,priority,dump_file_prefix,manual_input_binaries,"
      "manual_golden_binaries\n"
      "real_0,Pnet,mse_loss_grad,\"((4, 2), (4, 2), ())\",\"('bfloat16',)\",,\"((4, 2),)\",\"('bfloat16',)\",,"
      "\"((4, 2), (4, 2), ())\",,,,{'reduction': 'sum'},\"((-100, 100,0,-0,inf,-inf,nan), (-1, 1), (2, 3))\","
      "\"((0.001, 0.002),)\",,(),(),1,,,,,(),()\n"
      "real_1,Pnet,MseLossGrad,\"((4,), (4,), (4,))\",\"('float16',)\",,,,,,,,,,\"(-inf, inf)\",(),,,,1,,,,,,\n";
  const std::vector<cr::Case> cases = ParseCases(text);
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].error, "");
  const cr::ValueRange& predict = cases[0].inputs[kSelf].range;
  EXPECT_TRUE(predict.uniform);
  EXPECT_EQ(predict.lo, -100.0);
  ASSERT_EQ(predict.specials.size(), 5u);
  EXPECT_TRUE(std::signbit(predict.specials[1]));
  EXPECT_EQ(predict.specials[3], -INFINITY);
  EXPECT_TRUE(std::isnan(predict.specials[4]));
  EXPECT_EQ(cases[0].inputs[kGrad].range.lo, 2.0);
  EXPECT_EQ(cases[0].tolerances.rtol, 0.001);
  EXPECT_EQ(cases[0].tolerances.ptol, 0.002);
  EXPECT_FALSE(cases[0].tolerances.atol.has_value());  // absolute_precision empty
  EXPECT_EQ(cases[1].error, "");                       // the definition's type as op_name; () for no tolerance
  EXPECT_FALSE(cases[1].tolerances.rtol.has_value());
  for (const cr::TensorSpec& input : cases[1].inputs) {
    EXPECT_EQ(input.range.specials, (std::vector<float>{-INFINITY, INFINITY}));
    EXPECT_FALSE(input.range.uniform);
  }
  const std::string header = "testcase_name,op_name,input_shapes,input_dtypes,precision_tolerances\n";
  EXPECT_EQ(ParseCases(header + "x,mse_loss_v2,\"((1,), (1,), (1,))\",\"('float32',)\",\n")[0].error,
            "field op_name: \"mse_loss_v2\" is not an operator this runner knows; expected " + cr::KernelOpNames());
  EXPECT_NE(cr::KernelOpNames().find("mse_loss_grad"), std::string::npos);
  EXPECT_EQ(ParseCases(header + "x,mse_loss,\"((1,), (1,), (1,))\",\"('float32',)\",\n")[0].error,
            "field input_shapes: expected 2 shapes (predict and label)");
  // precision_tolerances is compare mode's: one it cannot use leaves the row readable for a self-run.
  const std::string one_pair =
      "field precision_tolerances: expected one (relative error, share) pair such as ((0.001, 0.001),): the "
      "operator has one output";
  for (const char* tolerances : {"((0.1,),)", "((0.001, 0.001), (0.01, 0.01))"}) {
    const cr::Case c =
        ParseCases(header + "x,mse_loss_grad,\"((1,), (1,), (1,))\",\"('float32',)\",\"" + tolerances + "\"\n")[0];
    EXPECT_EQ(c.error, "") << tolerances;
    EXPECT_EQ(c.compare_error, one_pair) << tolerances;
  }
  EXPECT_EQ(
      ParseCases(header + "x,mse_loss_grad,\"((1,), (1,), (1,))\",\"('float32',)\",\"((0.1, 2),)\"\n")[0].compare_error,
      "field precision_tolerances: the relative error must be non-negative and the share from 0 to 1");
  const cr::Case flat =
      ParseCases(header + "x,mse_loss_grad,\"((1,), (1,), (1,))\",\"('float32',)\",\"(0.01, 0.02)\"\n")[0];
  EXPECT_EQ(flat.compare_error, "");  // the pair alone, as TTK also reads it
  EXPECT_EQ(flat.tolerances.rtol, 0.01);
  EXPECT_EQ(flat.tolerances.ptol, 0.02);
  // TTK's close takes an rtol of 0 (with an atol of 0: equality); and absolute_precision is read.
  const std::string with_atol =
      "testcase_name,op_name,input_shapes,input_dtypes,precision_tolerances,"
      "absolute_precision\n";
  const std::vector<cr::Case> zero =
      ParseCases(with_atol + "x,mse_loss_grad,\"((1,), (1,), (1,))\",\"('float32',)\",\"((0, 0),)\",0\n");
  EXPECT_EQ(zero[0].error, "");
  EXPECT_EQ(zero[0].tolerances.rtol, 0.0);
  EXPECT_EQ(zero[0].tolerances.atol, 0.0);
  EXPECT_EQ(ParseCases(with_atol + "x,mse_loss_grad,\"((1,), (1,), (1,))\",\"('float32',)\",,\"(1e-5,)\"\n")[0]
                .tolerances.atol,
            1e-5);
  // A self-run does not read absolute_precision: an unreadable one concerns compare mode only.
  const cr::Case negative = ParseCases(with_atol + "x,mse_loss_grad,\"((1,), (1,), (1,))\",\"('float32',)\",,-1\n")[0];
  EXPECT_EQ(negative.error, "");
  EXPECT_EQ(negative.compare_error,
            "field absolute_precision: expected a non-negative number such as 1e-8, or one in a tuple");
}

// The forms of ops-nn's tables as TTK reads them (docs/case-runner.md).
TEST(CaseRunnerCsvCases, TtkFormsOfIsEnabledAndInputDataRanges) {
  const std::string header = "testcase_name,op_name,input_shapes,input_dtypes,input_data_ranges,is_enabled\n";
  const std::string grad = "x,mse_loss_grad,\"((2,), (2,), (2,))\",\"('float32',)\",";
  auto row = [&](const std::string& ranges, const std::string& enabled) {
    const std::vector<cr::Case> cases = ParseCases(header + grad + "\"" + ranges + "\"," + enabled + "\n");
    EXPECT_EQ(cases.size(), 1u);
    return cases.front();
  };
  // is_enabled: TRUE and FALSE in any case, 1 and 0, empty for TTK's default True.
  for (const char* on : {"TRUE", "True", "true", "tRuE", "1", ""}) {
    const cr::Case c = row("", on);
    EXPECT_EQ(c.error, "") << on;
    EXPECT_TRUE(c.enabled) << on;
  }
  for (const char* off : {"FALSE", "False", "false", "0"}) {
    const cr::Case c = row("", off);
    EXPECT_EQ(c.error, "") << off;
    EXPECT_FALSE(c.enabled) << off;
  }
  auto lo_hi = [](const cr::Case& c, size_t i) { return std::make_pair(c.inputs[i].range.lo, c.inputs[i].range.hi); };
  const std::pair<double, double> standard{-2.0, 2.0};
  // Empty, None, (), ((None, None),), (None, None): [-2, 2] for every input.
  for (const char* ranges : {"", "None", "()", "((None, None),)", "(None, None)", "((),)", "[(None, None)]"}) {
    const cr::Case c = row(ranges, "TRUE");
    ASSERT_EQ(c.error, "") << ranges;
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(lo_hi(c, i), standard) << ranges;
      EXPECT_TRUE(c.inputs[i].range.uniform && c.inputs[i].range.specials.empty()) << ranges;
    }
  }
  // A list of one range: every input; a shorter list: padded with (None, None).
  const cr::Case one = row("((0.0, 1.0),)", "1");
  ASSERT_EQ(one.error, "");
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(lo_hi(one, i), std::make_pair(0.0, 1.0));
  const cr::Case one_with_specials = row("((-1, 1, nan, inf),)", "1");
  ASSERT_EQ(one_with_specials.error, "");
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(one_with_specials.inputs[i].range.specials.size(), 2u);
  const cr::Case short_list = row("((5, 6), (None, 7))", "1");
  ASSERT_EQ(short_list.error, "");
  EXPECT_EQ(lo_hi(short_list, kSelf), std::make_pair(5.0, 6.0));
  EXPECT_EQ(lo_hi(short_list, kTarget), std::make_pair(-2.0, 7.0));
  EXPECT_EQ(lo_hi(short_list, kGrad), standard);
  // (x,) is (x, x): every element x, a special when x is not finite.
  const cr::Case single = row("((3,), (-inf,), (nan,))", "1");
  ASSERT_EQ(single.error, "");
  EXPECT_TRUE(IsOnly(single.inputs[kSelf].range, 3.0f));
  EXPECT_TRUE(IsOnly(single.inputs[kTarget].range, -INFINITY));
  EXPECT_TRUE(IsOnly(single.inputs[kGrad].range, NAN));
  const cr::Case flat_single = row("(0.5,)", "1");
  ASSERT_EQ(flat_single.error, "");
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(IsOnly(flat_single.inputs[i].range, 0.5f));
  // None ends: -2 below, 2 above.
  const cr::Case ends = row("((None, 5), (1, None), (None, None, nan))", "1");
  ASSERT_EQ(ends.error, "");
  EXPECT_EQ(lo_hi(ends, kSelf), std::make_pair(-2.0, 5.0));
  EXPECT_EQ(lo_hi(ends, kTarget), std::make_pair(1.0, 2.0));
  EXPECT_EQ(lo_hi(ends, kGrad), standard);
  EXPECT_EQ(ends.inputs[kGrad].range.specials.size(), 1u);
  // The operator is read first: a row of an operator the runner lacks is refused for that alone.
  const std::vector<cr::Case> unknown = ParseCases(
      header + "y,soft_margin_loss_grad,\"((2,), None, (2,), None)\",\"('float32', None)\",\"((0, 1), None)\",TRUE\n");
  EXPECT_EQ(
      unknown[0].error,
      "field op_name: \"soft_margin_loss_grad\" is not an operator this runner knows; expected " + cr::KernelOpNames());
}

// The default range as generated: U[-2, 2], both ends reached closely.
TEST(CaseRunnerInputs, TheDefaultRangeIsTtksMinusTwoToTwo) {
  const std::vector<cr::Case> cases = ParseCases(
      "testcase_name,op_name,input_shapes,input_dtypes\nx,mse_loss_grad,\"((4096,), (4096,), "
      "(4096,))\",\"('float32',)\"\n");
  ASSERT_EQ(cases[0].error, "");
  for (const cr::TensorSpec& input : cases[0].inputs) {
    std::vector<uint32_t> bits(4096);
    cr::GenerateInput(input, cr::InputKey(1, cases[0], input.name), 0, 4096, reinterpret_cast<char*>(bits.data()));
    float lo = INFINITY, hi = -INFINITY;
    for (uint32_t b : bits) {
      float v;
      std::memcpy(&v, &b, sizeof v);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    EXPECT_GE(lo, -2.0f);
    EXPECT_LE(hi, 2.0f);
    EXPECT_LT(lo, -1.99f);
    EXPECT_GT(hi, 1.99f);
  }
}

// TTK's aclnn-level tables (an api_name column): read row by row, each refused with the API it calls.
TEST(CaseRunnerCsvCases, AclnnLevelTablesAreRefusedRowByRow) {
  const std::string text =
      "testcase_name,api_name,tensor_view_shapes,tensor_dtypes,output_tensor_indexes,is_enabled\n"
      "a,aclnnFusedCrossEntropyLossWithMaxSum,\"((2,), None)\",\"('float32', None)\",\"(1,)\",True\n"
      "b,aclnnMseLossBackward,\"((2,), (2,), (2,), (2,))\",float32,\"(3,)\",\n"
      "c,aclnnMseLoss,\"((2,), (2,), ())\",float32,\"(2,)\",FALSE\n"
      "d,,,,,1\n";
  const std::vector<cr::Case> cases = ParseCases(text);
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_EQ(cases[0].error,
            "field api_name: aclnnFusedCrossEntropyLossWithMaxSum is not an operator this runner knows (its APIs: " +
                cr::ApiOpNames() + ")");
  EXPECT_EQ(cases[1].error,
            "field api_name: aclnnMseLossBackward: rows of TTK's aclnn-level tables (api_name, tensor_view_shapes, "
            "...) are not run yet; run its cases from an ATK JSON case list or a kernel-level table");
  EXPECT_EQ(cases[2].error, "");
  EXPECT_FALSE(cases[2].enabled);
  EXPECT_EQ(cases[3].error, "field api_name: empty");
  EXPECT_EQ(cases[3].where, "t line 5");
}

// ATK's lists write aclnn_name with or without the aclnn prefix.
TEST(CaseRunnerJsonCases, AclnnNameWithItsPrefix) {
  EXPECT_EQ(cr::FindApiOp("aclnnMseLoss"), cr::FindApiOp("MseLoss"));
  EXPECT_EQ(cr::FindApiOp("aclnnMseLossBackward"), cr::FindApiOp("MseLossBackward"));
  EXPECT_NE(cr::FindApiOp("aclnnMseLossOut"), nullptr);
  EXPECT_EQ(cr::FindApiOp("aclnn"), nullptr);
  EXPECT_EQ(cr::FindApiOp("aclnnLogit"), nullptr);
  std::string text = kJson;
  const std::string plain = "\"aclnn_name\": \"MseLossBackward\"";
  text.replace(text.find(plain), plain.size(), "\"aclnn_name\": \"aclnnMseLossBackward\"");
  const std::vector<cr::Case> cases = ParseCases(text);
  EXPECT_EQ(cases[0].error, "");
  EXPECT_EQ(cases[0].op, cr::FindApiOp("MseLossBackward"));
}

TEST(CaseRunnerJsonCases, AnUnreadableCaseIsReportedAndTheOthersKept) {
  auto input = [](const char* name, const char* range) {
    return std::string("{\"name\": \"") + name + "\", \"type\": \"tensor\", \"dtype\": \"fp32\", \"shape\": [2], " +
           "\"range_values\": " + range + "}";
  };
  auto with = [&](const char* grad_range, const char* reduction, const std::string& extra) {
    return std::string("{\"id\": 7, \"name\": \"c\", \"aclnn_name\": \"MseLossBackward\", \"inputs\": [") +
           input("gradOutput", grad_range) + ", " + input("self", "[0, 1]") + ", " + input("target", "0") +
           ", {\"name\": \"reduction\", \"type\": \"attr\", \"range_values\": " + reduction + "}" + extra + "]}";
  };
  const std::string forms = std::string("field inputs[0].range_values: ") + kRangeForms;
  const std::vector<std::pair<std::string, std::string>> bad = {
      {with("[\"nan\", \"x\"]", "1", ""), forms},
      {with("1", "1", ""), forms},
      {with("[\"inf\", \"1\"]", "1", ""), forms},
      {with("[]", "1", ""), forms},
      {with("\"uniform\"", "1", ""), forms},
      {with("[1, 0]", "1", ""), "field inputs[0].range_values: the low end of [lo, hi] is above the high end"},
      {with("[0, 1]", "[2, 0]", ""), "field inputs[3].range_values: the low end of [lo, hi] is above the high end"},
      {with("[0, 1]", "[0, 1000]", ""), "field inputs[3].range_values: more than 256 values"},
      {with("[0, 1]", "1.5", ""), "field inputs[3].range_values: expected an integer or [lo, hi] of integers"},
      {with("[0, 1]", "1", ", " + input("out", "0")),
       "field inputs[4].name: unknown tensor \"out\"; MseLossBackward takes self, target and gradOutput (out is not "
       "listed)"},
      {with("[0, 1]", "1", ", " + input("self", "0")), "field inputs[4].name: self is listed twice"},
      {"{\"id\": 7, \"name\": \"c\", \"aclnn_name\": \"Add\", \"inputs\": []}",
       "field aclnn_name: \"Add\" is not an API this runner knows; expected " + cr::ApiOpNames()},
      {"{\"id\": 7, \"name\": \"c\", \"aclnn_name\": \"MseLoss\", \"inputs\": []}", "field inputs: no self tensor"},
      {"{\"id\": 7, \"name\": \"c\", \"inputs\": []}", "field aclnn_name: missing, and the tensors it lists () fit " +
                                                           cr::OpNames(cr::ApiOpsFor({}), true) + "; name one of " +
                                                           cr::ApiOpNames(true)},
      {"{\"id\": 7, \"inputs\": []}", "field name: missing, or not a non-empty string"},
      {"{\"name\": \"c\", \"inputs\": []}", "field id: missing, or not an integer"},
      {"{\"id\": \"7\", \"name\": \"c\", \"inputs\": []}", "field id: missing, or not an integer"},
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

// The forward op's real forms: ops-nn's 26 columns with CRLF line ends, reducing rows whose
// output_shapes repeats the input's shape or says (1,), flat output_shapes, specials mixed in, and
// rows that name no op.
const char kForwardCsv[] =
    "testcase_name,network_name,op_name,input_shapes,input_dtypes,input_formats,output_shapes,output_dtypes,"
    "output_formats,input_ori_shapes,input_ori_formats,output_ori_shapes,output_ori_formats,attributes,"
    "input_data_ranges,precision_tolerances,absolute_precision,output_inplace_indexes,"
    "output_shape_unknown_indexes,is_enabled,remark,soc_series,priority,dump_file_prefix,manual_input_binaries,"
    "manual_golden_binaries\r\n"
    "f_mean,UNKNOWN,mse_loss,\"((8,3,2), (8,3,2))\",\"('float16', 'float16')\",\"('ND', 'ND')\",\"((8,3,2),)\","
    "\"('float16',)\",\"('ND',)\",\"((8,3,2), (8,3,2))\",\"('ND', 'ND')\",\"((8,3,2),)\",\"('ND',)\","
    "{'reduction': 'mean'},\"((-100, 100,0,-0,inf,-inf,nan), (-1, 1))\",\"((0.0001, 0.0001),)\",,,,1,,,,,(),()\r\n"
    "f_sum,UNKNOWN,mse_loss,\"((5,), (5,))\",\"('bfloat16', 'bfloat16')\",,\"((1,),)\",\"('bfloat16',)\",,,,,,"
    "{'reduction': 'sum'},\"((0, 0), (-1, 1))\",,,,,1,,,,,(),()\r\n"
    "f_flat,UNKNOWN,mse_loss,\"((64,30,2), (64,30,2))\",\"('float32', "
    "'float32')\",,\"(64,30,2)\",\"('float32',)\",,,,,,"
    "{'reduction': 'none'},,,,,,1,,,,,(),()\r\n"
    "f_paren,UNKNOWN,MseLoss,\"((4,8,1,10), (4,8,1,10))\",\"('float32',)\",,\"((4,8,1,10))\",,,,,,,"
    "{'reduction': 'none'},,,,,,1,,,,,(),()\r\n"
    "f_0d,UNKNOWN,mse_loss,\"((3,), (3,))\",\"('float32',)\",,(),,,,,,,{'reduction': 'mean'},,,,,,1,,,,,(),()\r\n"
    "f_unnamed,UNKNOWN,,\"((3,), (3,))\",\"('float32',)\",,,,,,,,,,,,,,,1,,,,,(),()\r\n"
    "g_unnamed,UNKNOWN,,\"((3,), (3,), ())\",\"('float32',)\",,,,,,,,,,,,,,,1,,,,,(),()\r\n";

TEST(CaseRunnerCsvCases, ForwardTableForms) {
  const std::vector<cr::Case> cases = ParseCases(kForwardCsv);
  ASSERT_EQ(cases.size(), 7u);
  for (size_t i = 0; i + 2 < cases.size(); ++i) EXPECT_EQ(cases[i].error, "") << cases[i].name;
  const cr::OpInfo* loss = cr::FindKernelOp("mse_loss");
  ASSERT_NE(loss, nullptr);
  EXPECT_EQ(cr::FindKernelOp("MseLoss"), loss);        // the definition's type
  EXPECT_EQ(cr::FindApiOp("MseLoss"), loss);           // one entry: both levels
  EXPECT_EQ(cr::FindKernelOp("MseLossOut"), nullptr);  // an API without a kernel row
  const cr::Case& mean = cases[0];
  EXPECT_EQ(mean.op, loss);
  ASSERT_EQ(mean.inputs.size(), 2u);
  EXPECT_EQ(mean.inputs[0].name, "predict");
  EXPECT_EQ(mean.inputs[1].name, "label");
  EXPECT_EQ(mean.inputs[1].shape, (std::vector<int64_t>{8, 3, 2}));
  EXPECT_EQ(mean.output_shape, (std::vector<int64_t>{8, 3, 2}));  // as the table says; the runner sets it aside
  EXPECT_EQ(mean.inputs[0].range.specials.size(), 5u);
  EXPECT_EQ(mean.tolerances.rtol, 0.0001);
  EXPECT_EQ(cases[1].output_shape, (std::vector<int64_t>{1}));
  EXPECT_TRUE(cases[1].inputs[0].range.uniform);  // (0, 0): uniform in [0, 0]
  EXPECT_EQ(cases[1].inputs[0].range.hi, 0.0);
  // Flat output_shapes: the shape itself, and Python's parentheses around one tuple.
  EXPECT_TRUE(cases[2].has_output_shape);
  EXPECT_EQ(cases[2].output_shape, (std::vector<int64_t>{64, 30, 2}));
  EXPECT_EQ(cases[3].op, loss);
  EXPECT_EQ(cases[3].output_shape, (std::vector<int64_t>{4, 8, 1, 10}));
  EXPECT_TRUE(cases[4].has_output_shape);  // () is 0-d
  EXPECT_TRUE(cases[4].output_shape.empty());
  // No op_name: a row runs the one kernel op that takes as many inputs. Two shapes fit three
  // (mse_loss, lp_loss, smooth_l1_loss_v2) and three shapes two (mse_loss_grad, l1_loss_grad): such a
  // row must name its op.
  for (size_t inputs : {2u, 3u}) {
    ASSERT_GT(cr::KernelOpsTaking(inputs).size(), 1u);
    EXPECT_EQ(cases[inputs + 3].error, "field op_name: empty, and " + std::to_string(inputs) + " input shapes fit " +
                                           cr::OpNames(cr::KernelOpsTaking(inputs), false) + "; name one of " +
                                           cr::KernelOpNames(true));
  }
  const std::vector<const cr::OpInfo*> two = cr::KernelOpsTaking(2);
  EXPECT_NE(std::find(two.begin(), two.end(), loss), two.end());
  EXPECT_TRUE(cr::KernelOpsTaking(1).empty());

  const std::string header = "testcase_name,op_name,input_shapes,input_dtypes,output_shapes\n";
  EXPECT_EQ(ParseCases(header + "x,mse_loss,\"((1,), (1,))\",'float32',\"((1,), (1,))\"\n")[0].error,
            "field output_shapes: expected one shape, such as ((32, 8),) or (32, 8)");
  EXPECT_EQ(ParseCases(header + "x,mse_loss,\"((1,), (1,))\",'float32',\"(1, 'a')\"\n")[0].error,
            "field output_shapes: expected one shape, such as ((32, 8),) or (32, 8)");
  EXPECT_EQ(ParseCases(header + "x,mse_loss,\"((1,), (1,))\",'float32',\"(-1,)\"\n")[0].error,
            "field output_shapes: dims must be non-negative integers");
  EXPECT_EQ(ParseCases(header + "x,,\"((1,),)\",'float32',\n")[0].error,
            "field op_name: empty, and 1 input shapes fit no operator; name one of " + cr::KernelOpNames(true));
  // The input_shapes error comes first when the shapes cannot be read at all.
  EXPECT_EQ(ParseCases(header + "x,,\"((1,)\",'float32',\n")[0].error.rfind("field input_shapes: ", 0), 0u);
}

TEST(CaseRunnerJsonCases, ForwardListForms) {
  auto tensor = [](const char* name, const char* dtype, const char* shape) {
    return std::string("{\"name\": \"") + name + "\", \"type\": \"tensor\", \"required\": true, \"dtype\": \"" + dtype +
           "\", \"shape\": " + shape + ", \"range_values\": [-1, 1], \"backward\": true, \"align_32B\": null}";
  };
  auto one = [&](int id, const char* api, const std::string& inputs) {
    return std::string("{\"id\": ") + std::to_string(id) + ", \"name\": \"test_mse_loss\"" +
           (api[0] != '\0' ? std::string(", \"aclnn_name\": \"") + api + "\"" : std::string()) +
           ", \"api_type\": \"ascend_aclnn_mse_loss\", \"standard\": {\"acc\": \"single_bm\", \"perf\": \"not_key\"}, "
           "\"inputs\": [" +
           inputs + ", {\"name\": \"reduction\", \"type\": \"attr\", \"required\": true, \"dtype\": \"int\", " +
           "\"shape\": null, \"range_values\": [0, 2], \"backward\": false, \"align_32B\": null}]}";
  };
  const std::string pair = tensor("self", "bf16", "[4, 3]") + ", " + tensor("target", "fp32", "[1, 3]");
  const std::vector<cr::Case> cases =
      ParseCases("[" + one(0, "MseLoss", pair) + ", " + one(1, "MseLossOut", pair) + ", " + one(2, "", pair) + ", " +
                 one(3, "", tensor("gradOutput", "fp16", "[]") + ", " + pair) + "]");
  ASSERT_EQ(cases.size(), 4u);
  const cr::OpInfo* loss = cr::FindApiOp("MseLoss");
  const cr::OpInfo* out = cr::FindApiOp("MseLossOut");
  ASSERT_NE(out, nullptr);
  EXPECT_NE(loss, out);
  EXPECT_EQ(cases[0].error, "");
  EXPECT_EQ(cases[0].op, loss);
  EXPECT_EQ(cases[0].Label(), "test_mse_loss#0");
  EXPECT_EQ(cases[0].inputs[0].dtype, cr::Dtype::kBFloat16);  // self and target keep their own dtypes
  EXPECT_EQ(cases[0].inputs[1].dtype, cr::Dtype::kFloat32);
  EXPECT_EQ(cases[0].inputs[1].shape, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(Reductions(cases[0]), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(cases[1].error, "");
  EXPECT_EQ(cases[1].op, out);
  EXPECT_EQ(cases[1].Label(), "test_mse_loss#1");
  // No aclnn_name: self and target fit every forward API (MseLoss, MseLossOut, L1Loss, ...), so the
  // case names one; gradOutput, self and target fit MseLossBackward and L1LossBackward alike.
  EXPECT_EQ(cases[2].error, "field aclnn_name: missing, and the tensors it lists (self, target) fit " +
                                cr::OpNames(cr::ApiOpsFor({"self", "target"}), true) + "; name one of " +
                                cr::ApiOpNames(true));
  EXPECT_EQ(cases[3].error.rfind("field aclnn_name: missing, and the tensors it lists (gradOutput, self, target) fit "
                                 "L1LossBackward or MseLossBackward; ",
                                 0),
            0u);
  const std::vector<const cr::OpInfo*> forward = cr::ApiOpsFor({"self", "target"});
  EXPECT_NE(std::find(forward.begin(), forward.end(), loss), forward.end());
  EXPECT_NE(std::find(forward.begin(), forward.end(), out), forward.end());
  EXPECT_EQ(std::find(forward.begin(), forward.end(), cr::FindApiOp("MseLossBackward")), forward.end());
  EXPECT_EQ(cr::ApiOpsFor({"target", "gradOutput"}),
            (std::vector<const cr::OpInfo*>{cr::FindApiOp("L1LossBackward"), cr::FindApiOp("MseLossBackward")}));
  EXPECT_EQ(cr::ApiOpsFor({"self", "out"}), forward);  // "out" chooses nothing
  // The declarations' order: by folder, then as each declares its APIs.
  EXPECT_NE(cr::ApiOpNames().find("MseLoss, MseLossOut, MseLossBackward"), std::string::npos) << cr::ApiOpNames();
  EXPECT_NE(cr::ApiOpNames().find("SmoothL1LossBackward"), std::string::npos) << cr::ApiOpNames();
  // MseLossOut takes what MseLoss takes: a backward tensor is an error naming the API.
  const std::vector<cr::Case> wrong =
      ParseCases("[" + one(4, "MseLossOut", pair + ", " + tensor("gradOutput", "fp32", "[1]")) + "]");
  EXPECT_EQ(
      wrong[0].error,
      "field inputs[2].name: unknown tensor \"gradOutput\"; MseLossOut takes self and target (out is not listed)");
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

cr::Case NamedCase(const std::string& name, bool has_id, int64_t id) {
  cr::Case c;
  c.name = name;
  c.has_id = has_id;
  c.id = id;
  return c;
}

std::vector<uint32_t> Generated(const cr::TensorSpec& spec, uint64_t key, int64_t begin, int64_t end) {
  const int64_t size = aclcpu::kernel::ElementSize(spec.dtype);
  std::vector<char> bytes(static_cast<size_t>((end - begin) * size));
  cr::GenerateInput(spec, key, begin, end, bytes.data());
  std::vector<uint32_t> bits;
  for (int64_t i = 0; i < end - begin; ++i) {
    uint32_t value = 0;
    std::memcpy(&value, bytes.data() + i * size, static_cast<size_t>(size));
    bits.push_back(value);
    EXPECT_EQ(value, cr::GenerateBits(spec, key, begin + i));  // one element alone: the same bits
  }
  return bits;
}

TEST(CaseRunnerInputs, DependOnlyOnSeedCaseIdentityInputAndIndex) {
  const cr::TensorSpec spec{"self", cr::Dtype::kFloat32, {1000}, cr::ValueRange{true, -2.0, 3.0, {}}};
  const cr::Case c = NamedCase("case", true, 3);
  const uint64_t key = cr::InputKey(1, c, "self");
  const std::vector<uint32_t> all = Generated(spec, key, 0, 1000);
  EXPECT_EQ(Generated(spec, key, 0, 1000), all);
  // Any split gives the same values: they are a function of the index, not of who fills them.
  std::vector<uint32_t> pieces = Generated(spec, key, 0, 333);
  for (uint32_t bits : Generated(spec, key, 333, 1000)) pieces.push_back(bits);
  EXPECT_EQ(pieces, all);
  EXPECT_NE(cr::InputKey(2, c, "self"), key);
  EXPECT_NE(cr::InputKey(1, NamedCase("case2", true, 3), "self"), key);
  EXPECT_NE(cr::InputKey(1, NamedCase("case", true, 4), "self"), key);  // same name, other id
  EXPECT_NE(cr::InputKey(1, NamedCase("case", false, 0), "self"), cr::InputKey(1, NamedCase("case", true, 0), "self"));
  EXPECT_NE(cr::InputKey(1, c, "target"), key);
  double sum = 0.0;
  for (uint32_t bits : all) {
    const float value = golden::Widen(golden::Dtype::kFloat32, bits);
    EXPECT_TRUE(value >= -2.0f && value <= 3.0f) << value;
    sum += value;
  }
  EXPECT_NEAR(sum / 1000.0, 0.5, 0.15);  // uniform: the mean of [-2, 3]
}

// A piece is generated many elements at a time on each SIMD target; every element must equal the
// one-element scalar definition (Generated checks each), for every dtype, range form, start and
// length (lanes whole and not), and the definition itself must not move (pinned bits below).
TEST(CaseRunnerInputs, EverySimdTargetGivesTheScalarDefinition) {
  const std::vector<cr::ValueRange> ranges = {
      cr::ValueRange{true, -2.0, 2.0, {}},
      cr::ValueRange{true, -1e30, 1e30, {}},  // beyond FLOAT16 and near FLOAT's ends
      cr::ValueRange{true, -65504.0, 65504.0, {}},
      cr::ValueRange{true, 0.5, 0.5, {}},
      // Ties of FLOAT16 (1 + 2^-11, -(1 + 3 * 2^-11)) and of BF16 (1 + 2^-8, -(1 + 3 * 2^-8)): to even.
      cr::ValueRange{true, 1.00048828125, 1.00048828125, {}},
      cr::ValueRange{true, -1.00146484375, -1.00146484375, {}},
      cr::ValueRange{true, 1.00390625, 1.00390625, {}},
      cr::ValueRange{true, -1.01171875, -1.01171875, {}},
      cr::ValueRange{true, -1e-6, 1e-6, {0.0f, -0.0f, INFINITY, -INFINITY, NAN}},  // subnormal halves
      cr::ValueRange{false, 0.0, 0.0, {1.0f, NAN, -INFINITY}},
  };
  const uint64_t key = cr::InputKey(7, NamedCase("simd", true, 1), "self");
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (cr::Dtype dtype : {cr::Dtype::kFloat32, cr::Dtype::kFloat16, cr::Dtype::kBFloat16}) {
      for (const cr::ValueRange& range : ranges) {
        SCOPED_TRACE(std::string(hwy::TargetName(target)) + " " + aclcpu::kernel::Traits(dtype).long_name + " [" +
                     std::to_string(range.lo) + ", " + std::to_string(range.hi) + "] with " +
                     std::to_string(range.specials.size()) + " specials");
        const cr::TensorSpec spec{"self", dtype, {1000}, range};
        for (const auto& span : std::vector<std::pair<int64_t, int64_t>>{
                 {0, 1000}, {3, 4}, {5, 70}, {(int64_t{1} << 33) - 9, (int64_t{1} << 33) + 40}}) {
          Generated(spec, key, span.first, span.second);
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  // The first values of one key (as an independent float64 re-derivation of the definition gives
  // them): compare-mode files made from dumped inputs depend on them.
  const cr::TensorSpec spec{"self", cr::Dtype::kFloat32, {4}, cr::ValueRange{true, -2.0, 2.0, {}}};
  EXPECT_EQ(Generated(spec, key, 0, 4), (std::vector<uint32_t>{3207591294u, 1065688724u, 3190243860u, 1058256688u}));
}

TEST(CaseRunnerInputs, HonourEveryRangeForm) {
  const cr::Case c = NamedCase("n", false, 0);
  auto values = [&c](const cr::ValueRange& range, cr::Dtype dtype, int64_t count) {
    const cr::TensorSpec spec{"x", dtype, {count}, range};
    std::vector<float> out;
    for (uint32_t bits : Generated(spec, cr::InputKey(9, c, "x"), 0, count)) out.push_back(golden::Widen(dtype, bits));
    return out;
  };
  auto only = [](std::vector<float> specials) { return cr::ValueRange{false, 0.0, 0.0, std::move(specials)}; };
  for (cr::Dtype dtype : {cr::Dtype::kFloat32, cr::Dtype::kFloat16, cr::Dtype::kBFloat16}) {
    for (float v : values(only({0.0f}), dtype, 100)) EXPECT_TRUE(v == 0.0f && !std::signbit(v));
    for (float v : values(only({NAN}), dtype, 100)) EXPECT_TRUE(std::isnan(v));
    for (float v : values(only({INFINITY}), dtype, 100)) EXPECT_EQ(v, INFINITY);
    for (float v : values(only({-INFINITY}), dtype, 100)) EXPECT_EQ(v, -INFINITY);
    int positive = 0, negative = 0;
    for (float v : values(only({-INFINITY, INFINITY}), dtype, 100)) {
      ASSERT_TRUE(std::isinf(v));
      (v > 0 ? positive : negative) += 1;
    }
    EXPECT_GT(positive, 20);
    EXPECT_GT(negative, 20);
    // A range with specials mixed in: kSpecialShare of the elements, each special among them.
    const int64_t count = 80000;
    int nan = 0, inf = 0, negative_zero = 0, in_range = 0;
    for (float v : values(cr::ValueRange{true, 1.0, 2.0, {NAN, INFINITY, -0.0f}}, dtype, count)) {
      if (std::isnan(v)) {
        ++nan;
      } else if (v == INFINITY) {
        ++inf;
      } else if (v == 0.0f && std::signbit(v)) {
        ++negative_zero;
      } else {
        EXPECT_TRUE(v >= 1.0f && v <= 2.0f) << v;
        ++in_range;
      }
    }
    const double share = cr::kSpecialShare * static_cast<double>(count);
    EXPECT_NEAR(nan + inf + negative_zero, share, share * 0.05);
    for (int n : {nan, inf, negative_zero}) EXPECT_NEAR(n, share / 3, share / 3 * 0.1);
    EXPECT_EQ(nan + inf + negative_zero + in_range, count);
  }
}

// Judges expected against actual with a method, in pieces of `piece` elements merged in order.
cr::Judgement JudgeWith(const char* method, cr::Dtype expected_dtype, const std::vector<uint32_t>& expected,
                        cr::Dtype actual_dtype, const std::vector<uint32_t>& actual, int64_t piece = 1 << 20) {
  cr::JudgeInput input;
  input.method = cr::FindMethod(method);
  input.expected_dtype = expected_dtype;
  input.actual_dtype = actual_dtype;
  input.shape = {static_cast<int64_t>(expected.size())};
  const cr::Grid grid(input.shape);
  cr::PieceStats total;
  for (int64_t first = 0; first < static_cast<int64_t>(expected.size()); first += piece) {
    const int64_t count = std::min<int64_t>(piece, static_cast<int64_t>(expected.size()) - first);
    cr::Merge(cr::JudgePiece(input, grid, expected.data() + first, actual.data() + first, count, first), &total);
  }
  return cr::Conclude(input, total);
}

TEST(CaseRunnerJudge, BitExactExceptThatAnyNanMatchesAnyNan) {
  const cr::Dtype f32 = cr::Dtype::kFloat32;
  const std::vector<uint32_t> expected = {0x3f800000u, 0x7fc00000u, 0x00000000u};
  EXPECT_EQ(JudgeWith("binary", f32, expected, f32, expected).verdict, "pass");
  EXPECT_EQ(JudgeWith("binary", f32, expected, f32, {0x3f800000u, 0xffc00001u, 0u}).verdict, "pass");
  const cr::Judgement negative_zero = JudgeWith("binary", f32, expected, f32, {0x3f800000u, 0x7fc00000u, 0x80000000u});
  EXPECT_EQ(negative_zero.verdict, "fail");
  EXPECT_EQ(negative_zero.stats.bad, 1);
  ASSERT_EQ(negative_zero.stats.worst.size(), 1u);
  EXPECT_EQ(negative_zero.stats.worst[0].index, 2);
  EXPECT_EQ(cr::StatsLine(negative_zero, f32, f32, {3}),
            "1 of 3 elements differ (33.33%); max abs 0, max rel 0, mean rel 0, rmse 0, cosine 1, max ulp 0; "
            "worst at [2] (index 2): expected 0 (0x00000000), actual -0 (0x80000000)");
  const cr::Judgement half = JudgeWith("binary", cr::Dtype::kFloat16, {0x3c00}, cr::Dtype::kFloat16, {0x3c01});
  EXPECT_EQ(half.stats.max_ulp, 1.0);
  EXPECT_EQ(cr::ValueText(cr::Dtype::kFloat16, half.stats.worst[0].actual_bits), "1.00097656 (0x3c01)");
}

TEST(CaseRunnerJudge, PiecesMergeToTheWhole) {
  // 10 elements with mismatches at 3 and 8, judged whole and in pieces of 1, 3 and 5.
  std::vector<uint32_t> expected(10, 0x3f800000u), actual = expected;
  actual[3] = 0x40000000u;
  actual[8] = 0x40400000u;
  const cr::Judgement whole = JudgeWith("tolerance", cr::Dtype::kFloat32, expected, cr::Dtype::kFloat32, actual);
  for (int64_t piece : {1, 3, 5}) {
    const cr::Judgement split =
        JudgeWith("tolerance", cr::Dtype::kFloat32, expected, cr::Dtype::kFloat32, actual, piece);
    EXPECT_EQ(split.stats.bad, 2);
    EXPECT_EQ(split.stats.first_bad, 3);
    EXPECT_EQ(split.stats.worst.front().index, 8);  // the larger error first
    EXPECT_EQ(split.stats.sum_rel, whole.stats.sum_rel);
    EXPECT_EQ(cr::StatsLine(split, cr::Dtype::kFloat32, cr::Dtype::kFloat32, {10}),
              cr::StatsLine(whole, cr::Dtype::kFloat32, cr::Dtype::kFloat32, {10}));
  }
}

TEST(CaseRunnerJudge, CoordinatesOfTheWorstElements) {
  EXPECT_EQ(cr::Coordinates({2, 3, 4}, 23), "[1, 2, 3]");
  EXPECT_EQ(cr::Coordinates({2, 3, 4}, 5), "[0, 1, 1]");
  EXPECT_EQ(cr::Coordinates({}, 0), "[]");
  const cr::Grid grid({100, 1000});  // 32 x 64 cells
  EXPECT_EQ(grid.Cell(0), 0);
  EXPECT_EQ(grid.Cell(99 * 1000 + 999), 31 * cr::kGridCols + 63);
  int64_t total = 0;
  for (int r = 0; r < grid.cell_rows; ++r) {
    for (int c = 0; c < grid.cell_cols; ++c) total += grid.CellElements(r * cr::kGridCols + c);
  }
  EXPECT_EQ(total, 100000);
}

TEST(CaseRunnerJudge, OurToleranceIsPerDtypeAndAShareOfTheElements) {
  // 1000 float16 elements of 1.0; off by one unit (~9.8e-4 relative) is within fp16's 1e-3.
  const cr::Dtype f16 = cr::Dtype::kFloat16;
  const std::vector<uint32_t> expected(1000, 0x3c00);
  std::vector<uint32_t> actual(1000, 0x3c01);
  EXPECT_EQ(JudgeWith("tolerance", f16, expected, f16, actual).verdict, "pass");
  actual.assign(1000, 0x3c00);
  actual[10] = 0x3c02;  // 2e-3: over, but 1 in 1000 is within the 0.1% share
  EXPECT_EQ(JudgeWith("tolerance", f16, expected, f16, actual).verdict, "pass");
  actual[20] = 0x7e00;  // a NaN where 1.0 is expected: a second one over
  const cr::Judgement two = JudgeWith("tolerance", f16, expected, f16, actual);
  EXPECT_EQ(two.reason, "0.2% of elements over rtol 0.001 (allowed: 0.1%)");
  EXPECT_EQ(two.stats.unbounded, 1);
  // float32 values for a bf16 output; infinities must match in sign.
  const cr::Dtype bf16 = cr::Dtype::kBFloat16, f32 = cr::Dtype::kFloat32;
  EXPECT_EQ(JudgeWith("tolerance", bf16, {0x3f80, 0x7f80}, f32, {0x3f800001u, 0x7f800000u}).verdict, "pass");
  EXPECT_EQ(JudgeWith("tolerance", bf16, {0x3f80, 0x7f80}, f32, {0x3f800000u, 0xff800000u}).verdict, "fail");
}

// The tensor region places first fit from its start, takes a freed place back (joined with its
// free neighbours), counts what was touched and is free as idle, and leaves a tensor it cannot
// hold to an allocation of its own.
TEST(CaseRunnerTensorRegion, PlacesFirstFitReusesAndFallsBack) {
  constexpr int64_t kMiB = int64_t{1} << 20;
  cr::OpenTensorRegion(4 * kMiB, /*device=*/false);
  std::string error;
  const auto allocate = [&error](int64_t bytes) {
    auto memory = std::make_unique<cr::Memory>();
    EXPECT_TRUE(memory->Allocate(false, bytes, &error)) << error;
    std::memset(memory->data(), 0x5a, static_cast<size_t>(bytes));  // all of it is the tensor's
    return memory;
  };
  auto first = allocate(kMiB);
  char* const base = first->data();
  auto second = allocate(kMiB + 1);  // its place is rounded up to 512 bytes
  EXPECT_EQ(second->data(), base + kMiB);
  EXPECT_EQ(cr::IdleRegionBytes(), 0);
  first.reset();
  EXPECT_EQ(cr::IdleRegionBytes(), kMiB);
  auto third = allocate(kMiB / 2);
  EXPECT_EQ(third->data(), base);
  EXPECT_EQ(cr::IdleRegionBytes(), kMiB / 2);
  // Free now: [0.5 MiB, 1 MiB) and [2 MiB + 512, 4 MiB): 3 MiB fits in neither.
  auto outside = allocate(3 * kMiB);
  EXPECT_TRUE(outside->data() + 3 * kMiB <= base || outside->data() >= base + 4 * kMiB);
  second.reset();
  third.reset();
  auto whole = allocate(4 * kMiB);  // the freed places joined into one range again
  EXPECT_EQ(whole->data(), base);
  whole.reset();
  outside.reset();
  cr::CloseTensorRegion();
}

#if defined(__SANITIZE_ADDRESS__)
#define CASE_RUNNER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CASE_RUNNER_ASAN 1
#endif
#endif

#ifdef CASE_RUNNER_ASAN
// Under ASan a byte past a placed tensor is out of bounds, as past an allocation of its own.
TEST(CaseRunnerTensorRegion, PastATensorIsOutOfBoundsUnderAsan) {
  cr::OpenTensorRegion(int64_t{1} << 20, /*device=*/false);
  std::string error;
  auto memory = std::make_unique<cr::Memory>();
  ASSERT_TRUE(memory->Allocate(false, 1000, &error)) << error;
  volatile char* past = memory->data() + 1000;
  EXPECT_DEATH(*past = 1, "use-after-poison");
  memory.reset();
  cr::CloseTensorRegion();
}
#endif

TEST(CaseRunnerWorkPool, EveryPieceRunsOnce) {
  cr::WorkPool pool;
  std::vector<std::atomic<int>> runs(5000);
  for (auto& r : runs) r = 0;
  std::vector<std::thread> callers;
  for (int t = 0; t < 3; ++t) {
    callers.emplace_back(
        [&, t] { pool.ParallelFor(1000, [&](int64_t i) { runs[static_cast<size_t>(t * 1000 + i)]++; }); });
  }
  pool.ParallelFor(2000, [&](int64_t i) { runs[static_cast<size_t>(3000 + i)]++; });
  for (std::thread& caller : callers) caller.join();
  for (const auto& r : runs) ASSERT_EQ(r.load(), 1);
  pool.ParallelFor(0, [](int64_t) { FAIL() << "no pieces to run"; });
}

TEST(CaseRunnerWorkPool, AWaitingThreadRunsOthersPieces) {
  // Two pieces that can only finish together: each waits for the other to start. The caller runs
  // one; the other must be taken by the thread that waits in WaitUntil.
  cr::WorkPool pool;
  std::atomic<bool> stop{false};
  std::thread helper([&] { pool.WaitUntil([&] { return stop.load(); }); });
  std::atomic<int> started{0};
  std::atomic<int> met{0};
  pool.ParallelFor(2, [&](int64_t) {
    ++started;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (started.load() < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    if (started.load() == 2) ++met;
  });
  stop = true;
  pool.Notify();
  helper.join();
  EXPECT_EQ(met.load(), 2);
}

TEST(CaseRunnerJunit, EscapedWellFormedCountsPerFile) {
  const std::vector<cr::JunitCase> cases = {
      {"a.json", "MseLossBackward", "t#0[reduction=1]", cr::Outcome::kPass, "", 0.25},
      {"a.json", "MseLossBackward", "t#1", cr::Outcome::kFail, "FAIL t#1 (a.json): <&\"'>\n\x01\xff end", 0.5},
      {"b.csv", "mse_loss_grad", "row", cr::Outcome::kSkip, "SKIP row: needs memory", 0.0},
  };
  const std::string xml = cr::JunitXml(cases);
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", 0), 0u);
  EXPECT_NE(xml.find("<testsuites name=\"aclnn_case_runner\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\" "
                     "time=\"0.750\">"),
            std::string::npos);
  EXPECT_NE(xml.find("<testsuite name=\"a.json\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\""),
            std::string::npos);
  EXPECT_NE(xml.find("<testsuite name=\"b.csv\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\""),
            std::string::npos);
  EXPECT_NE(xml.find("<testcase name=\"t#0[reduction=1]\" classname=\"MseLossBackward\" time=\"0.250\"/>"),
            std::string::npos);
  // Markup escaped; a control byte and a byte that is not UTF-8 replaced.
  EXPECT_NE(xml.find("message=\"FAIL t#1 (a.json): &lt;&amp;&quot;&apos;&gt;&#10;?? end\""), std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"SKIP row: needs memory\"/>"), std::string::npos);
  EXPECT_EQ(xml.substr(xml.size() - 14), "</testsuites>\n");
}

TEST(CaseRunnerJunit, AnUnusableFileIsAnErrorOfItsOwnSuite) {
  const std::vector<cr::JunitCase> cases = {
      {"gone.csv", "unusable", "gone.csv", cr::Outcome::kError, "UNUSABLE gone.csv: cannot open: No such file", 0.0},
      {"a.json", "MseLossBackward", "t#0", cr::Outcome::kPass, "", 0.25},
  };
  const std::string xml = cr::JunitXml(cases);
  EXPECT_NE(xml.find("<testsuites name=\"aclnn_case_runner\" tests=\"2\" failures=\"0\" errors=\"1\" skipped=\"0\""),
            std::string::npos);
  EXPECT_NE(xml.find("<testsuite name=\"gone.csv\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\""),
            std::string::npos);
  EXPECT_NE(xml.find("<testcase name=\"gone.csv\" classname=\"unusable\" time=\"0.000\">\n      <error message=\""
                     "UNUSABLE gone.csv: cannot open: No such file\">"),
            std::string::npos);
}

TEST(CaseRunnerReport, AnUnusableFileIsARecordWithOutcomeError) {
  cr::ReportHeader header;
  header.errors = 1;
  header.seconds = 1.5;
  const std::vector<cr::RunRecord> records = {
      {"gone.csv", "unusable", "gone.csv", cr::Verdict{cr::Outcome::kError, "UNUSABLE gone.csv: cannot open"}}};
  const std::string json = cr::ReportJson(header, records);
  EXPECT_NE(json.find("\"errors\":1,\"not_run\":0,\"seconds\":1.5}"), std::string::npos) << json;
  EXPECT_NE(json.find("{\"name\":\"gone.csv\",\"file\":\"gone.csv\",\"op\":\"unusable\",\"outcome\":\"error\","
                      "\"line\":\"UNUSABLE gone.csv: cannot open\""),
            std::string::npos)
      << json;
}

// --shard deals runs out by cost: the largest first, each to the lightest shard.
TEST(CaseRunnerShards, BalancedByCostEveryRunOnceInFileOrder) {
  const cr::Case c;
  std::vector<cr::Run> runs;
  // One large run among many small ones, then two medium ones; costs as RunCost would give.
  std::vector<int64_t> costs = {5, 1000, 5, 5, 400, 5, 5, 5, 400, 5, 5, 5};
  for (size_t i = 0; i < costs.size(); ++i) runs.push_back(cr::Run{&c, "r" + std::to_string(i), {}});
  const int count = 3;
  std::vector<int> shard_of(runs.size(), -1);
  std::vector<int64_t> load(count, 0);
  for (int k = 0; k < count; ++k) {
    const std::vector<cr::Run> shard = cr::ShardRuns(runs, costs, k, count);
    EXPECT_EQ(cr::ShardRuns(runs, costs, k, count).size(), shard.size());  // the same every time
    size_t last = 0;
    for (const cr::Run& run : shard) {
      const size_t i = static_cast<size_t>(std::stoi(run.name.substr(1)));
      EXPECT_EQ(shard_of[i], -1) << run.name << " is in two shards";
      EXPECT_TRUE(i >= last) << "shard " << k << " is out of file order";
      last = i;
      shard_of[i] = k;
      load[k] += costs[i];
    }
  }
  for (size_t i = 0; i < runs.size(); ++i) EXPECT_NE(shard_of[i], -1) << "r" << i << " is in no shard";
  // The large run alone in the first shard, one medium run in each of the others, and the small
  // ones spread so that no shard holds more than the largest run's cost over another.
  EXPECT_EQ(shard_of[1], 0);
  EXPECT_NE(shard_of[4], shard_of[8]);
  EXPECT_NE(shard_of[4], 0);
  EXPECT_NE(shard_of[8], 0);
  const int64_t most = *std::max_element(load.begin(), load.end());
  const int64_t least = *std::min_element(load.begin(), load.end());
  EXPECT_LE(most - least, 1000);
  EXPECT_EQ(load[0], 1000);  // the small runs went to the lighter shards
  // One shard: everything, as it was.
  EXPECT_EQ(cr::ShardRuns(runs, costs, 0, 1).size(), runs.size());
}

// A directory's case files: *.csv and *.json at any depth, sorted, hidden entries left out.
TEST(CaseRunnerCaseFiles, UnderADirectory) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("case_runner_dir_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  for (const char* sub : {"b/deep", "a", ".hidden"}) fs::create_directories(dir / sub);
  for (const char* file : {"b/deep/z.json", "a/y.csv", "x.csv", ".hidden/w.csv", ".v.csv", "notes.txt"}) {
    std::ofstream(dir / file) << "x\n";
  }
  std::vector<std::string> files;
  std::string error;
  ASSERT_TRUE(cr::CaseFilesUnder(dir.string(), &files, &error)) << error;
  const std::vector<std::string> expected = {(dir / "a/y.csv").string(), (dir / "b/deep/z.json").string(),
                                             (dir / "x.csv").string()};
  EXPECT_EQ(files, expected);
  // Read as a case file, "x" is neither format: LoadCaseFile says so, as the directory scan asks.
  std::vector<cr::Case> cases;
  bool not_a_case_file = false;
  EXPECT_FALSE(cr::LoadCaseFile((dir / "x.csv").string(), &cases, &error, &not_a_case_file));
  EXPECT_TRUE(not_a_case_file);
  EXPECT_FALSE(cr::LoadCaseFile((dir / "missing.csv").string(), &cases, &error, &not_a_case_file));
  EXPECT_FALSE(not_a_case_file) << "a file that cannot be opened is not passed over";
  fs::remove_all(dir);
  EXPECT_FALSE(cr::CaseFilesUnder((dir / "gone").string(), &files, &error));
  EXPECT_NE(error.find("cannot read the directory"), std::string::npos) << error;
}

// A dtype name without quotes is named in the message with the quoted forms to write.
TEST(CaseRunnerCsvCases, ABareDtypeWordSaysToQuoteIt) {
  const std::string header = "testcase_name,op_name,input_shapes,input_dtypes\n";
  for (const char* dtypes : {"float32", "\"(float32, float16)\"", "\"('float32', bfloat16)\""}) {
    const std::vector<cr::Case> cases = ParseCases(header + "bare,mse_loss,\"((2,), (2,))\"," + dtypes + "\n");
    ASSERT_EQ(cases.size(), 1u);
    const std::string word = std::string(dtypes).find("bfloat16") != std::string::npos ? "bfloat16" : "float32";
    EXPECT_EQ(cases[0].error, "field input_dtypes: " + word + " without quotes; dtype names are Python strings: '" +
                                  word + "', or one per input as ('" + word + "', '" + word + "')")
        << dtypes;
  }
  // A word that is no dtype keeps the parser's message.
  const std::vector<cr::Case> other = ParseCases(header + "other,mse_loss,\"((2,), (2,))\",fp32\n");
  EXPECT_EQ(other[0].error.find("field input_dtypes: column 1: unknown word \"fp32\""), 0u) << other[0].error;
}

cr::TensorSpec Spec(const char* name, cr::Dtype dtype, std::vector<int64_t> shape) {
  return cr::TensorSpec{name, dtype, std::move(shape), cr::ValueRange{}};
}

TEST(CaseRunnerOps, ForwardOutTensorsPerApiAndReduction) {
  const cr::OpInfo& loss = *cr::FindApiOp("MseLoss");
  const cr::OpInfo& out = *cr::FindApiOp("MseLossOut");
  const cr::Dtype f32 = cr::Dtype::kFloat32, f16 = cr::Dtype::kFloat16, bf16 = cr::Dtype::kBFloat16;
  struct Row {
    const cr::OpInfo* op;
    cr::Dtype self, target;
    std::vector<int64_t> self_shape, target_shape;
    int64_t reduction;
    std::vector<int64_t> shape;
    cr::Dtype dtype;
  };
  const std::vector<Row> rows = {
      {&loss, bf16, bf16, {4, 3}, {3}, 0, {4, 3}, bf16},  // the broadcast shape for none
      {&loss, bf16, f32, {4, 3}, {1, 3}, 1, {}, f32},     // 0-d for mean and sum; the promotion
      {&loss, f16, bf16, {2, 1}, {1, 5}, 2, {}, f32},     // FLOAT16 with BF16: FLOAT
      {&loss, f16, f16, {}, {}, 2, {}, f16},
      {&out, f32, f16, {6, 5, 4}, {1, 5, 1}, 1, {5, 4}, f32},  // without dim 0 for mean and sum
      {&out, f16, f16, {6, 5, 4}, {1, 5, 1}, 0, {6, 5, 4}, f16},
      {&out, bf16, bf16, {7}, {7}, 2, {}, bf16},
      {&out, f32, f32, {}, {}, 1, {}, f32},         // a 0-d broadcast has no dim 0 to drop
      {&out, f32, bf16, {3, 2}, {3}, 2, {2}, f32},  // no broadcast: self's shape (the API rejects it)
  };
  for (const Row& row : rows) {
    std::vector<int64_t> shape = {99};
    cr::Dtype dtype = cr::Dtype::kFloat16;
    cr::ApiOut(*row.op, {Spec("self", row.self, row.self_shape), Spec("target", row.target, row.target_shape)},
               {aclcpu::AttrValue{row.reduction, 0.0}}, &shape, &dtype);
    EXPECT_EQ(shape, row.shape) << row.op->api_name << " reduction " << row.reduction;
    EXPECT_EQ(dtype, row.dtype) << row.op->api_name << " reduction " << row.reduction;
  }
  EXPECT_STREQ(loss.api->phase_one_name, "aclnnMseLossGetWorkspaceSize");
  EXPECT_STREQ(out.api->phase_one_name, "aclnnMseLossOutGetWorkspaceSize");
  EXPECT_EQ(out.kernel, nullptr);  // TTK has no rows of its own: the kernel is MseLoss's
}

TEST(CaseRunnerOps, ForwardKernelFollowsTheDefinition) {
  const cr::OpInfo& op = *cr::FindKernelOp("mse_loss");
  auto infer = [&op](std::vector<int64_t> predict, std::vector<int64_t> label, cr::Dtype dtype, const char* reduction,
                     std::vector<int64_t>* y, cr::Dtype* y_dtype) {
    cr::Case c;
    c.op = &op;
    c.inputs = {Spec("predict", dtype, std::move(predict)), Spec("label", dtype, std::move(label))};
    if (reduction != nullptr) c.attributes["reduction"] = reduction;
    std::string error;
    return cr::KernelInfer(c, y, y_dtype, &error) ? std::string() : error;
  };
  std::vector<int64_t> y;
  cr::Dtype y_dtype = cr::Dtype::kFloat32;
  EXPECT_EQ(infer({4, 3}, {4, 3}, cr::Dtype::kBFloat16, "none", &y, &y_dtype), "");
  EXPECT_EQ(y, (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(y_dtype, cr::Dtype::kBFloat16);  // predict's
  EXPECT_EQ(infer({4, 3}, {4, 3}, cr::Dtype::kFloat16, "sum", &y, &y_dtype), "");
  EXPECT_TRUE(y.empty());                                                            // 0-d for mean and sum
  EXPECT_EQ(infer({4, 3}, {4, 3}, cr::Dtype::kFloat32, nullptr, &y, &y_dtype), "");  // the default: mean
  EXPECT_TRUE(y.empty());
  EXPECT_NE(cr::FindAttribute(op, "reduction"), nullptr);  // from the declaration
  EXPECT_EQ(infer({4, 3}, {3}, cr::Dtype::kFloat32, "none", &y, &y_dtype),
            "infer shape rejected the case: predict [4,3] and label [3] differ in shape");
  EXPECT_EQ(infer({4}, {4}, cr::Dtype::kFloat32, "avg", &y, &y_dtype),
            "infer shape rejected the case: reduction \"avg\" is invalid; expected none, mean or sum");
  const std::vector<int64_t> nine(9, 1);
  EXPECT_EQ(infer(nine, nine, cr::Dtype::kFloat32, "sum", &y, &y_dtype),
            "infer shape rejected the case: predict has 9 dims; at most 8 are supported");
}

// The golden's parts and pieces, in any order, give what its whole computation gives; its
// reduction over dim 0 is that of a plain double loop in the documented order.
TEST(CaseRunnerGolden, MseLossPartsAndPiecesMatchTheWhole) {
  std::mt19937 rng(5);
  auto tensor = [&rng](cr::Dtype dtype, std::vector<int64_t> shape) {
    golden::Tensor t{dtype, std::move(shape), {}};
    std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
    t.bits.resize(static_cast<size_t>(golden::Count(t.shape)));
    for (uint32_t& bits : t.bits) bits = golden::Narrow(dtype, uniform(rng));
    return t;
  };
  struct Shape {
    std::vector<int64_t> self, target;
    bool axis0;
  };
  const std::vector<Shape> shapes = {
      {{3, 40000}, {1, 40000}, true},     // one chunk of rows: summed in Compute, no parts
      {{1100, 4100}, {1100, 1}, true},    // 2 chunks x 2 column blocks
      {{2100, 17}, {17}, true},           // 3 chunks (halves of 1 and 2), one block
      {{16 * 1024 * 2 + 7}, {1}, false},  // 3 chunks of 16 columns, the last row short
      {{5, 0}, {5, 1}, false},            // no elements: NaN for the mean, 0 for the sum
  };
  for (const Shape& s : shapes) {
    for (cr::Dtype dtype : {cr::Dtype::kFloat32, cr::Dtype::kBFloat16}) {
      const golden::Tensor self = tensor(dtype, s.self), target = tensor(cr::Dtype::kFloat16, s.target);
      for (int reduction : {1, 2}) {
        const golden::Tensor whole = golden::MseLoss(self, target, reduction, s.axis0, cr::Dtype::kFloat32);
        golden::MseLossGolden g(golden::View::Of(self), golden::View::Of(target), reduction, s.axis0,
                                cr::Dtype::kFloat32);
        for (int64_t p = g.parts(); p-- > 0;) g.PreparePart(p);  // the other order
        const int64_t n = golden::Count(g.shape());
        std::vector<uint32_t> pieces(static_cast<size_t>(n));
        for (int64_t begin = 0; begin < n;) {
          const int64_t end = std::min(n, begin + 1 + static_cast<int64_t>(rng() % 3000));
          g.Compute(begin, end, pieces.data() + begin);
          begin = end;
        }
        ASSERT_EQ(pieces, whole.bits) << golden::Count(s.self) << " reduction " << reduction;
        if (!s.axis0 || s.self.empty()) continue;
        // The documented order, written out: per column, float64 sums of 1024-row chunks from +0,
        // combined pairwise; the losses rounded to the compute dtype (FLOAT here: mixed dtypes).
        const int64_t rows = s.self[0], columns = golden::Count(s.self) / rows;
        std::function<double(int64_t, int64_t, int64_t)> pairwise = [&](int64_t column, int64_t first,
                                                                        int64_t count) -> double {
          if (count == 1) {
            double sum = 0.0;
            for (int64_t r = first * 1024; r < std::min(rows, first * 1024 + 1024); ++r) {
              const int64_t target_index = golden::Count(s.target) == columns ? column : r;
              const float d =
                  golden::View::Of(self).Value(r * columns + column) - golden::View::Of(target).Value(target_index);
              sum += static_cast<double>(d * d);
            }
            return sum;
          }
          return pairwise(column, first, count / 2) + pairwise(column, first + count / 2, count - count / 2);
        };
        const int64_t chunks = (rows + 1023) / 1024;
        for (int64_t column : {int64_t{0}, columns / 2, columns - 1}) {
          double value = pairwise(column, 0, chunks);
          if (reduction == 1) value /= static_cast<double>(rows);
          EXPECT_EQ(pieces[static_cast<size_t>(column)], golden::Narrow(cr::Dtype::kFloat32, static_cast<float>(value)))
              << rows << "x" << columns << " column " << column;
        }
      }
    }
  }
}

// A broadcast of more than 2^32 elements from two small inputs: the golden indexes it in 64 bits.
TEST(CaseRunnerGolden, IndicesBeyond32Bits) {
  const golden::Tensor column{cr::Dtype::kFloat32, {65537, 1}, std::vector<uint32_t>(65537)};
  const golden::Tensor row{cr::Dtype::kFloat32, {1, 65537}, std::vector<uint32_t>(65537)};
  golden::Tensor x = column, y = row;
  for (uint32_t i = 0; i < 65537; ++i) {
    x.bits[i] = golden::Narrow(cr::Dtype::kFloat32, static_cast<float>(i));
    y.bits[i] = golden::Narrow(cr::Dtype::kFloat32, static_cast<float>(i) * 0.5f);
  }
  golden::MseLossGolden g(golden::View::Of(x), golden::View::Of(y), 0, false, cr::Dtype::kFloat32);
  ASSERT_EQ(golden::Count(g.shape()), int64_t{65537} * 65537);  // 4295098369 > 2^32
  const int64_t begin = (int64_t{1} << 32) + 12345;
  std::vector<uint32_t> bits(70000);
  g.Compute(begin, begin + 70000, bits.data());
  for (int64_t k = 0; k < 70000; k += 997) {
    const int64_t e = begin + k, i = e / 65537, j = e % 65537;
    const float d = static_cast<float>(i) - static_cast<float>(j) * 0.5f;
    EXPECT_EQ(bits[static_cast<size_t>(k)], golden::Narrow(cr::Dtype::kFloat32, d * d)) << e;
  }
  // The walk's inner runs and its steps one by one meet the same indices.
  golden::BroadcastWalk runs({65537, 65537}, {&x.shape, &y.shape}, begin);
  golden::BroadcastWalk steps({65537, 65537}, {&x.shape, &y.shape}, begin);
  for (int64_t done = 0; done < 200000;) {
    const int64_t n = std::min<int64_t>(runs.inner_left(), 1 + done % 50000);
    for (int64_t k = 0; k < n; ++k, steps.Next()) {
      ASSERT_EQ(steps.index(0), runs.index(0) + k * runs.inner_step(0));
      ASSERT_EQ(steps.index(1), runs.index(1) + k * runs.inner_step(1));
    }
    runs.Advance(n);
    done += n;
  }
  // Dims of 1 left out, contiguous dims merged: one run over [2, 1, 3, 4] against [3, 4].
  const std::vector<int64_t> a = {2, 1, 3, 4}, b = {3, 4};
  golden::BroadcastWalk merged({2, 1, 3, 4}, {&a, &a}, 0);
  EXPECT_EQ(merged.inner_left(), 24);
  golden::BroadcastWalk broadcast({2, 1, 3, 4}, {&a, &b}, 5);
  EXPECT_EQ(broadcast.inner_left(), 7);  // 12 elements of [3, 4] per step of dim 0
  EXPECT_EQ(broadcast.index(1), 5);
}

TEST(CaseRunnerInputs, Float16FromEveryRangeAsOneElementAlone) {
  // The generator's float16 conversion (no branch for normal halves) gives the bits that
  // GenerateBits gives through the kernel's: subnormals, overflow, specials included.
  const cr::Case c = NamedCase("f16", true, 1);
  for (const cr::ValueRange& range :
       {cr::ValueRange{true, -70000.0, 70000.0, {}}, cr::ValueRange{true, -1e-5, 1e-5, {}},
        cr::ValueRange{true, -65520.0, 65520.0, {NAN, INFINITY, -0.0f, 65519.0f, 5.9604645e-8f}},
        cr::ValueRange{true, 2.9802322e-8, 6.2e-5, {}}}) {
    const cr::TensorSpec spec{"x", cr::Dtype::kFloat16, {50000}, range};
    Generated(spec, cr::InputKey(1, c, "x"), 0, 50000);  // compares each element with GenerateBits
  }
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
    if (c.op == nullptr || c.inputs.size() != c.op->inputs.size()) return "a readable case without its op's inputs";
    for (const cr::TensorSpec& input : c.inputs) {
      for (int64_t dim : input.shape) {
        if (dim < 0) return "a negative dim";
      }
      if (input.range.uniform && !(input.range.lo <= input.range.hi)) return "a bad range";
      if (!input.range.uniform && input.range.specials.empty()) return "a range with no values";
    }
    if (c.level == cr::Case::Level::kApi &&
        (c.api_runs.empty() || c.api_runs.size() > static_cast<size_t>(cr::kMaxRangeRuns))) {
      return "a bad reduction list";
    }
  }
  return "";
}

TEST(CaseRunnerFuzz, MutatedCaseFilesParseOrAreReported) {
  std::mt19937 rng(20240601);
  size_t parsed = 0, rejected = 0;
  for (const std::string& valid : {std::string(kCsv), std::string(kJson), std::string(kForwardCsv)}) {
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
