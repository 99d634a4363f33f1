// The bench's outputs: the table on stdout, the CSV, and the plot drawn by python3's matplotlib.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "host/cli/bench.hpp"

namespace zwang::cli {
namespace {

bool has(double x) {
  return !std::isnan(x);
}

// a CSV field, quoted where it holds a comma, a quote or a line break
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// the matplotlib script: rows as JSON on stdin, the PNG file as its argument; exit status 3
// when matplotlib cannot be imported, 4 with the reason on stderr when the file cannot be
// written
constexpr const char* kPlotScript = R"py(
import json, sys
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit(3)
rows, peers = json.load(sys.stdin)
panels = []
for r in rows:
    key = (r["model"], r["mode"], r["threads"])
    if key not in panels:
        panels.append(key)
fig, axes = plt.subplots(len(panels), 1, figsize=(10, 4.5 * len(panels)), squeeze=False)
styles = {}
for ax, (model, mode, threads) in zip(axes[:, 0], panels):
    lines = {}
    for r in rows:
        if (r["model"], r["mode"], r["threads"]) != (model, mode, threads):
            continue
        spc = r["steps_per_call"]
        engines = [("zwang " + r["backend"] + " " + r["precision"], r["zwang"])]
        engines += [(label, r[name]) for name, label in peers if r.get(name) is not None]
        for engine, rate in engines:
            lines.setdefault((engine, spc), {})[r["instances"]] = rate
    for (engine, spc), points in lines.items():
        color = styles.setdefault(engine, "C%d" % (len(styles) % 10))
        dash = ["-", "--", ":", "-."][sorted({s for _, s in lines}).index(spc) % 4]
        xs = sorted(points)
        what = "forward" if mode == "forward" else "steps"
        ax.plot(xs, [points[x] for x in xs], color=color, linestyle=dash, marker="o",
                markersize=3, label="%s, %d %s/call" % (engine, spc, what))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("instances")
    ax.set_ylabel("instance-steps/s" if mode == "step" else "forward dynamics/s")
    ax.set_title("%s: %s, %d thread(s)" % (model, mode, threads))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
fig.tight_layout()
try:
    fig.savefig(sys.argv[1], dpi=100)
except (OSError, ValueError) as e:
    sys.stderr.write("%s\n" % e)
    sys.exit(4)
)py";

}  // namespace

std::string bench_table(const std::vector<BenchRow>& rows) {
  // the peers with at least one figure get two columns each: rate and zwang ÷ rate
  std::vector<std::size_t> shown;
  for (std::size_t p = 0; p < kPeers.size(); ++p) {
    if (std::any_of(rows.begin(), rows.end(), [&](const BenchRow& r) { return has(r.peer[p]); }))
      shown.push_back(p);
  }
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> head{"model",      "mode",    "instances", "threads",
                                "steps/call", "backend", "precision", "zwang"};
  for (const std::size_t p : shown) {
    head.push_back(kPeers[p].label);
    head.push_back(fmt::format("zw/{}", kPeers[p].name));
  }
  cells.push_back(head);
  for (const BenchRow& r : rows) {
    std::vector<std::string> c{r.model,
                               r.mode,
                               std::to_string(r.instances),
                               std::to_string(r.threads),
                               std::to_string(r.steps_per_call),
                               r.backend,
                               r.precision,
                               fmt::format("{:.3g}", r.zwang)};
    for (const std::size_t p : shown) {
      c.push_back(has(r.peer[p]) ? fmt::format("{:.3g}", r.peer[p]) : "-");
      c.push_back(has(r.peer[p]) ? fmt::format("{:.2f}", r.zwang / r.peer[p]) : "-");
    }
    cells.push_back(c);
  }
  std::vector<std::size_t> width(head.size(), 0);
  for (const auto& c : cells) {
    for (std::size_t j = 0; j < c.size(); ++j) width[j] = std::max(width[j], c[j].size());
  }
  std::string out;
  for (const auto& c : cells) {
    std::string line;
    for (std::size_t j = 0; j < c.size(); ++j) {
      // text left, numbers right
      line += j < 2 || j == 5 || j == 6 ? fmt::format("{:<{}}  ", c[j], width[j])
                                        : fmt::format("{:>{}}  ", c[j], width[j]);
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + '\n';
  }
  return out;
}

std::string bench_csv(const std::vector<BenchRow>& rows) {
  std::string out = "model,nv,mode,instances,threads,steps_per_call,backend,precision,zwang";
  for (const PeerInfo& p : kPeers) out += fmt::format(",{}", p.name);
  for (const PeerInfo& p : kPeers) out += fmt::format(",zwang_over_{}", p.name);
  out += '\n';
  for (const BenchRow& r : rows) {
    out += fmt::format("{},{},{},{},{},{},{},{},{}", csv_field(r.model), r.nv, r.mode, r.instances,
                       r.threads, r.steps_per_call, r.backend, r.precision, r.zwang);
    for (const double x : r.peer) out += has(x) ? fmt::format(",{}", x) : ",";
    for (const double x : r.peer) out += has(x) ? fmt::format(",{}", r.zwang / x) : ",";
    out += '\n';
  }
  return out;
}

PlotOutcome bench_plot(const std::vector<BenchRow>& rows, const std::string& file) {
  nlohmann::json data = nlohmann::json::array();
  for (const BenchRow& r : rows) {
    nlohmann::json row{{"model", r.model},
                       {"mode", r.mode},
                       {"instances", r.instances},
                       {"threads", r.threads},
                       {"steps_per_call", r.steps_per_call},
                       {"backend", r.backend},
                       {"precision", r.precision},
                       {"zwang", r.zwang}};
    for (std::size_t p = 0; p < kPeers.size(); ++p) {
      if (has(r.peer[p])) row[kPeers[p].name] = r.peer[p];
    }
    data.push_back(row);
  }
  nlohmann::json peers = nlohmann::json::array();
  for (const PeerInfo& p : kPeers) peers.push_back({p.name, p.label});
  const std::string input = nlohmann::json::array({data, peers}).dump();

  // python3 -c SCRIPT FILE, the rows on its stdin
  int fds[2];
  if (pipe(fds) != 0) return {fmt::format("pipe: {}", std::strerror(errno))};
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return {fmt::format("fork: {}", std::strerror(errno))};
  }
  if (pid == 0) {
    dup2(fds[0], STDIN_FILENO);
    close(fds[0]);
    close(fds[1]);
    execlp("python3", "python3", "-c", kPlotScript, file.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[0]);
  // a plotter that ends before reading everything must not end the bench by SIGPIPE
  struct sigaction ignore {
  }, previous{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &previous);
  for (std::size_t done = 0; done < input.size();) {
    const ssize_t n = write(fds[1], input.data() + done, input.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  close(fds[1]);
  sigaction(SIGPIPE, &previous, nullptr);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
    return {"python3 cannot import matplotlib (pip install matplotlib)", true};
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return {"python3 is not on the PATH", true};
  if (WIFEXITED(status) && WEXITSTATUS(status) == 4) {
    return {fmt::format("cannot write {} (the reason is above)", file)};
  }
  return {fmt::format("python3 failed to draw {} (status {})", file, status)};
}

}  // namespace zwang::cli
