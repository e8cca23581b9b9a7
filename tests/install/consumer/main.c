/* A system written against the original Task Bench C API (interval lists, clipping done by
 * the system), built as C from an installed taskbench: proves the header is C and that
 * find_package(taskbench) works. */
#include <taskbench/taskbench.h>
int main(int argc, char** argv) {
  app_t app = app_create(argc, argv);
  task_graph_list_t graphs = app_task_graphs(app);
  double start = taskbench_wall_time();
  for (long k = 0; k < task_graph_list_num_task_graphs(graphs); ++k) {
    task_graph_t g = task_graph_list_task_graph(graphs, k);
    char out[2][64][16];
    for (long t = 0; t < g.timesteps; ++t)
      for (long i = task_graph_offset_at_timestep(g, t); i < task_graph_offset_at_timestep(g, t) + task_graph_width_at_timestep(g, t); ++i) {
        interval_list_t deps = task_graph_dependencies(g, task_graph_dependence_set_at_timestep(g, t), i);
        const char* in[64]; size_t sz[64]; size_t n = 0;
        long lo = t > 0 ? task_graph_offset_at_timestep(g, t - 1) : 0, hi = t > 0 ? lo + task_graph_width_at_timestep(g, t - 1) - 1 : -1;
        for (long d = 0; d < interval_list_num_intervals(deps); ++d) {
          interval_t iv = interval_list_interval(deps, d);
          for (long j = iv.start; j <= iv.end; ++j) if (j >= lo && j <= hi) { in[n] = out[(t - 1) % 2][j]; sz[n++] = 16; }
        }
        interval_list_destroy(deps);
        task_graph_execute_point_scratch(g, t, i, out[t % 2][i], 16, in, sz, n, NULL, 0);
      }
  }
  app_report_timing(app, taskbench_wall_time() - start);
  task_graph_list_destroy(graphs);
  app_destroy(app);
}
