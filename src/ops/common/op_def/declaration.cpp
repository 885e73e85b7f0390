#include "declaration.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace aclcpu {
namespace {

// "a, b or c", each item made by text(i).
template <class Text>
std::string Listed(int count, Text text) {
  std::string listed;
  for (int i = 0; i < count; ++i) listed += (i == 0 ? "" : (i + 1 == count ? " or " : ", ")) + text(i);
  return listed;
}

}  // namespace

std::string InvalidEnumNumber(const AttrDeclaration& attribute, int64_t value) {
  const EnumType& type = *attribute.enum_type;
  return std::string(attribute.name) + " " + std::to_string(value) + " is invalid; expected " +
         Listed(type.count, [&](int i) { return std::to_string(i) + " (" + type.values[i] + ")"; });
}

std::string InvalidEnumName(const AttrDeclaration& attribute, const std::string& name) {
  const EnumType& type = *attribute.enum_type;
  return std::string(attribute.name) + " \"" + name + "\" is invalid; expected " +
         Listed(type.count, [&](int i) { return std::string(type.values[i]); });
}

bool ParseAttrText(const AttrDeclaration& attribute, const std::string& text, AttrValue* value, std::string* why) {
  switch (attribute.kind) {
    case AttrKind::kEnum:
      for (int i = 0; i < attribute.enum_type->count; ++i) {
        if (text == attribute.enum_type->values[i]) {
          value->integer = i;
          return true;
        }
      }
      *why = InvalidEnumName(attribute, text);
      return false;
    case AttrKind::kBool:
      if (text == "true" || text == "True" || text == "false" || text == "False") {
        value->integer = text[0] == 't' || text[0] == 'T';
        return true;
      }
      break;
    case AttrKind::kInt: {
      char* end = nullptr;
      errno = 0;
      const long long parsed = std::strtoll(text.c_str(), &end, 10);
      if (!text.empty() && *end == '\0' && errno == 0) {
        value->integer = parsed;
        return true;
      }
      break;
    }
    case AttrKind::kFloat: {
      char* end = nullptr;
      const double parsed = std::strtod(text.c_str(), &end);
      if (!text.empty() && *end == '\0') {
        value->real = parsed;
        return true;
      }
      break;
    }
  }
  *why = std::string(attribute.name) + " \"" + text + "\" is not a value of its type";
  return false;
}

std::string AttrText(const AttrDeclaration& attribute, const AttrValue& value) {
  switch (attribute.kind) {
    case AttrKind::kEnum:
      return value.integer >= 0 && value.integer < attribute.enum_type->count
                 ? attribute.enum_type->values[value.integer]
                 : std::to_string(value.integer);
    case AttrKind::kBool:
      return value.integer != 0 ? "true" : "false";
    case AttrKind::kInt:
      return std::to_string(value.integer);
    case AttrKind::kFloat:
      return std::to_string(value.real);
  }
  return "";
}

kernel::Shape ShapeFor(ShapeRule rule, kernel::Dims broadcast) {
  switch (rule) {
    case ShapeRule::kBroadcast:
      return kernel::Shape(broadcast.begin(), broadcast.end());
    case ShapeRule::kScalar:
    case ShapeRule::kOneElement:
      return kernel::Shape{};
    case ShapeRule::kBroadcastWithoutDim0:
      return broadcast.size() == 0 ? kernel::Shape{} : kernel::Shape(broadcast.begin() + 1, broadcast.end());
  }
  return kernel::Shape{};
}

std::string ShapeRuleText(const OutShapeRule& rule, const AttrDeclaration* attributes, const AttrValue* values) {
  switch (RuleFor(rule, values)) {
    case ShapeRule::kBroadcast:
      return "the broadcast shape";
    case ShapeRule::kScalar:
      return rule.by < 0 ? "the 0-d shape"
                         : "the 0-d shape of " + std::string(attributes[rule.by].name) + " " +
                               AttrText(attributes[rule.by], values[rule.by]);
    case ShapeRule::kBroadcastWithoutDim0:
      return "the broadcast shape without dim 0";
    case ShapeRule::kOneElement:
      return rule.by < 0 ? "a shape of one element"
                         : "a shape of one element for " + std::string(attributes[rule.by].name) + " " +
                               AttrText(attributes[rule.by], values[rule.by]);
  }
  return "";
}

}  // namespace aclcpu
