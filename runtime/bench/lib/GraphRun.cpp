//===- GraphRun.cpp - A replayed step, reported ---------------------------===//

#include "bench/Runner.h"
#include "bench/Stats.h"

#include <nlohmann/json.hpp>

using namespace bench;

std::string bench::graphRunJson(const std::vector<GraphPlan> &plans,
                                const std::vector<GraphRun> &runs,
                                const std::string &device,
                                const std::string &source) {
  nlohmann::ordered_json graphs = nlohmann::ordered_json::array();
  for (size_t g = 0; g < plans.size() && g < runs.size(); ++g) {
    const GraphPlan &plan = plans[g];
    const GraphRun &run = runs[g];
    nlohmann::ordered_json out;
    out["name"] = plan.name;
    out["target"] = plan.target;
    out["predicted_us"] = plan.predictedUs;
    if (!run.ok) {
      out["error_text"] = run.error;
      graphs.push_back(std::move(out));
      continue;
    }
    Summary s = summarize(run.samplesUs);
    out["measured_us"] = s.median;
    // How far the prediction is from the measurement, as the accuracy
    // tables write it (predicted / measured - 1).
    out["error"] = s.median > 0 ? plan.predictedUs / s.median - 1 : 0.0;
    out["samples_us"] = run.samplesUs;
    out["launches"] = plan.launches.size();
    out["kernels_run"] = run.kernelsRun;
    nlohmann::ordered_json notRun = nlohmann::ordered_json::object();
    for (const auto &[why, n] : run.notRun)
      notRun[why] = n;
    out["not_run"] = std::move(notRun);
    nlohmann::ordered_json host;
    host["issue_us"] = summarize(run.issueUs).median;
    nlohmann::ordered_json byKind = nlohmann::ordered_json::object();
    size_t reps = run.samplesUs.size();
    for (const auto &[kind, us] : run.launchHostUs) {
      Summary k = summarize(us);
      byKind[kind] = {{"launches", reps ? us.size() / reps : us.size()},
                      {"median", k.median},
                      {"mean", k.mean},
                      {"p90", k.p90}};
    }
    host["launch_us"] = std::move(byKind);
    out["host"] = std::move(host);
    graphs.push_back(std::move(out));
  }
  nlohmann::ordered_json root;
  root["schema"] = "perf.graph_run/1";
  root["device"] = device;
  root["source"] = source;
  root["graphs"] = std::move(graphs);
  return root.dump(2) + "\n";
}
