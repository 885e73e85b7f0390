#include "report.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "golden/golden_common.h"
#include "utf8.h"

namespace case_runner {
namespace {

// ---- JSON ----------------------------------------------------------------------------------------

// A JSON string. Bytes that are not UTF-8 become '?'; every '<' is written \u003c, so that the
// page's embedded report can never close or open an element ("</script>", "<!--").
std::string Quoted(const std::string& text) {
  std::string out = "\"";
  for (size_t i = 0; i < text.size();) {
    uint32_t code = 0;
    const size_t length = Utf8Length(text, i, &code);
    if (length == 0) {
      out += '?';
      ++i;
      continue;
    }
    if (code == '"' || code == '\\') {
      out += '\\';
      out += text[i];
    } else if (code < 0x20 || code == '<') {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(code));
      out += escaped;
    } else {
      out.append(text, i, length);
    }
    i += length;
  }
  return out + "\"";
}

// A number; JSON has none for NaN and the infinities: they are the strings "nan", "inf", "-inf".
std::string Number(double value) {
  if (std::isnan(value)) return "\"nan\"";
  if (std::isinf(value)) return value > 0 ? "\"inf\"" : "\"-inf\"";
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

std::string Integers(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + std::to_string(values[i]);
  return out + "]";
}

std::vector<int64_t> CoordinateList(const std::vector<int64_t>& shape, int64_t index) {
  std::vector<int64_t> at(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    at[d] = shape[d] == 0 ? 0 : index % shape[d];
    index = shape[d] == 0 ? 0 : index / shape[d];
  }
  return at;
}

std::string Bits(Dtype dtype, uint32_t bits) {
  char text[16];
  std::snprintf(text, sizeof text, dtype == Dtype::kFloat32 ? "0x%08x" : "0x%04x", bits);
  return text;
}

std::string JudgementJson(const Verdict& v) {
  const Judgement& j = *v.judgement;
  const PieceStats& s = j.stats;
  const double finite = static_cast<double>(std::max<int64_t>(s.finite, 1));
  std::string out = "{\"method\":" + Quoted(j.method) + ",\"tool\":" + Quoted(j.tool) +
                    ",\"source\":" + Quoted(j.source) + ",\"verdict\":" + Quoted(j.verdict) +
                    ",\"reason\":" + Quoted(j.reason) + ",\"thresholds\":{";
  for (size_t i = 0; i < j.thresholds.size(); ++i) {
    out += (i ? "," : "") + Quoted(j.thresholds[i].first) + ":" + Number(j.thresholds[i].second);
  }
  out += "},\"measured\":{";
  for (size_t i = 0; i < j.measured.size(); ++i) {
    out += (i ? "," : "") + Quoted(j.measured[i].first) + ":" + Number(j.measured[i].second);
  }
  out += "},\"shape\":" + Integers(v.shape) +
         ",\"expected_dtype\":" + Quoted(aclcpu::kernel::Traits(v.expected_dtype).long_name) +
         ",\"actual_dtype\":" + Quoted(aclcpu::kernel::Traits(v.actual_dtype).long_name);
  out += ",\"stats\":{\"elements\":" + std::to_string(s.elements) + ",\"finite_pairs\":" + std::to_string(s.finite) +
         ",\"differing\":" + std::to_string(s.differing) + ",\"over\":" + std::to_string(s.bad) +
         ",\"over_share\":" + Number(s.elements ? static_cast<double>(s.bad) / s.elements : 0.0) +
         ",\"unbounded\":" + std::to_string(s.unbounded) + ",\"first_over_index\":" + std::to_string(s.first_bad) +
         ",\"max_abs_error\":" + Number(s.max_abs) + ",\"max_rel_error\":" + Number(s.max_rel) +
         ",\"mean_rel_error\":" + Number(s.sum_rel / finite) + ",\"rmse\":" + Number(std::sqrt(s.sum_sq / finite)) +
         ",\"cosine_similarity\":" + Number(s.dot / (std::sqrt(s.norm_a) * std::sqrt(s.norm_g))) +
         ",\"max_ulp\":" + Number(s.max_ulp) + ",\"worst\":[";
  for (size_t i = 0; i < s.worst.size(); ++i) {
    const WorstElement& w = s.worst[i];
    out += std::string(i ? "," : "") + "{\"index\":" + std::to_string(w.index) +
           ",\"coordinates\":" + Integers(CoordinateList(v.shape, w.index)) +
           ",\"expected\":" + Number(golden::Widen(v.expected_dtype, w.expected_bits)) +
           ",\"expected_bits\":" + Quoted(Bits(v.expected_dtype, w.expected_bits)) +
           ",\"actual\":" + Number(golden::Widen(v.actual_dtype, w.actual_bits)) +
           ",\"actual_bits\":" + Quoted(Bits(v.actual_dtype, w.actual_bits)) + ",\"abs_error\":" + Number(w.abs_error) +
           ",\"over\":" + (w.bad ? "true" : "false") + "}";
  }
  out += "],\"histogram\":[";
  for (int b = 0; b < kHistogramBins; ++b) {
    out += std::string(b ? "," : "") + "{\"bin\":" + Quoted(HistogramBinLabel(b)) +
           ",\"count\":" + std::to_string(s.histogram[b]) + "}";
  }
  const Grid grid(v.shape);
  out += "],\"grid\":{\"rows\":" + std::to_string(grid.rows) + ",\"cols\":" + std::to_string(grid.cols) +
         ",\"cell_rows\":" + std::to_string(grid.cell_rows) + ",\"cell_cols\":" + std::to_string(grid.cell_cols) +
         ",\"over\":[";
  bool first = true;
  for (const auto& cell : s.grid_bad) {
    out += std::string(first ? "" : ",") + "[" + std::to_string(cell.first / kGridCols) + "," +
           std::to_string(cell.first % kGridCols) + "," + std::to_string(cell.second) + "," +
           std::to_string(grid.CellElements(cell.first)) + "]";
    first = false;
  }
  return out + "]}}}";
}

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPass:
      return "pass";
    case Outcome::kFail:
      return "fail";
    case Outcome::kSkip:
      return "skip";
    case Outcome::kError:
      break;
  }
  return "error";
}

// ---- HTML ----------------------------------------------------------------------------------------

// The page's script and style: it renders the report embedded in it, with nothing fetched.
const char kPageHead[] = R"HTML(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>aclnn_case_runner report</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:2px 6px;text-align:left}
th{background:#eee;cursor:pointer;user-select:none}th[data-dir=asc]::after{content:" \25B2"}
th[data-dir=desc]::after{content:" \25BC"}
tr.fail td.outcome,tr.error td.outcome{color:#b00;font-weight:bold}tr.pass td.outcome{color:#070}tr.skip td.outcome{color:#777}
section.run{margin:1.5em 0;padding-top:.5em;border-top:2px solid #ddd}
.bars{display:flex;align-items:flex-end;height:120px;gap:2px}.bar{width:34px;background:#4a7;position:relative}
.bar.unbounded{background:#b00}.labels{display:flex;gap:2px}.labels span{width:34px;font-size:9px;
word-break:break-all;text-align:center}
.grid{display:grid;gap:1px;background:#ddd;width:max-content}.cell{width:10px;height:10px;background:#fff}
code{font-size:12px}
</style></head><body>
<h1>aclnn_case_runner report</h1>
<p id="header"></p>
<table id="summary"><thead><tr>
<th data-key="name">run</th><th data-key="op">op</th><th data-key="outcome">outcome</th>
<th data-key="method">method</th><th data-key="over_share" data-num="1">over %</th>
<th data-key="max_abs_error" data-num="1">max abs</th><th data-key="max_rel_error" data-num="1">max rel</th>
<th data-key="rmse" data-num="1">rmse</th><th data-key="cosine_similarity" data-num="1">cosine</th>
<th data-key="max_ulp" data-num="1">max ulp</th><th data-key="seconds" data-num="1">seconds</th>
</tr></thead><tbody></tbody></table>
<div id="failures"></div>
<script id="report" type="application/json">
)HTML";

const char kPageTail[] = R"HTML(
</script>
<script>
"use strict";
const report = JSON.parse(document.getElementById("report").textContent);
const num = v => (typeof v === "string" ? (v === "nan" ? NaN : (v === "-inf" ? -Infinity : Infinity)) : v);
const fmt = v => { const x = num(v); return x === undefined || x === null ? "" :
  (Number.isFinite(x) ? (Math.abs(x) >= 1e4 || (x !== 0 && Math.abs(x) < 1e-3) ? x.toExponential(3) :
   String(+x.toPrecision(6))) : String(x)); };
const h = report.header;
document.getElementById("header").textContent = `seed ${h.seed} · soc ${h.soc} · ${h.mode}` +
  (h.method ? ` · method ${h.method}` : "") + (h.shard ? ` · shard ${h.shard}` : "") +
  ` · ${h.passed} passed, ${h.failed} failed, ${h.skipped} skipped, ${h.warned} warned` +
  (h.errors ? `, ${h.errors} case files unusable` : "") + (h.not_run ? `, ${h.not_run} not run (--maxfail)` : "") +
  ` · ${fmt(h.seconds)} s`;
const rows = report.runs.map(r => {
  const s = r.judgement ? r.judgement.stats : {};
  return {run: r, name: r.name, op: r.op, outcome: r.outcome, method: r.judgement ? r.judgement.method : "",
    over_share: s.over_share, max_abs_error: s.max_abs_error, max_rel_error: s.max_rel_error, rmse: s.rmse,
    cosine_similarity: s.cosine_similarity, max_ulp: s.max_ulp, seconds: r.seconds};
});
const tbody = document.querySelector("#summary tbody");
function render(list) {
  tbody.textContent = "";
  for (const row of list) {
    const tr = document.createElement("tr");
    tr.className = row.outcome;
    const cells = [row.name, row.op, row.outcome, row.method,
      row.over_share === undefined ? "" : fmt(num(row.over_share) * 100), fmt(row.max_abs_error),
      fmt(row.max_rel_error), fmt(row.rmse), fmt(row.cosine_similarity), fmt(row.max_ulp), fmt(row.seconds)];
    cells.forEach((text, i) => {
      const td = document.createElement("td");
      if (i === 0 && (row.outcome === "fail" || row.outcome === "error")) {
        const a = document.createElement("a");
        a.href = "#run-" + report.runs.indexOf(row.run);
        a.textContent = text;
        td.appendChild(a);
      } else {
        td.textContent = text;
      }
      if (i === 2) td.className = "outcome";
      tr.appendChild(td);
    });
    tbody.appendChild(tr);
  }
}
render(rows);
document.querySelectorAll("#summary th").forEach(th => th.addEventListener("click", () => {
  const key = th.dataset.key, dir = th.dataset.dir === "asc" ? "desc" : "asc";
  document.querySelectorAll("#summary th").forEach(o => delete o.dataset.dir);
  th.dataset.dir = dir;
  const value = r => (th.dataset.num ? (r[key] === undefined ? -Infinity : num(r[key])) : String(r[key]));
  const sorted = rows.slice().sort((a, b) => {
    const x = value(a), y = value(b);
    const c = x < y ? -1 : (x > y ? 1 : (Number.isNaN(x) ? (Number.isNaN(y) ? 0 : 1) : (Number.isNaN(y) ? -1 : 0)));
    return dir === "asc" ? c : -c;
  });
  render(sorted);
}));
const failures = document.getElementById("failures");
report.runs.forEach((r, index) => {
  if (r.outcome !== "fail" && r.outcome !== "error") return;
  const sec = document.createElement("section");
  sec.className = "run";
  sec.id = "run-" + index;
  const title = document.createElement("h2");
  title.textContent = r.name;
  sec.appendChild(title);
  const line = document.createElement("p");
  line.className = "line";
  line.textContent = r.line;
  sec.appendChild(line);
  const j = r.judgement;
  if (j) {
    const s = j.stats;
    const hist = document.createElement("div");
    hist.className = "histogram";
    hist.innerHTML = "<h3>|actual - golden| by decade</h3>";
    const bars = document.createElement("div");
    bars.className = "bars";
    const labels = document.createElement("div");
    labels.className = "labels";
    const most = Math.max(1, ...s.histogram.map(b => b.count));
    for (const b of s.histogram) {
      const bar = document.createElement("div");
      bar.className = "bar" + (b.bin === "unbounded" ? " unbounded" : "");
      bar.dataset.bin = b.bin;
      bar.dataset.count = b.count;
      bar.title = `${b.bin}: ${b.count}`;
      bar.style.height = (b.count === 0 ? 0 : 2 + 98 * Math.log1p(b.count) / Math.log1p(most)) + "%";
      bars.appendChild(bar);
      const label = document.createElement("span");
      label.textContent = b.bin;
      labels.appendChild(label);
    }
    hist.appendChild(bars);
    hist.appendChild(labels);
    sec.appendChild(hist);
    const g = s.grid;
    const where = document.createElement("div");
    where.className = "where";
    where.innerHTML = `<h3>Where the elements over the threshold sit</h3><p>the output as ${g.rows} rows ` +
      `(every dim but the last) by ${g.cols} columns, in ${g.cell_rows} × ${g.cell_cols} cells; ` +
      "darker: a larger share of the cell's elements over</p>";
    const grid = document.createElement("div");
    grid.className = "grid";
    grid.style.gridTemplateColumns = `repeat(${g.cell_cols}, 10px)`;
    const over = new Map(g.over.map(c => [c[0] * g.cell_cols + c[1], c]));
    for (let rr = 0; rr < g.cell_rows; ++rr) {
      for (let cc = 0; cc < g.cell_cols; ++cc) {
        const cell = document.createElement("div");
        cell.className = "cell";
        const c = over.get(rr * g.cell_cols + cc);
        if (c) {
          const share = c[2] / c[3];
          cell.dataset.over = c[2];
          cell.style.background = `rgba(176,0,0,${0.15 + 0.85 * share})`;
          cell.title = `rows ${rr}, cols ${cc}: ${c[2]} of ${c[3]} over`;
        }
        grid.appendChild(cell);
      }
    }
    where.appendChild(grid);
    sec.appendChild(where);
    const worst = document.createElement("table");
    worst.className = "worst";
    worst.innerHTML = "<caption>worst elements</caption><tr><th>coordinates</th><th>index</th><th>expected</th>" +
      "<th>actual</th><th>abs error</th><th>over</th></tr>";
    for (const w of s.worst) {
      const tr = document.createElement("tr");
      for (const text of ["[" + w.coordinates.join(", ") + "]", w.index, `${fmt(w.expected)} (${w.expected_bits})`,
                          `${fmt(w.actual)} (${w.actual_bits})`, fmt(w.abs_error), w.over ? "yes" : "no"]) {
        const td = document.createElement("td");
        td.textContent = text;
        tr.appendChild(td);
      }
      worst.appendChild(tr);
    }
    sec.appendChild(worst);
  }
  failures.appendChild(sec);
});
</script></body></html>
)HTML";

}  // namespace

std::string JudgementDetails(const Verdict& verdict) {
  if (verdict.judgement == nullptr) return "";
  const Judgement& j = *verdict.judgement;
  std::string text = "method " + j.method + " (" + j.tool + ", " + j.source + "): " + j.verdict +
                     (j.reason.empty() ? "" : ": " + j.reason);
  for (const auto* list : {&j.thresholds, &j.measured}) {
    for (const auto& t : *list) {
      char value[32];
      std::snprintf(value, sizeof value, "%.9g", t.second);
      text += "\n  " + t.first + (list == &j.thresholds ? " (limit) = " : " = ") + value;
    }
  }
  text += "\n" + StatsLine(j, verdict.expected_dtype, verdict.actual_dtype, verdict.shape);
  for (const WorstElement& w : j.stats.worst) {
    text += "\n  at " + Coordinates(verdict.shape, w.index) + " (index " + std::to_string(w.index) + "): expected " +
            ValueText(verdict.expected_dtype, w.expected_bits) + ", actual " +
            ValueText(verdict.actual_dtype, w.actual_bits) + (w.bad ? ", over" : "");
  }
  return text;
}

std::string ReportJson(const ReportHeader& header, const std::vector<RunRecord>& runs) {
  std::string out = "{\"header\":{\"tool\":\"aclnn_case_runner\",\"seed\":" + std::to_string(header.seed) +
                    ",\"soc\":" + Quoted(header.soc) + ",\"mode\":" + Quoted(header.mode) +
                    ",\"method\":" + Quoted(header.method) + ",\"shard\":" + Quoted(header.shard) +
                    ",\"passed\":" + std::to_string(header.passed) + ",\"failed\":" + std::to_string(header.failed) +
                    ",\"skipped\":" + std::to_string(header.skipped) + ",\"warned\":" + std::to_string(header.warned) +
                    ",\"errors\":" + std::to_string(header.errors) + ",\"not_run\":" + std::to_string(header.not_run) +
                    ",\"seconds\":" + Number(header.seconds) + "},\n\"runs\":[";
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunRecord& r = runs[i];
    out += std::string(i ? ",\n" : "\n") + "{\"name\":" + Quoted(r.name) + ",\"file\":" + Quoted(r.file) +
           ",\"op\":" + Quoted(r.op) + ",\"outcome\":" + Quoted(OutcomeName(r.verdict.outcome)) +
           ",\"line\":" + Quoted(r.verdict.line) + ",\"seconds\":" + Number(r.verdict.seconds);
    if (r.verdict.judgement != nullptr) out += ",\"judgement\":" + JudgementJson(r.verdict);
    out += "}";
  }
  return out + "]}\n";
}

std::string ReportHtml(const ReportHeader& header, const std::vector<RunRecord>& runs) {
  // Quoted writes no '<': the report cannot end or open an element inside the page's <script>.
  return kPageHead + ReportJson(header, runs) + kPageTail;
}

bool WriteTextFile(const std::string& path, const std::string& text, std::string* error) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) {
    *error = path + ": cannot write: " + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace case_runner
