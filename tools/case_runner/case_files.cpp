#include "case_files.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "literal.h"
#include "ops.h"

namespace case_runner {
namespace {

using Kind = Value::Kind;

constexpr size_t kMaxRank = 64;  // a bound for reading only; the operator itself decides what it accepts

std::string Trim(const std::string& text) {
  const char* space = " \t\r";
  const size_t first = text.find_first_not_of(space);
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(space) - first + 1);
}

// Every message about a case names its field: "field F: what".
bool FieldError(const std::string& field, const std::string& what, std::string* error) {
  *error = "field " + field + ": " + what;
  return false;
}

// A dtype by its name in one format: CSV tables say float32, JSON lists fp32.
bool ToDtype(const std::string& name, bool json, Dtype* dtype) {
  for (const aclcpu::kernel::DTypeTraits& traits : aclcpu::kernel::kDTypeTable) {
    if (name == (json ? traits.short_name : traits.long_name)) {
      *dtype = traits.dtype;
      return true;
    }
  }
  return false;
}

std::string UnknownDtype(const std::string& name, bool json) {
  std::string expected;
  for (const aclcpu::kernel::DTypeTraits& traits : aclcpu::kernel::kDTypeTable) {
    expected += (expected.empty() ? "" : ", ") + std::string(json ? traits.short_name : traits.long_name);
  }
  return "unknown dtype \"" + name + "\"; expected one of " + expected;
}

// A list of non-negative integer dims whose element count fits in int64_t.
bool ToShape(const Value& value, std::vector<int64_t>* shape, std::string* why) {
  if (value.kind != Kind::kList) {
    *why = "a shape must be a list of dims";
    return false;
  }
  if (value.items.size() > kMaxRank) {
    *why = "more than " + std::to_string(kMaxRank) + " dims";
    return false;
  }
  shape->clear();
  bool empty = false;
  for (const Value& dim : value.items) {
    if (dim.kind != Kind::kInt || dim.integer < 0) {
      *why = "dims must be non-negative integers";
      return false;
    }
    shape->push_back(dim.integer);
    empty = empty || dim.integer == 0;
  }
  int64_t numel = 1;
  for (int64_t dim : *shape) {
    if (empty) break;
    if (dim > std::numeric_limits<int64_t>::max() / numel) {
      *why = "the element count overflows 64 bits";
      return false;
    }
    numel *= dim;
  }
  return true;
}

// A special value: a number (any, -0 and the non-finite ones included) or "inf", "-inf", "nan".
bool ToSpecial(const Value& value, float* special) {
  if (value.IsNumber()) {
    *special = static_cast<float>(value.AsDouble());
    return true;
  }
  if (value.kind != Kind::kString) return false;
  if (value.text == "inf" || value.text == "+inf") {
    *special = std::numeric_limits<float>::infinity();
  } else if (value.text == "-inf") {
    *special = -std::numeric_limits<float>::infinity();
  } else if (value.text == "nan") {
    *special = std::numeric_limits<float>::quiet_NaN();
  } else {
    return false;
  }
  return true;
}

bool IsFiniteNumber(const Value& value) { return value.IsNumber() && std::isfinite(value.AsDouble()); }

// Whether a CSV range entry is one range (not a list of per-input ranges).
bool IsOneRange(const Value& value) {
  if (value.kind != Kind::kList) return true;
  for (const Value& item : value.items) {
    if (item.kind == Kind::kList) return false;
  }
  return true;
}

const char kRangeForms[] =
    "expected [lo, hi], [lo, hi, special...], 0, \"nan\", \"inf\", \"-inf\" or a list of specials such as "
    "[\"-inf\", \"inf\"] (specials: numbers, inf, -inf, nan)";

// The value-range forms (docs/case-runner.md), shared by both formats.
bool ToRange(const Value& value, ValueRange* range, std::string* why) {
  *range = ValueRange{};
  float special = 0.0f;
  if (value.IsNumber() && value.AsDouble() == 0.0) {  // all zeros
    range->uniform = false;
    range->specials = {0.0f};
    return true;
  }
  if (value.kind == Kind::kString && ToSpecial(value, &special)) {  // "nan", "inf", "-inf"
    range->uniform = false;
    range->specials = {special};
    return true;
  }
  if (value.kind != Kind::kList || value.items.empty()) {
    *why = kRangeForms;
    return false;
  }
  const std::vector<Value>& items = value.items;
  size_t first_special = 0;
  if (items.size() >= 2 && IsFiniteNumber(items[0]) && IsFiniteNumber(items[1])) {
    range->lo = items[0].AsDouble();
    range->hi = items[1].AsDouble();
    if (range->lo > range->hi) {
      *why = "the low end of [lo, hi] is above the high end";
      return false;
    }
    first_special = 2;
  } else {
    range->uniform = false;
  }
  for (size_t i = first_special; i < items.size(); ++i) {
    if (!ToSpecial(items[i], &special)) {
      *why = kRangeForms;
      return false;
    }
    range->specials.push_back(special);
  }
  return true;
}

// "only reduction", "reduction and beta", "none": an API's attribute parameters, as ATK names them,
// for messages.
std::string AttributeNames(const OpInfo& op) {
  std::vector<const char*> names;
  for (int p = 0; p < op.api->param_count; ++p) {
    if (op.api->params[p].kind == aclcpu::ParamKind::kAttribute) names.push_back(op.api->params[p].name);
  }
  if (names.empty()) return "none";
  std::string text = names.size() == 1 ? "only " : "";
  for (size_t i = 0; i < names.size(); ++i) {
    text += (i == 0 ? "" : (i + 1 == names.size() ? " and " : ", ")) + std::string(names[i]);
  }
  return text;
}

// What a CSV row's attribute of this type is written as, for messages.
const char* AttributeKind(const aclcpu::AttrDeclaration& attribute) {
  switch (attribute.kind) {
    case aclcpu::AttrKind::kEnum:
      return "a string";
    case aclcpu::AttrKind::kInt:
      return "an integer";
    case aclcpu::AttrKind::kFloat:
      return "a number";
    case aclcpu::AttrKind::kBool:
      return "True or False";
  }
  return "";
}

// A CSV row's attribute as the text aclcpu::ParseAttrText reads; false when it is not written as
// its type is.
bool AttributeText(const aclcpu::AttrDeclaration& attribute, const Value& value, std::string* text) {
  switch (attribute.kind) {
    case aclcpu::AttrKind::kEnum:
      if (value.kind != Kind::kString) return false;
      *text = value.text;
      return true;
    case aclcpu::AttrKind::kInt:
      if (value.kind != Kind::kInt) return false;
      *text = std::to_string(value.integer);
      return true;
    case aclcpu::AttrKind::kFloat: {
      if (!value.IsNumber()) return false;
      char buffer[32];
      std::snprintf(buffer, sizeof buffer, "%.17g", value.number);
      *text = buffer;
      return true;
    }
    case aclcpu::AttrKind::kBool:
      if (value.kind != Kind::kBool) return false;
      *text = value.boolean ? "true" : "false";
      return true;
  }
  return false;
}

std::string InputNames(const OpInfo& op, bool json) {
  std::string names;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    names += (i == 0 ? "" : (i + 1 == op.inputs.size() ? " and " : ", "));
    names += json ? op.inputs[i].api : op.inputs[i].kernel;
  }
  return names;
}

// ---- CSV ----------------------------------------------------------------------------------

struct CsvColumns {
  int name = -1, op = -1, shapes = -1, dtypes = -1, out_shapes = -1, out_dtypes = -1, attrs = -1, ranges = -1,
      enabled = -1, tolerances = -1, atol = -1, api = -1;
};

// is_enabled as TTK reads it (hicann/ops-test-kit ttk/core_modules/testcase_manager/field_parser.py,
// process_bool): TRUE and FALSE in any case, 1 and 0; empty is TTK's default, True (testcase_base.py,
// TestcaseBase.option_headers).
bool ReadEnabled(const std::string& text, bool* enabled, std::string* error) {
  std::string upper = text;
  for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (upper.empty() || upper == "TRUE" || upper == "1") {
    *enabled = true;
  } else if (upper == "FALSE" || upper == "0") {
    *enabled = false;
  } else {
    return FieldError("is_enabled", "\"" + text + "\" is not TRUE, FALSE (in any case), 1 or 0", error);
  }
  return true;
}

bool ParsePythonField(const std::string& text, const char* field, Value* value, std::string* error) {
  std::string why;
  if (!ParseLiteral(text, Dialect::kPython, value, &why)) return FieldError(field, why, error);
  return true;
}

// The first word of text outside quotes that names a dtype ("float32" in (float32, float16)).
std::string BareDtypeWord(const std::string& text) {
  char quote = 0;
  for (size_t i = 0; i < text.size();) {
    const char ch = text[i];
    if (quote != 0 || ch == '\'' || ch == '"') {
      quote = quote == 0 ? ch : (ch == quote ? 0 : quote);
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
    Dtype dtype;
    if (end > i && ToDtype(text.substr(i, end - i), false, &dtype)) return text.substr(i, end - i);
    i = std::max(end, i + 1);
  }
  return "";
}

// A dtype field: one name, or a tuple of names. With nones, an item None (an absent optional input's)
// is taken too: *nones says which (their dtypes are placeholders).
bool ParseCsvDtypes(const std::string& text, const char* field, std::vector<Dtype>* dtypes, std::string* error,
                    std::vector<bool>* nones = nullptr) {
  Value value;
  if (!ParsePythonField(text, field, &value, error)) {
    // A name written without quotes is not a Python literal: say so, rather than the parser's word.
    const std::string bare = BareDtypeWord(text);
    if (!bare.empty()) {
      return FieldError(field,
                        bare + " without quotes; dtype names are Python strings: '" + bare +
                            "', or one per input as ('" + bare + "', '" + bare + "')",
                        error);
    }
    return false;
  }
  std::vector<const Value*> names;
  if (value.kind == Kind::kString) names.push_back(&value);
  for (const Value& item : value.items) names.push_back(&item);
  if (names.empty()) return FieldError(field, "expected a tuple of dtype names such as ('float16',)", error);
  for (const Value* name : names) {
    Dtype dtype;
    if (nones != nullptr) nones->push_back(name->kind == Kind::kNull);
    if (nones != nullptr && name->kind == Kind::kNull) {
      dtypes->push_back(Dtype::kFloat32);
      continue;
    }
    if (name->kind != Kind::kString) return FieldError(field, "dtype names must be strings", error);
    if (!ToDtype(name->text, false, &dtype)) return FieldError(field, UnknownDtype(name->text, false), error);
    dtypes->push_back(dtype);
  }
  return true;
}

// precision_tolerances: one (relative error, share of elements) pair per output, ((rtol, ptol),) or,
// as TTK also reads it, the pair alone; empty or () for the defaults. Only compare mode reads it.
bool ParseCsvTolerance(const std::string& text, Case* c, std::string* error) {
  const char field[] = "precision_tolerances";
  Value value;
  if (!ParsePythonField(text, field, &value, error)) return false;
  if (value.kind == Kind::kList && value.items.empty()) return true;
  const bool flat = value.kind == Kind::kList && value.items.size() == 2 && value.items[0].IsNumber();
  const Value* pair =
      flat ? &value : (value.kind == Kind::kList && value.items.size() == 1 ? &value.items[0] : nullptr);
  if (pair == nullptr || pair->kind != Kind::kList || pair->items.size() != 2 || !IsFiniteNumber(pair->items[0]) ||
      !IsFiniteNumber(pair->items[1])) {
    return FieldError(
        field, "expected one (relative error, share) pair such as ((0.001, 0.001),): the operator has one output",
        error);
  }
  const double rtol = pair->items[0].AsDouble(), share = pair->items[1].AsDouble();
  if (!(rtol >= 0.0) || !(share >= 0.0 && share <= 1.0)) {
    return FieldError(field, "the relative error must be non-negative and the share from 0 to 1", error);
  }
  c->tolerances.rtol = rtol;
  c->tolerances.ptol = share;
  return true;
}

// absolute_precision: the atol of compare mode's close, one number or a tuple of one per output.
bool ParseCsvAtol(const std::string& text, Case* c, std::string* error) {
  const char field[] = "absolute_precision";
  Value value;
  if (!ParsePythonField(text, field, &value, error)) return false;
  if (value.kind == Kind::kList && value.items.empty()) return true;
  const Value* atol = value.kind == Kind::kList && value.items.size() == 1 ? &value.items[0] : &value;
  if (!IsFiniteNumber(*atol) || !(atol->AsDouble() >= 0.0)) {
    return FieldError(field, "expected a non-negative number such as 1e-8, or one in a tuple", error);
  }
  c->tolerances.atol = atol->AsDouble();
  return true;
}

// One entry of input_data_ranges as TTK normalises it before drawing: (x,) is (x, x), every element
// x, and () is (None, None) (hicann/ops-test-kit testcase_base.py, TestcaseBase._normalize_range_recursive); a
// None end is -2 or 2 (ttk/utilities/data.py, RandomData._replace_none_in_data_range with
// DEFAULT_LOW and DEFAULT_HIGH). Other values are returned as they are, for ToRange to judge.
Value TtkRange(const Value& entry) {
  if (entry.kind != Kind::kList) return entry;
  Value range = entry;
  if (range.items.empty()) range.items.resize(2);  // two None
  // (x,): every element x, which [x] already means to ToRange (a finite x as much as a special).
  if (range.items.size() == 1 && range.items[0].kind == Kind::kNull) range.items.resize(2);
  const double ends[2] = {kDefaultLo, kDefaultHi};
  for (size_t i = 0; i < 2 && i < range.items.size(); ++i) {
    Value& end = range.items[i];
    if (end.kind != Kind::kNull) continue;
    end.kind = Kind::kInt;
    end.integer = static_cast<int64_t>(ends[i]);
    end.number = ends[i];
  }
  return range;
}

// input_data_ranges as TTK reads it (docs/case-runner.md): empty or None, every
// input the default; one range (flat, or a list of one) for every input; one per input, a shorter
// list padded with (None, None) (testcase_base.py, TestcaseBase._normalize_field_by_dist); more
// ranges than inputs, unreadable (TTK's CASE_FIELD_AMBIGUOUS).
bool ParseCsvRanges(const std::string& text, Case* c, std::string* error) {
  const char field[] = "input_data_ranges";
  const OpInfo& op = *c->op;
  const size_t count = c->inputs.size();
  for (TensorSpec& input : c->inputs) input.range = ValueRange{true, kDefaultLo, kDefaultHi, {}};
  if (text.empty()) return true;
  Value ranges;
  if (!ParsePythonField(text, field, &ranges, error)) return false;
  if (ranges.kind == Kind::kNull) return true;
  std::string why;
  if (IsOneRange(ranges)) {
    ValueRange range;
    if (!ToRange(TtkRange(ranges), &range, &why)) return FieldError(field, why, error);
    for (TensorSpec& input : c->inputs) input.range = range;
    return true;
  }
  const std::vector<Value>& entries = ranges.items;
  if (entries.size() > count) {
    return FieldError(field,
                      std::to_string(entries.size()) + " ranges for " + std::to_string(count) + " inputs (" +
                          InputNames(op, false) + "); TTK marks such a row invalid (CASE_FIELD_AMBIGUOUS)",
                      error);
  }
  for (size_t i = 0; i < count; ++i) {
    TensorSpec& input = c->inputs[i];
    if (entries.size() != 1 && i >= entries.size()) continue;  // padded: (None, None), the default
    const Value& entry = entries[entries.size() == 1 ? 0 : i];
    if (input.absent) continue;  // nothing drawn
    if (entry.kind == Kind::kNull) {
      return FieldError(field,
                        input.name +
                            ": None, which TTK gives only an absent optional input; for a given input its "
                            "RandomData cannot draw from None",
                        error);
    }
    if (!IsOneRange(entry)) return FieldError(field, input.name + ": a list of ranges is for a tensor list", error);
    if (!ToRange(TtkRange(entry), &input.range, &why)) return FieldError(field, input.name + ": " + why, error);
  }
  return true;
}

// A row of a TTK aclnn-level table (hicann/ops-test-kit testcase_aclnn.py, TestcaseAclnn: api_name,
// tensor_view_shapes, tensor_dtypes, output_tensor_indexes, ...). Such rows are refused one by one,
// naming the API they call.
bool ParseCsvAclnnRow(const std::vector<std::string>& fields, const CsvColumns& col, Case* c, std::string* error) {
  auto get = [&fields](int index) { return index < 0 ? std::string() : Trim(fields[static_cast<size_t>(index)]); };
  c->level = Case::Level::kApi;
  c->name = get(col.name);
  if (c->name.empty()) return FieldError("testcase_name", "empty", error);
  if (!ReadEnabled(get(col.enabled), &c->enabled, error)) return false;
  if (!c->enabled) return true;  // TTK drops a disabled row: so does the runner, whatever it calls
  const std::string api = get(col.api);
  if (api.empty()) return FieldError("api_name", "empty", error);
  if (FindApiOp(api) == nullptr) {
    return FieldError("api_name", api + " is not an operator this runner knows (its APIs: " + ApiOpNames() + ")",
                      error);
  }
  return FieldError("api_name",
                    api +
                        ": rows of TTK's aclnn-level tables (api_name, tensor_view_shapes, ...) are not run yet; "
                        "run its cases from an ATK JSON case list or a kernel-level table",
                    error);
}

bool ParseCsvRow(const std::vector<std::string>& fields, const CsvColumns& col, Case* c, std::string* error) {
  auto get = [&fields](int index) { return index < 0 ? std::string() : Trim(fields[static_cast<size_t>(index)]); };
  c->name = get(col.name);
  if (c->name.empty()) return FieldError("testcase_name", "empty", error);
  // A disabled row is skipped without reading further: its other fields may be placeholders.
  if (!ReadEnabled(get(col.enabled), &c->enabled, error)) return false;
  if (!c->enabled) return true;
  // The operator first: when the runner does not have it, that is the row's reason.
  const std::string op_name = get(col.op);
  if (!op_name.empty()) {
    c->op = FindKernelOp(op_name);
    if (c->op == nullptr) {
      return FieldError("op_name",
                        "\"" + op_name + "\" is not an operator this runner knows; expected " + KernelOpNames(), error);
    }
  }
  Value shapes;
  if (get(col.shapes).empty()) return FieldError("input_shapes", "empty", error);
  if (!ParsePythonField(get(col.shapes), "input_shapes", &shapes, error)) return false;
  if (op_name.empty()) {  // no op named (or no op_name column): the one kernel op that takes that many inputs
    const size_t given = shapes.kind == Kind::kList ? shapes.items.size() : 0;
    const std::vector<const OpInfo*> fit = KernelOpsTaking(given);
    if (fit.size() != 1) {
      return FieldError("op_name",
                        "empty, and " + std::to_string(given) + " input shapes fit " +
                            (fit.empty() ? std::string("no operator") : OpNames(fit, false)) + "; name one of " +
                            KernelOpNames(true),
                        error);
    }
    c->op = fit.front();
  }
  const OpInfo& op = *c->op;
  const size_t count = op.inputs.size();

  if (shapes.kind != Kind::kList || shapes.items.size() != count) {
    return FieldError("input_shapes", "expected " + std::to_string(count) + " shapes (" + InputNames(op, false) + ")",
                      error);
  }
  std::vector<Dtype> dtypes;
  std::vector<bool> nones;
  if (get(col.dtypes).empty()) return FieldError("input_dtypes", "empty", error);
  if (!ParseCsvDtypes(get(col.dtypes), "input_dtypes", &dtypes, error, &nones)) return false;
  if (dtypes.size() != 1 && dtypes.size() != count) {
    return FieldError("input_dtypes", "expected one dtype for all inputs or one per input", error);
  }
  if (nones[0]) return FieldError("input_dtypes", std::string(op.inputs[0].kernel) + ": None", error);
  c->inputs.resize(count);
  for (size_t i = 0; i < count; ++i) {
    TensorSpec& input = c->inputs[i];
    input.name = op.inputs[i].kernel;
    const size_t d = dtypes.size() == 1 ? 0 : i;
    // TTK writes None for an optional input the row leaves out, in input_shapes and input_dtypes.
    const bool none_shape = shapes.items[i].kind == Kind::kNull;
    if (none_shape || nones[d]) {
      if (!(none_shape && nones[d])) {
        return FieldError(none_shape ? "input_dtypes" : "input_shapes",
                          input.name + ": None in one of input_shapes and input_dtypes, not the other", error);
      }
      if (((op.info->optional_inputs >> i) & 1u) == 0) {
        return FieldError("input_shapes", input.name + ": None, but the operator has no such optional input", error);
      }
      input.absent = true;
      input.dtype = dtypes[0];  // the ones it reads are of the first input's dtype
      continue;
    }
    input.dtype = dtypes[d];
    std::string why;
    if (!ToShape(shapes.items[i], &input.shape, &why))
      return FieldError("input_shapes", input.name + ": " + why, error);
  }

  if (!get(col.out_shapes).empty()) {
    Value value;
    if (!ParsePythonField(get(col.out_shapes), "output_shapes", &value, error)) return false;
    std::string why;
    // A tuple of one shape, ((32, 8),); or, as some tables write it, the shape alone: (32, 8),
    // ((32, 8)) (which Python reads as (32, 8)) and () for 0-d.
    const bool flat =
        value.kind == Kind::kList &&
        std::all_of(value.items.begin(), value.items.end(), [](const Value& item) { return item.kind == Kind::kInt; });
    if (!flat && (value.kind != Kind::kList || value.items.size() != 1)) {
      return FieldError("output_shapes", "expected one shape, such as ((32, 8),) or (32, 8)", error);
    }
    if (!ToShape(flat ? value : value.items[0], &c->output_shape, &why)) {
      return FieldError("output_shapes", why, error);
    }
    c->has_output_shape = true;
  }
  if (!get(col.out_dtypes).empty()) {
    std::vector<Dtype> out;
    if (!ParseCsvDtypes(get(col.out_dtypes), "output_dtypes", &out, error)) return false;
    if (out.size() != 1) return FieldError("output_dtypes", "expected one dtype", error);
    c->output_dtype = out[0];
    c->has_output_dtype = true;
  }

  if (!get(col.attrs).empty()) {
    Value attrs;
    if (!ParsePythonField(get(col.attrs), "attributes", &attrs, error)) return false;
    if (attrs.kind != Kind::kDict) {
      return FieldError("attributes", "expected a dict such as {'reduction': 'mean'}", error);
    }
    // The declaration's attributes, each as its type is written (an enum as its name, a number, a
    // bool); other keys do not concern the operator.
    for (int i = 0; i < c->op->info->attribute_count; ++i) {
      const aclcpu::AttrDeclaration& declared = c->op->info->attributes[i];
      const Value* attribute = attrs.Find(declared.name);
      if (attribute == nullptr) continue;
      std::string text;
      if (!AttributeText(declared, *attribute, &text)) {
        return FieldError("attributes", std::string(declared.name) + " must be " + AttributeKind(declared), error);
      }
      c->attributes[declared.name] = text;
    }
  }

  if (!ParseCsvRanges(get(col.ranges), c, error)) return false;
  // Read by compare mode only: a self-run does not refuse a row over them.
  if (!get(col.tolerances).empty()) ParseCsvTolerance(get(col.tolerances), c, &c->compare_error);
  if (!get(col.atol).empty() && c->compare_error.empty()) ParseCsvAtol(get(col.atol), c, &c->compare_error);
  return true;
}

// ---- JSON ---------------------------------------------------------------------------------

// An API attribute's values from range_values: an integer (an enum's number too), or [lo, hi] meaning
// every integer in between; a float; a bool (or 0, 1). *range says whether it was [lo, hi].
bool ToAttributeValues(const aclcpu::AttrDeclaration& attribute, const Value& value,
                       std::vector<aclcpu::AttrValue>* values, bool* range, std::string* why) {
  *range = false;
  switch (attribute.kind) {
    case aclcpu::AttrKind::kFloat:
      if (!value.IsNumber()) break;
      values->push_back(aclcpu::AttrValue{0, value.number});
      return true;
    case aclcpu::AttrKind::kBool:
      if (value.kind == Kind::kBool || (value.kind == Kind::kInt && (value.integer == 0 || value.integer == 1))) {
        values->push_back(aclcpu::AttrValue{value.kind == Kind::kBool ? value.boolean : value.integer, 0.0});
        return true;
      }
      *why = "expected true or false";
      return false;
    case aclcpu::AttrKind::kEnum:
    case aclcpu::AttrKind::kInt:
      if (value.kind == Kind::kInt) {
        values->push_back(aclcpu::AttrValue{value.integer, 0.0});
        return true;
      }
      if (value.kind == Kind::kList && value.items.size() == 2 && value.items[0].kind == Kind::kInt &&
          value.items[1].kind == Kind::kInt) {
        const int64_t lo = value.items[0].integer, hi = value.items[1].integer;
        if (lo > hi) {
          *why = "the low end of [lo, hi] is above the high end";
          return false;
        }
        if (static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) >= static_cast<uint64_t>(kMaxRangeRuns)) {
          *why = "more than " + std::to_string(kMaxRangeRuns) + " values";
          return false;
        }
        for (int64_t v = lo;; ++v) {
          values->push_back(aclcpu::AttrValue{v, 0.0});
          if (v == hi) break;
        }
        *range = true;
        return true;
      }
      *why = "expected an integer or [lo, hi] of integers";
      return false;
  }
  *why = "expected a number";
  return false;
}

// The runs of a case whose attributes take these values: one per combination, an attribute given
// as a range naming its value in the run's suffix.
void AddApiRuns(const std::vector<std::vector<aclcpu::AttrValue>>& values, const std::vector<bool>& ranged,
                const aclcpu::OperatorInfo& info, Case* c) {
  c->api_runs = {Case::ApiRun{}};
  for (size_t i = 0; i < values.size(); ++i) {
    std::vector<Case::ApiRun> runs;
    for (const Case::ApiRun& run : c->api_runs) {
      for (const aclcpu::AttrValue& value : values[i]) {
        Case::ApiRun next = run;
        next.attributes.push_back(value);
        if (ranged[i])
          next.suffix += "[" + std::string(info.attributes[i].name) + "=" + std::to_string(value.integer) + "]";
        runs.push_back(std::move(next));
      }
    }
    c->api_runs = std::move(runs);
  }
}

bool ParseJsonCase(const Value& item, Case* c, std::string* error) {
  if (item.kind != Kind::kDict) {
    *error = "the case is not a JSON object";
    return false;
  }
  const Value* name = item.Find("name");
  if (name == nullptr || name->kind != Kind::kString || name->text.empty()) {
    return FieldError("name", "missing, or not a non-empty string", error);
  }
  c->name = name->text;
  const Value* id = item.Find("id");
  if (id == nullptr || id->kind != Kind::kInt) return FieldError("id", "missing, or not an integer", error);
  c->has_id = true;
  c->id = id->integer;
  const Value* api = item.Find("aclnn_name");
  if (api != nullptr && api->kind != Kind::kString) return FieldError("aclnn_name", "not a string", error);
  const Value* inputs = item.Find("inputs");
  if (inputs == nullptr || inputs->kind != Kind::kList) return FieldError("inputs", "missing, or not a list", error);
  if (api != nullptr) {
    c->op = FindApiOp(api->text);
    if (c->op == nullptr) {
      return FieldError("aclnn_name", "\"" + api->text + "\" is not an API this runner knows; expected " + ApiOpNames(),
                        error);
    }
  } else {  // no aclnn_name: the one API that the tensors the case lists choose (ops.h)
    std::vector<std::string> tensors;
    for (const Value& input : inputs->items) {
      const Value* type = input.kind == Kind::kDict ? input.Find("type") : nullptr;
      const Value* input_name = input.kind == Kind::kDict ? input.Find("name") : nullptr;
      if (type != nullptr && type->kind == Kind::kString && type->text == "tensor" && input_name != nullptr &&
          input_name->kind == Kind::kString) {
        tensors.push_back(input_name->text);
      }
    }
    const std::vector<const OpInfo*> fit = ApiOpsFor(tensors);
    if (fit.size() != 1) {
      std::string listed;
      for (const std::string& tensor : tensors) listed += (listed.empty() ? "" : ", ") + tensor;
      return FieldError("aclnn_name",
                        "missing, and the tensors it lists (" + listed + ") fit " +
                            (fit.empty() ? std::string("no API") : OpNames(fit, true)) + "; name one of " +
                            ApiOpNames(true),
                        error);
    }
    c->op = fit.front();
  }
  const OpInfo& op = *c->op;
  const aclcpu::OperatorInfo& info = *op.info;
  c->inputs.assign(op.inputs.size(), TensorSpec{});
  std::vector<bool> seen(op.inputs.size(), false);
  std::vector<std::vector<aclcpu::AttrValue>> attribute_values(static_cast<size_t>(info.attribute_count));
  std::vector<bool> ranged(static_cast<size_t>(info.attribute_count), false);
  for (size_t i = 0; i < inputs->items.size(); ++i) {
    const Value& input = inputs->items[i];
    const std::string at = "inputs[" + std::to_string(i) + "]";
    std::string why;
    if (input.kind != Kind::kDict) return FieldError(at, "not an object", error);
    const Value* input_name = input.Find("name");
    const Value* type = input.Find("type");
    const Value* range = input.Find("range_values");
    if (input_name == nullptr || input_name->kind != Kind::kString) {
      return FieldError(at + ".name", "missing, or not a string", error);
    }
    if (type == nullptr || type->kind != Kind::kString) {
      return FieldError(at + ".type", "missing, or not a string", error);
    }
    if (type->text == "attr") {
      const aclcpu::AttrDeclaration* attribute = FindAttribute(op, input_name->text);
      if (attribute == nullptr) {
        return FieldError(at + ".name", "unknown attr \"" + input_name->text + "\"; the API has " + AttributeNames(op),
                          error);
      }
      const size_t index = static_cast<size_t>(attribute - info.attributes);
      if (!attribute_values[index].empty())
        return FieldError(at + ".name", input_name->text + " is listed twice", error);
      if (range == nullptr) return FieldError(at + ".range_values", "missing", error);
      bool is_range = false;
      if (!ToAttributeValues(*attribute, *range, &attribute_values[index], &is_range, &why)) {
        return FieldError(at + ".range_values", why, error);
      }
      ranged[index] = is_range;
      continue;
    }
    if (type->text != "tensor") return FieldError(at + ".type", "\"" + type->text + "\" is not tensor or attr", error);
    size_t role = op.inputs.size();
    for (size_t r = 0; r < op.inputs.size(); ++r) role = input_name->text == op.inputs[r].api ? r : role;
    if (role == op.inputs.size()) {
      return FieldError(at + ".name",
                        "unknown tensor \"" + input_name->text + "\"; " + op.api_name + " takes " +
                            InputNames(op, true) + " (out is not listed)",
                        error);
    }
    if (seen[role]) return FieldError(at + ".name", input_name->text + " is listed twice", error);
    seen[role] = true;
    TensorSpec& tensor = c->inputs[role];
    tensor.name = input_name->text;
    const Value* dtype = input.Find("dtype");
    if (dtype == nullptr || dtype->kind != Kind::kString) {
      return FieldError(at + ".dtype", "missing, or not a string", error);
    }
    if (!ToDtype(dtype->text, true, &tensor.dtype)) {
      return FieldError(at + ".dtype", UnknownDtype(dtype->text, true), error);
    }
    const Value* shape = input.Find("shape");
    if (shape == nullptr) return FieldError(at + ".shape", "missing", error);
    if (!ToShape(*shape, &tensor.shape, &why)) return FieldError(at + ".shape", why, error);
    if (range == nullptr) return FieldError(at + ".range_values", "missing", error);
    if (!ToRange(*range, &tensor.range, &why)) return FieldError(at + ".range_values", why, error);
  }
  for (size_t r = 0; r < op.inputs.size(); ++r) {
    if (!seen[r]) return FieldError("inputs", std::string("no ") + op.inputs[r].api + " tensor", error);
  }
  for (int i = 0; i < info.attribute_count; ++i) {
    if (!attribute_values[static_cast<size_t>(i)].empty()) continue;
    // One no parameter passes (ATK lists none): the value the API fixes (aclnnL1Loss's p = 1).
    if (op.api->param_of(aclcpu::ParamKind::kAttribute, i) < 0) {
      attribute_values[static_cast<size_t>(i)].push_back(op.api->fixed_values[i]);
      continue;
    }
    return FieldError("inputs", std::string("no ") + info.attributes[i].name + " attr", error);
  }
  AddApiRuns(attribute_values, ranged, info, c);
  return true;
}

size_t SkipBom(const std::string& text) { return text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0; }

}  // namespace

bool SplitCsvLine(const std::string& line, std::vector<std::string>* fields, std::string* error) {
  fields->clear();
  size_t i = 0;
  const size_t n = line.size();
  for (;;) {
    std::string field;
    size_t start = i;
    while (start < n && (line[start] == ' ' || line[start] == '\t')) ++start;
    if (start < n && line[start] == '"') {
      i = start + 1;
      for (;;) {
        if (i >= n) {
          *error = "field " + std::to_string(fields->size() + 1) + ": unterminated quote";
          return false;
        }
        const char c = line[i++];
        if (c != '"') {
          field.push_back(c);
        } else if (i < n && line[i] == '"') {  // "" is one quote
          field.push_back('"');
          ++i;
        } else {
          break;
        }
      }
      while (i < n && (line[i] == ' ' || line[i] == '\t')) ++i;
      if (i < n && line[i] != ',') {
        *error = "field " + std::to_string(fields->size() + 1) + ": text after the closing quote";
        return false;
      }
    } else {
      while (i < n && line[i] != ',') field.push_back(line[i++]);
    }
    fields->push_back(std::move(field));
    if (i >= n) return true;
    ++i;  // the comma
  }
}

FileFormat DetectFormat(const std::string& text) {
  size_t i = SkipBom(text);
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n')) ++i;
  if (i < text.size() && text[i] == '[') return FileFormat::kJson;
  const size_t end = text.find('\n', i);
  std::vector<std::string> fields;
  std::string why;
  if (!SplitCsvLine(text.substr(i, end == std::string::npos ? std::string::npos : end - i), &fields, &why)) {
    return FileFormat::kUnknown;
  }
  for (const std::string& field : fields) {
    if (Trim(field) == "testcase_name") return FileFormat::kCsv;
  }
  return FileFormat::kUnknown;
}

bool ParseCsvCases(const std::string& text, const std::string& path, std::vector<Case>* cases, std::string* error) {
  std::vector<std::string> lines;
  for (size_t start = SkipBom(text); start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  size_t header = 0;
  while (header < lines.size() && Trim(lines[header]).empty()) ++header;
  std::vector<std::string> names;
  std::string why;
  if (header == lines.size()) {
    *error = path + ": no header line";
    return false;
  }
  const std::string header_at = path + " line " + std::to_string(header + 1);
  if (!SplitCsvLine(lines[header], &names, &why)) {
    *error = header_at + ": header: " + why;
    return false;
  }
  CsvColumns col;
  const std::pair<const char*, int*> known[] = {
      {"testcase_name", &col.name},       {"op_name", &col.op},
      {"input_shapes", &col.shapes},      {"input_dtypes", &col.dtypes},
      {"output_shapes", &col.out_shapes}, {"output_dtypes", &col.out_dtypes},
      {"attributes", &col.attrs},         {"input_data_ranges", &col.ranges},
      {"is_enabled", &col.enabled},       {"precision_tolerances", &col.tolerances},
      {"absolute_precision", &col.atol},  {"api_name", &col.api}};
  for (size_t i = 0; i < names.size(); ++i) {
    for (const auto& k : known) {
      if (Trim(names[i]) == k.first && *k.second < 0) *k.second = static_cast<int>(i);
    }
  }
  // An api_name column makes the table TTK's aclnn-level one (testcase_manager.py,
  // _testcase_hdr_check), whose rows are refused one by one; the kernel-level columns are not needed.
  const bool aclnn_level = col.api >= 0;
  for (const auto& required : {std::make_pair("testcase_name", col.name), std::make_pair("input_shapes", col.shapes),
                               std::make_pair("input_dtypes", col.dtypes)}) {
    if (required.second < 0 && (!aclnn_level || std::string(required.first) == "testcase_name")) {
      *error = header_at + ": the header has no " + required.first + " column";
      return false;
    }
  }
  for (size_t l = header + 1; l < lines.size(); ++l) {
    if (Trim(lines[l]).empty()) continue;
    Case c;
    c.level = Case::Level::kKernel;
    c.where = path + " line " + std::to_string(l + 1);
    c.file = path;
    std::vector<std::string> fields;
    if (!SplitCsvLine(lines[l], &fields, &why)) {
      c.error = why;
    } else if (fields.size() != names.size()) {
      c.error = "the row has " + std::to_string(fields.size()) + " fields, the header " + std::to_string(names.size());
      if (static_cast<size_t>(col.name) < fields.size()) c.name = Trim(fields[static_cast<size_t>(col.name)]);
    } else if (!(aclnn_level ? ParseCsvAclnnRow(fields, col, &c, &why) : ParseCsvRow(fields, col, &c, &why))) {
      c.error = why;
    }
    cases->push_back(std::move(c));
  }
  return true;
}

bool ParseJsonCases(const std::string& text, const std::string& path, std::vector<Case>* cases, std::string* error) {
  Value root;
  std::string why;
  if (!ParseLiteral(text, Dialect::kJson, &root, &why)) {
    *error = path + ": JSON: " + why;
    return false;
  }
  if (root.kind != Kind::kList) {
    *error = path + ": the top level is not a JSON array of cases";
    return false;
  }
  size_t line = 1, counted_to = 0;  // the line of byte counted_to
  for (size_t k = 0; k < root.items.size(); ++k) {
    const Value& item = root.items[k];
    for (; counted_to < item.offset && counted_to < text.size(); ++counted_to) line += text[counted_to] == '\n';
    Case c;
    c.level = Case::Level::kApi;
    c.file = path;
    std::string id = "at index " + std::to_string(k);
    const Value* id_value = item.kind == Kind::kDict ? item.Find("id") : nullptr;
    if (id_value != nullptr && id_value->kind == Kind::kInt) id = "id " + std::to_string(id_value->integer);
    if (id_value != nullptr && id_value->kind == Kind::kString) id = "id \"" + id_value->text + "\"";
    c.where = path + " case " + id + " at line " + std::to_string(line);
    if (!ParseJsonCase(item, &c, &why)) c.error = why;
    cases->push_back(std::move(c));
  }
  return true;
}

bool ParseCaseText(const std::string& text, const std::string& path, std::vector<Case>* cases, std::string* error) {
  const std::string body = text.substr(SkipBom(text));
  switch (DetectFormat(body)) {
    case FileFormat::kJson:
      return ParseJsonCases(body, path, cases, error);
    case FileFormat::kCsv:
      return ParseCsvCases(body, path, cases, error);
    default:
      *error = path + ": not a case file: neither a JSON array nor a CSV table whose header has a testcase_name column";
      return false;
  }
}

bool LoadCaseFile(const std::string& path, std::vector<Case>* cases, std::string* error, bool* not_a_case_file) {
  if (not_a_case_file != nullptr) *not_a_case_file = false;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    *error = path + ": is a directory, not a case file";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    *error = path + ": cannot read";
    return false;
  }
  if (not_a_case_file != nullptr) {
    *not_a_case_file = DetectFormat(text.str().substr(SkipBom(text.str()))) == FileFormat::kUnknown;
  }
  return ParseCaseText(text.str(), path, cases, error);
}

bool CaseFilesUnder(const std::string& dir, std::vector<std::string>* files, std::string* error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.empty() && name[0] == '.') {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    const std::string extension = it->path().extension().string();
    if ((extension == ".csv" || extension == ".json") && it->is_regular_file(ec)) files->push_back(it->path().string());
  }
  if (ec) {
    *error = dir + ": cannot read the directory: " + ec.message();
    return false;
  }
  std::sort(files->begin(), files->end());
  return true;
}

}  // namespace case_runner
