#include "junit.h"

#include <cstdio>

#include "report.h"
#include "utf8.h"

namespace case_runner {
namespace {

// The length of the UTF-8 sequence at text[i] of a character XML 1.0 allows; 0 when there is none.
size_t XmlCharLength(const std::string& text, size_t i) {
  uint32_t code = 0;
  const size_t length = Utf8Length(text, i, &code);
  if (length == 0 || code == 0xfffe || code == 0xffff) return 0;
  return code >= 0x20 || code == '\t' || code == '\n' || code == '\r' ? length : 0;
}

std::string Escape(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const size_t length = XmlCharLength(text, i);
    if (length == 0) {
      out += '?';
      ++i;
      continue;
    }
    switch (text[i]) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\n':
        out += "&#10;";
        break;
      default:
        out.append(text, i, length);
    }
    i += length;
  }
  return out;
}

std::string Seconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", seconds);
  return text;
}

struct Counts {
  size_t tests = 0, failures = 0, errors = 0, skipped = 0;
  double seconds = 0.0;
  void Add(const JunitCase& c) {
    ++tests;
    failures += c.outcome == Outcome::kFail ? 1 : 0;
    errors += c.outcome == Outcome::kError ? 1 : 0;
    skipped += c.outcome == Outcome::kSkip ? 1 : 0;
    seconds += c.seconds;
  }
  std::string Attributes() const {
    return " tests=\"" + std::to_string(tests) + "\" failures=\"" + std::to_string(failures) + "\" errors=\"" +
           std::to_string(errors) + "\" skipped=\"" + std::to_string(skipped) + "\" time=\"" + Seconds(seconds) + "\"";
  }
};

}  // namespace

std::string JunitXml(const std::vector<JunitCase>& cases) {
  std::vector<std::string> suites;  // in the order they first appear
  for (const JunitCase& c : cases) {
    bool known = false;
    for (const std::string& suite : suites) known = known || suite == c.suite;
    if (!known) suites.push_back(c.suite);
  }
  Counts all;
  for (const JunitCase& c : cases) all.Add(c);
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += "<testsuites name=\"aclnn_case_runner\"" + all.Attributes() + ">\n";
  for (const std::string& suite : suites) {
    Counts counts;
    for (const JunitCase& c : cases) {
      if (c.suite == suite) counts.Add(c);
    }
    xml += "  <testsuite name=\"" + Escape(suite) + "\"" + counts.Attributes() + ">\n";
    for (const JunitCase& c : cases) {
      if (c.suite != suite) continue;
      xml += "    <testcase name=\"" + Escape(c.name) + "\" classname=\"" + Escape(c.classname) + "\" time=\"" +
             Seconds(c.seconds) + "\"";
      if (c.outcome == Outcome::kPass) {
        xml += "/>\n";
      } else if (c.outcome == Outcome::kFail) {
        xml += ">\n      <failure message=\"" + Escape(c.message) + "\">" + Escape(c.message) +
               (c.details.empty() ? "" : "\n" + Escape(c.details)) + "</failure>\n    </testcase>\n";
      } else if (c.outcome == Outcome::kError) {
        xml += ">\n      <error message=\"" + Escape(c.message) + "\">" + Escape(c.message) +
               "</error>\n    </testcase>\n";
      } else {
        xml += ">\n      <skipped message=\"" + Escape(c.message) + "\"/>\n    </testcase>\n";
      }
    }
    xml += "  </testsuite>\n";
  }
  return xml + "</testsuites>\n";
}

bool WriteJunit(const std::string& path, const std::vector<JunitCase>& cases, std::string* error) {
  return WriteTextFile(path, JunitXml(cases), error);
}

}  // namespace case_runner
