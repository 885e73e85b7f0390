#include "literal.h"

#include <charconv>
#include <cstdio>
#include <limits>
#include <system_error>

namespace case_runner {
namespace {

constexpr int kMaxDepth = 64;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsWordChar(char c) { return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

// A character for a message: itself when printable, else its byte value.
std::string Describe(char c) {
  const unsigned char byte = static_cast<unsigned char>(c);
  if (byte >= 0x20 && byte < 0x7f) return std::string("'") + c + "'";
  char text[16];
  std::snprintf(text, sizeof text, "byte 0x%02x", byte);
  return text;
}

void AppendUtf8(uint32_t code, std::string* out) {
  if (code < 0x80) {
    out->push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out->push_back(static_cast<char>(0xc0 | (code >> 6)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3f)));
  } else if (code < 0x10000) {
    out->push_back(static_cast<char>(0xe0 | (code >> 12)));
    out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xf0 | (code >> 18)));
    out->push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3f)));
  }
}

class Parser {
 public:
  Parser(const std::string& text, Dialect dialect) : text_(text), python_(dialect == Dialect::kPython) {}

  bool ParseAll(Value* value, std::string* error) {
    SkipSpace();
    bool ok = ParseValue(value, 0);
    if (ok) {
      SkipSpace();
      if (!AtEnd()) ok = Fail(pos_, "unexpected " + Describe(Peek()) + " after the value");
    }
    if (!ok) *error = error_;
    return ok;
  }

 private:
  bool Fail(size_t at, const std::string& what) {
    if (error_.empty()) error_ = LineColumn(text_, at) + ": " + what;
    return false;
  }
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }
  void SkipSpace() {
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t' || Peek() == '\n' || Peek() == '\r')) ++pos_;
  }

  bool ParseValue(Value* value, int depth) {
    if (depth >= kMaxDepth) return Fail(pos_, "nested more than 64 deep");
    value->offset = pos_;
    if (AtEnd()) return Fail(pos_, "expected a value, found the end");
    const char c = Peek();
    if (c == '[') {
      ++pos_;
      value->kind = Value::Kind::kList;
      return ParseItems(value, ']', depth);
    }
    if (c == '(' && python_) return ParseParenthesis(value, depth);
    if (c == '{') return ParseDict(value, depth);
    if (c == '"' || (c == '\'' && python_)) {
      value->kind = Value::Kind::kString;
      return ParseString(&value->text);
    }
    if (IsDigit(c) || c == '-' || (python_ && (c == '+' || c == '.' || c == 'i' || c == 'n')))
      return ParseNumber(value);
    if (IsWordChar(c)) return ParseWord(value);
    return Fail(pos_, "unexpected " + Describe(c));
  }

  // The items of a list up to `close` (the opener already consumed, earlier items kept).
  bool ParseItems(Value* list, char close, int depth) {
    SkipSpace();
    if (Peek() == close) {
      ++pos_;
      return true;
    }
    for (;;) {
      Value item;
      if (!ParseValue(&item, depth + 1)) return false;
      list->items.push_back(std::move(item));
      if (!EndOfItem(close)) return false;
      if (closed_) return true;
    }
  }

  // After an item: a comma (Python: optionally followed by the close) or the close.
  bool EndOfItem(char close) {
    closed_ = false;
    SkipSpace();
    if (Peek() == ',') {
      ++pos_;
      SkipSpace();
      if (python_ && Peek() == close) {
        ++pos_;
        closed_ = true;
      }
      return true;
    }
    if (Peek() == close) {
      ++pos_;
      closed_ = true;
      return true;
    }
    if (AtEnd()) return Fail(pos_, std::string("expected ',' or '") + close + "', found the end");
    return Fail(pos_, std::string("expected ',' or '") + close + "', found " + Describe(Peek()));
  }

  // Python: () is an empty tuple, (x) is x, (x,) and (x, y) are tuples.
  bool ParseParenthesis(Value* value, int depth) {
    ++pos_;
    SkipSpace();
    if (Peek() == ')') {
      ++pos_;
      value->kind = Value::Kind::kList;
      return true;
    }
    Value first;
    if (!ParseValue(&first, depth + 1)) return false;
    SkipSpace();
    if (Peek() == ')') {
      ++pos_;
      *value = std::move(first);
      return true;
    }
    if (Peek() != ',') return Fail(pos_, "expected ',' or ')'" + std::string(AtEnd() ? ", found the end" : ""));
    ++pos_;
    value->kind = Value::Kind::kList;
    value->items.push_back(std::move(first));
    return ParseItems(value, ')', depth);
  }

  bool ParseDict(Value* value, int depth) {
    ++pos_;
    value->kind = Value::Kind::kDict;
    SkipSpace();
    if (Peek() == '}') {
      ++pos_;
      return true;
    }
    for (;;) {
      const size_t key_at = pos_;
      std::string key;
      if (!(Peek() == '"' || (python_ && Peek() == '\''))) return Fail(pos_, "expected a string key");
      if (!ParseString(&key)) return false;
      if (value->Find(key) != nullptr) return Fail(key_at, "duplicate key \"" + key + "\"");
      SkipSpace();
      if (Peek() != ':') return Fail(pos_, "expected ':' after the key");
      ++pos_;
      SkipSpace();
      Value item;
      if (!ParseValue(&item, depth + 1)) return false;
      value->fields.emplace_back(std::move(key), std::move(item));
      if (!EndOfItem('}')) return false;
      if (closed_) return true;
      if (Peek() == '}') return Fail(pos_, "expected a key after ','");  // JSON: no trailing comma
    }
  }

  bool ParseHex4(uint32_t* code) {
    if (text_.size() - pos_ < 4) return Fail(pos_, "expected 4 hex digits after \\u");
    uint32_t result = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[pos_ + i];
      uint32_t digit;
      if (IsDigit(c)) {
        digit = static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        digit = static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        digit = static_cast<uint32_t>(c - 'A' + 10);
      } else {
        return Fail(pos_ + i, "expected a hex digit in \\u escape");
      }
      result = result * 16 + digit;
    }
    pos_ += 4;
    *code = result;
    return true;
  }

  bool ParseString(std::string* out) {
    const size_t start = pos_;
    const char quote = text_[pos_++];
    for (;;) {
      if (AtEnd()) return Fail(start, "unterminated string");
      const char c = text_[pos_++];
      if (c == quote) return true;
      if (static_cast<unsigned char>(c) < 0x20 && !(python_ && c == '\t')) {
        return Fail(pos_ - 1, "control character in a string");
      }
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (AtEnd()) return Fail(start, "unterminated string");
      const char e = text_[pos_++];
      switch (e) {
        case '"':
        case '\\':
          out->push_back(e);
          break;
        case '\'':
          if (!python_) return Fail(pos_ - 2, "unknown escape \\'");
          out->push_back(e);
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case '/':
        case 'b':
        case 'f':
        case 'u':
          if (python_) return Fail(pos_ - 2, std::string("unknown escape \\") + e);
          if (e == '/') out->push_back('/');
          if (e == 'b') out->push_back('\b');
          if (e == 'f') out->push_back('\f');
          if (e == 'u' && !ParseUnicodeEscape(out)) return false;
          break;
        default:
          return Fail(pos_ - 2, "unknown escape \\" + std::string(1, e));
      }
    }
  }

  // After "\u": one code point, or a surrogate pair written as two escapes.
  bool ParseUnicodeEscape(std::string* out) {
    const size_t at = pos_ - 2;
    uint32_t code;
    if (!ParseHex4(&code)) return false;
    if (code >= 0xdc00 && code <= 0xdfff) return Fail(at, "lone low surrogate in \\u escape");
    if (code >= 0xd800 && code <= 0xdbff) {
      uint32_t low;
      if (text_.compare(pos_, 2, "\\u") != 0) return Fail(at, "high surrogate without its low half");
      pos_ += 2;
      if (!ParseHex4(&low)) return false;
      if (low < 0xdc00 || low > 0xdfff) return Fail(at, "high surrogate without its low half");
      code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
    }
    AppendUtf8(code, out);
    return true;
  }

  size_t SkipDigits() {
    const size_t start = pos_;
    while (IsDigit(Peek())) ++pos_;
    return pos_ - start;
  }

  bool ParseNumber(Value* value) {
    const size_t start = pos_;
    if (Peek() == '-' || Peek() == '+') ++pos_;
    if (python_ && (Peek() == 'i' || Peek() == 'n')) return ParseNonFinite(start, value);
    const size_t integer_start = pos_;
    size_t digits = SkipDigits();
    if (!python_ && digits > 1 && text_[integer_start] == '0') return Fail(start, "leading zero in a number");
    if (!python_ && digits == 0) return Fail(start, "expected a digit");
    bool is_float = false;
    if (Peek() == '.') {
      ++pos_;
      is_float = true;
      const size_t fraction = SkipDigits();
      if (!python_ && fraction == 0) return Fail(pos_, "expected a digit after '.'");
      digits += fraction;
    }
    if (digits == 0) return Fail(start, "expected a number");
    if (Peek() == 'e' || Peek() == 'E') {
      ++pos_;
      is_float = true;
      if (Peek() == '-' || Peek() == '+') ++pos_;
      if (SkipDigits() == 0) return Fail(pos_, "expected a digit in the exponent");
    }
    if (IsWordChar(Peek()) || Peek() == '.') return Fail(start, "malformed number");
    const char* first = text_.data() + start + (text_[start] == '+' ? 1 : 0);
    const char* last = text_.data() + pos_;
    if (is_float) {
      value->kind = Value::Kind::kFloat;
      const std::from_chars_result r = std::from_chars(first, last, value->number);
      if (r.ec != std::errc() || r.ptr != last) return Fail(start, "number out of range");
    } else {
      value->kind = Value::Kind::kInt;
      const std::from_chars_result r = std::from_chars(first, last, value->integer);
      if (r.ec != std::errc() || r.ptr != last) return Fail(start, "integer out of range");
      value->number = static_cast<double>(value->integer);
      if (value->integer == 0 && text_[start] == '-') value->number = -0.0;  // "-0" keeps its sign
    }
    return true;
  }

  // inf and nan, signed or not: not Python literals, but ops-nn's case tables write them bare.
  bool ParseNonFinite(size_t start, Value* value) {
    const size_t word_start = pos_;
    while (IsWordChar(Peek())) ++pos_;
    const std::string word = text_.substr(word_start, pos_ - word_start);
    if (word != "inf" && word != "nan") return Fail(start, "unknown word \"" + word.substr(0, 24) + "\"");
    value->kind = Value::Kind::kFloat;
    value->number = word == "inf" ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
    if (text_[start] == '-') value->number = -value->number;
    return true;
  }

  bool ParseWord(Value* value) {
    const size_t start = pos_;
    while (IsWordChar(Peek())) ++pos_;
    const std::string word = text_.substr(start, pos_ - start);
    if (word == (python_ ? "True" : "true") || word == (python_ ? "False" : "false")) {
      value->kind = Value::Kind::kBool;
      value->boolean = word[0] == 'T' || word[0] == 't';
      return true;
    }
    if (word == (python_ ? "None" : "null")) {
      value->kind = Value::Kind::kNull;
      return true;
    }
    return Fail(start, "unknown word \"" + word.substr(0, 24) + "\"");
  }

  const std::string& text_;
  const bool python_;
  size_t pos_ = 0;
  bool closed_ = false;  // set by EndOfItem: the item was the last one
  std::string error_;
};

}  // namespace

const Value* Value::Find(const std::string& key) const {
  for (const auto& field : fields) {
    if (field.first == key) return &field.second;
  }
  return nullptr;
}

bool ParseLiteral(const std::string& text, Dialect dialect, Value* value, std::string* error) {
  *value = Value();
  return Parser(text, dialect).ParseAll(value, error);
}

std::string LineColumn(const std::string& text, size_t offset) {
  const bool one_line = text.find('\n') == std::string::npos;
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  if (one_line) return "column " + std::to_string(column);
  return "line " + std::to_string(line) + " column " + std::to_string(column);
}

}  // namespace case_runner
