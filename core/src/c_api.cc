// The C API's lists and application handle over the C++ App.
#include <cstring>
#include <vector>

#include "taskbench/app.h"

using namespace taskbench;

namespace {

std::vector<interval_t>* intervals(interval_list_t l) {
  return static_cast<std::vector<interval_t>*>(l.impl);
}
std::vector<task_graph_t>* graph_list(task_graph_list_t l) {
  return static_cast<std::vector<task_graph_t>*>(l.impl);
}
App* app_of(app_t a) { return static_cast<App*>(a.impl); }

interval_list_t make_list(long n, const std::vector<interval_t>& storage) {
  return interval_list_t{new std::vector<interval_t>(storage.begin(), storage.begin() + n)};
}

}  // namespace

extern "C" {

void interval_list_destroy(interval_list_t l) { delete intervals(l); }
long interval_list_num_intervals(interval_list_t l) { return static_cast<long>(intervals(l)->size()); }
interval_t interval_list_interval(interval_list_t l, long index) { return (*intervals(l))[index]; }

interval_list_t task_graph_dependencies(task_graph_t g, long dset, long point) {
  std::vector<interval_t> storage(task_graph_max_intervals(g));
  return make_list(task_graph_dependencies_into(g, dset, point, storage.data()), storage);
}

interval_list_t task_graph_reverse_dependencies(task_graph_t g, long dset, long point) {
  std::vector<interval_t> storage(task_graph_max_intervals(g));
  return make_list(task_graph_reverse_dependencies_into(g, dset, point, storage.data()), storage);
}

void task_graph_list_destroy(task_graph_list_t l) { delete graph_list(l); }
long task_graph_list_num_task_graphs(task_graph_list_t l) { return static_cast<long>(graph_list(l)->size()); }
task_graph_t task_graph_list_task_graph(task_graph_list_t l, long index) { return (*graph_list(l))[index]; }

app_t app_create(int argc, char** argv) {
  AppOptions options;
  options.checks_last_row = false;  // the original API has no call to hand them over
  if (argc > 0) {
    const char* slash = std::strrchr(argv[0], '/');
    options.system = slash ? slash + 1 : argv[0];
  }
  return app_t{new App(argc, argv, options)};
}

app_t app_create_for_system(int argc, char** argv, const char* system_name,
                            const taskbench_flag_t* flags, int n_flags, bool /*ignored*/) {
  AppOptions options;
  options.system = system_name ? system_name : "unknown";
  for (int k = 0; k < n_flags; ++k)
    options.flags.push_back(SystemFlag{flags[k].name, flags[k].value_name ? flags[k].value_name : "",
                                       flags[k].help ? flags[k].help : "", flags[k].min_value});
  return app_t{new App(argc, argv, options)};
}

void app_destroy(app_t a) { delete app_of(a); }

task_graph_list_t app_task_graphs(app_t a) {
  auto* list = new std::vector<task_graph_t>();
  for (const TaskGraph& g : app_of(a)->graphs()) list->push_back(g.raw());
  return task_graph_list_t{list};
}

bool app_verbose(app_t a) { return app_of(a)->verbosity() > 0; }
void app_check(app_t) {}  // the App checks its graphs when it is created
void app_display(app_t a) { app_of(a)->display(); }
long app_flag_value(app_t a, const char* name, long default_value) {
  return app_of(a)->flag(name, default_value);
}
void app_set_parallelism(app_t a, long ranks, long threads) { app_of(a)->set_parallelism(ranks, threads); }
void app_set_rank(app_t a, int rank) { app_of(a)->set_rank(rank); }
long long app_local_executed_tasks(app_t a, long graph_index) { return app_of(a)->local_executed(graph_index); }
void app_add_report_json(app_t a, const char* key, const char* json_value) {
  app_of(a)->add_report_json(key, json_value);
}
void app_report_timing(app_t a, double elapsed) { app_of(a)->report(elapsed); }
void app_report_timing_with_counts(app_t a, double elapsed, const long long* executed) {
  std::vector<long long> counts(executed, executed + app_of(a)->graphs().size());
  app_of(a)->report(elapsed, counts);
}

}  // extern "C"
