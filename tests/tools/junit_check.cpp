// junit_check FILE TESTS FAILURES SKIPPED [ERRORS]: reads FILE as XML 1.0 (well-formed: one root,
// nested and matching tags, quoted unique attributes, known entities, UTF-8 text) holding JUnit
// results as CI servers read them: <testsuites> of <testsuite> of <testcase>, each with at most one
// <failure>, <error> or <skipped>; every tests/failures/errors/skipped attribute equal to what it
// contains; and the totals equal to the numbers given (ERRORS: 0 when not given). Exit 0 when all
// holds, else 1 with what does not.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Element {
  std::string name;
  std::map<std::string, std::string> attributes;
  std::vector<std::unique_ptr<Element>> children;
  std::string text;
};

class XmlReader {
 public:
  explicit XmlReader(const std::string& text) : text_(text) {}

  // The root element, or null with error() saying what is wrong and where.
  std::unique_ptr<Element> Read() {
    if (text_.compare(0, 5, "<?xml") == 0) {
      const size_t end = text_.find("?>");
      if (end == std::string::npos) return Fail("unterminated XML declaration");
      pos_ = end + 2;
    }
    SkipMisc();
    std::unique_ptr<Element> root = ReadElement(0);
    if (!root) return nullptr;
    SkipMisc();
    if (pos_ != text_.size()) return Fail("content after the root element");
    return root;
  }
  const std::string& error() const { return error_; }

 private:
  std::unique_ptr<Element> Fail(const std::string& what) {
    if (error_.empty()) error_ = "byte " + std::to_string(pos_) + ": " + what;
    return nullptr;
  }
  bool AtEnd() const { return pos_ >= text_.size(); }
  static bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
  static bool IsNameChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.' || c == ':';
  }
  void SkipSpace() {
    while (!AtEnd() && IsSpace(text_[pos_])) ++pos_;
  }
  // White space and comments between elements.
  void SkipMisc() {
    for (;;) {
      SkipSpace();
      if (text_.compare(pos_, 4, "<!--") != 0) return;
      const size_t end = text_.find("-->", pos_ + 4);
      pos_ = end == std::string::npos ? text_.size() : end + 3;
    }
  }
  bool ReadName(std::string* name) {
    const size_t start = pos_;
    while (!AtEnd() && IsNameChar(text_[pos_])) ++pos_;
    *name = text_.substr(start, pos_ - start);
    return !name->empty() && !(name->front() >= '0' && name->front() <= '9');
  }
  // Character data up to stop ('<' for text, the quote for attribute values), entities decoded.
  bool ReadCharacters(char stop, std::string* out) {
    while (!AtEnd() && text_[pos_] != stop) {
      const unsigned char c = static_cast<unsigned char>(text_[pos_]);
      if (c == '<') return Fail("'<' in character data") != nullptr;
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return Fail("a control character") != nullptr;
      if (c == '&') {
        const size_t end = text_.find(';', pos_);
        if (end == std::string::npos) return Fail("unterminated entity") != nullptr;
        const std::string entity = text_.substr(pos_ + 1, end - pos_ - 1);
        static const std::map<std::string, char> kNamed = {
            {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
        if (kNamed.count(entity) != 0) {
          out->push_back(kNamed.at(entity));
        } else if (entity.size() > 1 && entity[0] == '#') {
          const bool hex = entity[1] == 'x';
          char* rest = nullptr;
          const long code = std::strtol(entity.c_str() + (hex ? 2 : 1), &rest, hex ? 16 : 10);
          if (*rest != '\0' || !(code == 9 || code == 10 || code == 13 || (code >= 0x20 && code <= 0x10ffff))) {
            return Fail("bad character reference &" + entity + ";") != nullptr;
          }
          out->push_back(code < 0x80 ? static_cast<char>(code) : '?');
        } else {
          return Fail("unknown entity &" + entity + ";") != nullptr;
        }
        pos_ = end + 1;
        continue;
      }
      size_t length = 1;  // a UTF-8 sequence: its lead byte says how long
      if (c >= 0x80) {
        length = (c & 0xe0) == 0xc0 ? 2 : ((c & 0xf0) == 0xe0 ? 3 : ((c & 0xf8) == 0xf0 ? 4 : 0));
        if (length == 0 || pos_ + length > text_.size()) return Fail("bytes that are not UTF-8") != nullptr;
        for (size_t k = 1; k < length; ++k) {
          if ((static_cast<unsigned char>(text_[pos_ + k]) & 0xc0) != 0x80) {
            return Fail("bytes that are not UTF-8") != nullptr;
          }
        }
      }
      out->append(text_, pos_, length);
      pos_ += length;
    }
    return true;
  }

  std::unique_ptr<Element> ReadElement(int depth) {
    if (depth > 64) return Fail("nested too deep");
    if (AtEnd() || text_[pos_] != '<') return Fail("expected an element");
    ++pos_;
    auto element = std::make_unique<Element>();
    if (!ReadName(&element->name)) return Fail("expected an element name");
    for (;;) {
      const size_t before = pos_;
      SkipSpace();
      if (AtEnd()) return Fail("unterminated start tag");
      if (text_.compare(pos_, 2, "/>") == 0) {
        pos_ += 2;
        return element;
      }
      if (text_[pos_] == '>') {
        ++pos_;
        break;
      }
      if (pos_ == before) return Fail("attributes must be separated by white space");
      std::string name, value;
      if (!ReadName(&name)) return Fail("expected an attribute name");
      SkipSpace();
      if (AtEnd() || text_[pos_] != '=') return Fail("expected '=' after " + name);
      ++pos_;
      SkipSpace();
      if (AtEnd() || (text_[pos_] != '"' && text_[pos_] != '\'')) return Fail("an unquoted attribute value");
      const char quote = text_[pos_++];
      if (!ReadCharacters(quote, &value)) return nullptr;
      if (AtEnd()) return Fail("unterminated attribute value");
      ++pos_;
      if (!element->attributes.emplace(name, value).second) return Fail("attribute " + name + " repeated");
    }
    for (;;) {
      if (!ReadCharacters('<', &element->text)) return nullptr;
      if (AtEnd()) return Fail("element " + element->name + " is not closed");
      if (text_.compare(pos_, 4, "<!--") == 0) {
        SkipMisc();
        continue;
      }
      if (text_.compare(pos_, 2, "</") == 0) {
        pos_ += 2;
        std::string name;
        if (!ReadName(&name) || name != element->name) return Fail("</" + name + "> closes <" + element->name + ">");
        SkipSpace();
        if (AtEnd() || text_[pos_] != '>') return Fail("unterminated end tag");
        ++pos_;
        return element;
      }
      std::unique_ptr<Element> child = ReadElement(depth + 1);
      if (!child) return nullptr;
      element->children.push_back(std::move(child));
    }
  }

  const std::string& text_;
  size_t pos_ = 0;
  std::string error_;
};

struct Counts {
  long tests = 0, failures = 0, skipped = 0, errors = 0;
};

bool CheckCount(const Element& element, const char* attribute, long counted, std::string* error) {
  const auto it = element.attributes.find(attribute);
  if (it == element.attributes.end()) {
    *error = "<" + element.name + "> has no " + attribute;
    return false;
  }
  if (it->second != std::to_string(counted)) {
    const auto name = element.attributes.find("name");
    *error = "<" + element.name + (name == element.attributes.end() ? "" : " name=\"" + name->second + "\"") +
             "> says " + attribute + "=" + it->second + " but holds " + std::to_string(counted);
    return false;
  }
  return true;
}

bool CheckSuite(const Element& suite, Counts* counts, std::string* error) {
  if (suite.name != "testsuite" || suite.attributes.count("name") == 0) {
    *error = "<testsuites> holds <" + suite.name + ">, not a named <testsuite>";
    return false;
  }
  Counts own;
  for (const auto& testcase : suite.children) {
    if (testcase->name != "testcase" || testcase->attributes.count("name") == 0 ||
        testcase->attributes.count("classname") == 0) {
      *error = "<testsuite> holds <" + testcase->name + ">, not a <testcase> with name and classname";
      return false;
    }
    ++own.tests;
    if (testcase->children.size() > 1) {
      *error = "testcase " + testcase->attributes.at("name") + " has more than one result";
      return false;
    }
    for (const auto& result : testcase->children) {
      if (result->name == "failure" && result->attributes.count("message") != 0) {
        ++own.failures;
      } else if (result->name == "error" && result->attributes.count("message") != 0) {
        ++own.errors;
      } else if (result->name == "skipped") {
        ++own.skipped;
      } else {
        *error = "testcase " + testcase->attributes.at("name") + " holds <" + result->name + ">";
        return false;
      }
    }
  }
  if (!CheckCount(suite, "tests", own.tests, error) || !CheckCount(suite, "failures", own.failures, error) ||
      !CheckCount(suite, "skipped", own.skipped, error) || !CheckCount(suite, "errors", own.errors, error)) {
    return false;
  }
  counts->tests += own.tests;
  counts->failures += own.failures;
  counts->skipped += own.skipped;
  counts->errors += own.errors;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5 && argc != 6) {
    std::fprintf(stderr, "usage: junit_check FILE TESTS FAILURES SKIPPED [ERRORS]\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in) {
    std::fprintf(stderr, "%s: cannot read\n", argv[1]);
    return 1;
  }
  const std::string text = bytes.str();
  XmlReader reader(text);
  const std::unique_ptr<Element> root = reader.Read();
  if (!root) {
    std::fprintf(stderr, "%s: not well-formed XML: %s\n", argv[1], reader.error().c_str());
    return 1;
  }
  std::string error;
  if (root->name != "testsuites") error = "the root is <" + root->name + ">, not <testsuites>";
  Counts counts;
  for (const auto& suite : root->children) {
    if (error.empty()) CheckSuite(*suite, &counts, &error);
  }
  if (error.empty() && CheckCount(*root, "tests", counts.tests, &error) &&
      CheckCount(*root, "failures", counts.failures, &error) && CheckCount(*root, "errors", counts.errors, &error)) {
    CheckCount(*root, "skipped", counts.skipped, &error);
  }
  const Counts expected{std::atol(argv[2]), std::atol(argv[3]), std::atol(argv[4]), argc == 6 ? std::atol(argv[5]) : 0};
  if (error.empty() && (counts.tests != expected.tests || counts.failures != expected.failures ||
                        counts.skipped != expected.skipped || counts.errors != expected.errors)) {
    error = "it holds " + std::to_string(counts.tests) + " tests, " + std::to_string(counts.failures) + " failures, " +
            std::to_string(counts.skipped) + " skipped, " + std::to_string(counts.errors) + " errors; expected " +
            std::to_string(expected.tests) + ", " + std::to_string(expected.failures) + ", " +
            std::to_string(expected.skipped) + ", " + std::to_string(expected.errors);
  }
  if (!error.empty()) {
    std::fprintf(stderr, "%s: %s\n", argv[1], error.c_str());
    return 1;
  }
  std::printf("%s: well-formed JUnit, %ld tests, %ld failures, %ld skipped, %ld errors\n", argv[1], counts.tests,
              counts.failures, counts.skipped, counts.errors);
  return 0;
}
