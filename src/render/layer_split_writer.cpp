#include "render/layer_split_writer.hpp"

#include <fmt/format.h>

#include <optional>
#include <vector>

#include "render/aligned_columns.hpp"
#include "render/value_format.hpp"

namespace rooflinectl {
namespace {

const char* length_name(const LayerTimeSplit& s) { return s.decode ? "context" : "L"; }

std::string header(const LayerTimeSplit& s) {
  return fmt::format(
      "layer report: {}, {}, {} layers; {} on {}; {} = {} x layer time{}", s.model_name,
      s.decode ? "decode" : "prefill", s.layers, s.basis, s.device,
      s.decode ? "tokens/s = B / model time, model time" : "TTFT = model time", s.layers,
      s.basis == "measured median times" ? ""
      : s.decode ? " (lower bounds on the datasheet roofs: tokens/s is an upper bound)"
                 : " (lower bounds on the datasheet roofs: TTFT is a lower bound)");
}

// The fits cell: "yes", or "no" with how far the model's peak memory is over the GPU's (as
// `layer` prints it): a time measured for one layer at a point the whole model cannot hold.
std::string fits_cell(const LayerTimeSplit& s, const LayerSplitBar& bar) {
  if (bar.fits) return "yes";
  return fmt::format("no (+{})", format_si(bar.peak_memory_bytes - s.gpu_memory_bytes, "B"));
}

// The header row and one row per bar: B, length, layer, model, TTFT or tokens/s, fits, then per
// operator "time (share)".
std::vector<std::vector<std::string>> rows(const LayerTimeSplit& s) {
  std::vector<std::vector<std::string>> out;
  // Prefill's TTFT is the model time itself; decode shows the step's model time and tokens/s.
  std::vector<std::string> head = {"B", length_name(s), "layer"};
  if (s.decode) head.push_back("model");
  head.push_back(s.decode ? "tokens/s" : "TTFT");
  head.push_back("fits");
  for (const std::string& role : s.roles) head.push_back(role);
  out.push_back(head);
  for (const LayerSplitBar& bar : s.bars) {
    std::vector<std::string> row = {std::to_string(bar.batch), std::to_string(bar.length)};
    if (bar.layer_s) {
      const double model_s = s.layers * *bar.layer_s;
      row.push_back(format_time_s(*bar.layer_s));
      row.push_back(format_time_s(model_s));
      if (s.decode) {
        row.push_back(format_si(static_cast<double>(bar.batch) / model_s, "tokens/s"));
      }
    } else {
      row.insert(row.end(), s.decode ? 3 : 2, kNoValue);
    }
    row.push_back(fits_cell(s, bar));
    for (size_t i = 0; i < s.roles.size(); ++i) {
      const std::optional<double> t = i < bar.op_s.size() ? bar.op_s[i] : std::nullopt;
      if (!t) {
        row.push_back(kNoValue);
      } else if (bar.layer_s) {
        row.push_back(fmt::format("{} ({})", format_time_s(*t), format_percent(*t / *bar.layer_s)));
      } else {
        row.push_back(format_time_s(*t));
      }
    }
    out.push_back(row);
  }
  return out;
}

bool any_not_fitting(const LayerTimeSplit& s) {
  for (const LayerSplitBar& bar : s.bars) {
    if (!bar.fits) return true;
  }
  return false;
}

bool any_unmeasured(const LayerTimeSplit& s) {
  for (const LayerSplitBar& bar : s.bars) {
    if (!bar.layer_s) return true;
  }
  return false;
}

// The notes under the table: how to read it, "-", and what the estimates leave out; `bullet`
// starts each line ("" for the console, "- " for Markdown).
std::string footer(const LayerTimeSplit& s, const std::string& bullet) {
  std::string out = bullet +
                    "each operator: its time (share of the layer); the layer time is the sum of "
                    "its operators'\n";
  if (any_unmeasured(s)) {
    out += fmt::format(
        "{}{}: not measured (the JSON's time_null_reason says why), and no layer estimate for "
        "that row\n",
        bullet, kNoValue);
  }
  if (any_not_fitting(s)) {
    out += fmt::format(
        "{}fits no: the whole model's peak memory (weights and KV cache of all {} layers, the "
        "largest activation) exceeds the {}'s {} by the amount shown; the layer was timed alone, "
        "so its model time and {} are for a GPU that could hold it\n",
        bullet, s.layers, s.device, format_si(s.gpu_memory_bytes, "B"),
        s.decode ? "tokens/s" : "TTFT");
  }
  if (!s.omissions.empty()) {
    out += bullet + "the estimates leave out:\n";
    for (const std::string& line : s.omissions) out += "  " + bullet + line + "\n";
  }
  return out;
}

std::string csv_number(const std::optional<double>& v) {
  return v ? fmt::format("{:.9g}", *v) : std::string();
}

}  // namespace

std::string format_layer_split_table(const LayerTimeSplit& s) {
  const std::vector<std::vector<std::string>> table = rows(s);
  std::vector<bool> right(table.front().size(), true);
  return header(s) + "\n" + format_aligned_rows(table, right) + footer(s, "");
}

std::string format_layer_split_markdown(const LayerTimeSplit& s) {
  const std::vector<std::vector<std::string>> table = rows(s);
  std::string out = "**" + header(s) + ".**\n\n";
  for (size_t r = 0; r < table.size(); ++r) {
    out += "|";
    for (const std::string& cell : table[r]) out += " " + cell + " |";
    out += "\n";
    if (r == 0) {
      out += "|";
      for (size_t c = 0; c < table[r].size(); ++c) out += "--:|";
      out += "\n";
    }
  }
  return out + "\n" + footer(s, "- ");
}

std::string format_layer_split_csv(const LayerTimeSplit& s) {
  const char* rate = s.decode ? "decode_tokens_per_s" : "ttft_s";
  std::string out = fmt::format(
      "batch,{},operator,time_s,share_of_layer,model_time_s,{},peak_memory_bytes,fits,basis\n",
      s.decode ? "context" : "seq_len", rate);
  const std::string basis = s.basis == "measured median times" ? "measured" : "analytic";
  for (const LayerSplitBar& bar : s.bars) {
    std::optional<double> model_s;
    std::optional<double> rate_value;
    if (bar.layer_s) {
      model_s = s.layers * *bar.layer_s;
      rate_value = s.decode ? static_cast<double>(bar.batch) / *model_s : *model_s;
    }
    out += fmt::format("{},{},layer,{},{},{},{},{:.9g},{},{}\n", bar.batch, bar.length,
                       csv_number(bar.layer_s), bar.layer_s ? "1" : "", csv_number(model_s),
                       csv_number(rate_value), bar.peak_memory_bytes, bar.fits ? "true" : "false",
                       basis);
    for (size_t i = 0; i < s.roles.size() && i < bar.op_s.size(); ++i) {
      std::optional<double> share;
      if (bar.op_s[i] && bar.layer_s) share = *bar.op_s[i] / *bar.layer_s;
      out += fmt::format("{},{},{},{},{},,,,,{}\n", bar.batch, bar.length, s.roles[i],
                         csv_number(bar.op_s[i]), csv_number(share), basis);
    }
  }
  return out;
}

}  // namespace rooflinectl
