/* taskbench C API.
 *
 * Plain-old-data graphs plus functions, so that C, Python, Rust, Go and Java systems can bind
 * to the core. The names and signatures of the original Task Bench C API (task_graph_t,
 * task_graph_dependencies, app_create, app_report_timing, ...) are kept so that existing
 * system implementations compile unchanged; the `_into` functions are the allocation-free
 * versions that new systems should use on hot paths. See docs/spec.md for the semantics. */
#ifndef TASKBENCH_TASKBENCH_H
#define TASKBENCH_TASKBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TASKBENCH_API_VERSION 1

typedef enum dependence_type_t {
  TRIVIAL,
  NO_COMM,
  STENCIL_1D,
  STENCIL_1D_PERIODIC,
  DOM,
  TREE,
  FFT,
  ALL_TO_ALL,
  NEAREST,
  SPREAD,
  RANDOM_NEAREST,
  RANDOM_SPREAD,
} dependence_type_t;

typedef enum kernel_type_t {
  EMPTY,
  BUSY_WAIT,
  MEMORY_BOUND,
  COMPUTE_DGEMM,
  MEMORY_DAXPY,
  COMPUTE_BOUND,
  COMPUTE_BOUND2,
  IO_BOUND,
  LOAD_IMBALANCE,
} kernel_type_t;

typedef struct kernel_t {
  kernel_type_t type;
  long iterations;
  int samples;
  double imbalance; /* load_imbalance: spread of iteration counts, 0..2 */
} kernel_t;

/* An inclusive range of points [start, end]. */
typedef struct interval_t {
  long start;
  long end;
} interval_t;

typedef struct task_graph_t {
  long graph_index;
  long timesteps;
  long max_width;
  dependence_type_t dependence;
  long radix;
  long period;
  double fraction_connected;
  kernel_t kernel;
  size_t output_bytes_per_task;
  size_t scratch_bytes_per_task;
  int nb_fields;
} task_graph_t; /* the original's layout: 112 bytes on x86-64 (checked in graph_seed.cc) */

/* -seed (default 0: the original's random graphs), which the original's task_graph_t has no
 * field for: the core keeps it per graph_index. app_create sets it for the app's graphs; a
 * process that rebuilds graphs received from another (a worker of a distributed system) sets
 * it with taskbench_set_graph_seed before running them. A graph made by hand has 0. */
unsigned long taskbench_graph_seed(long graph_index);
void taskbench_set_graph_seed(long graph_index, unsigned long seed);

/* ---- Graph queries (pure, allocation-free) ---- */
long task_graph_offset_at_timestep(task_graph_t graph, long timestep);
long task_graph_width_at_timestep(task_graph_t graph, long timestep);
long task_graph_max_dependence_sets(task_graph_t graph);
long task_graph_timestep_period(task_graph_t graph);
long task_graph_dependence_set_at_timestep(task_graph_t graph, long timestep);
bool task_graph_contains_point(task_graph_t graph, long timestep, long point);
/* Upper bounds for caller-provided storage. */
long task_graph_max_intervals(task_graph_t graph);
long task_graph_max_dependencies(task_graph_t graph);

/* The pattern's relation for a dependence set, clipped to 0..max_width-1 only; sorted,
 * disjoint intervals written to `out` (capacity task_graph_max_intervals). Returns the count. */
long task_graph_dependencies_into(task_graph_t graph, long dset, long point, interval_t *out);
long task_graph_reverse_dependencies_into(task_graph_t graph, long dset, long point,
                                          interval_t *out);
/* What systems should use: the inputs of task (timestep, point), clipped to row timestep-1,
 * and its consumers, clipped to row timestep+1. Input order for execute_point is the order
 * of points in these intervals (ascending). */
long task_graph_task_dependencies_into(task_graph_t graph, long timestep, long point,
                                       interval_t *out);
long task_graph_task_successors_into(task_graph_t graph, long timestep, long point,
                                     interval_t *out);

/* Original-style interval lists (allocate; kept for source compatibility). */
typedef struct interval_list_t {
  void *impl;
} interval_list_t;
void interval_list_destroy(interval_list_t intervals);
long interval_list_num_intervals(interval_list_t intervals);
interval_t interval_list_interval(interval_list_t intervals, long index);
interval_list_t task_graph_dependencies(task_graph_t graph, long dset, long point);
interval_list_t task_graph_reverse_dependencies(task_graph_t graph, long dset, long point);

/* ---- Running a task ----
 * Validates the inputs (always; a mismatch prints one line and exits with status 3), runs the
 * kernel, writes the task's identity across its output, and counts the task as executed. */
void task_graph_execute_point_scratch(task_graph_t graph, long timestep, long point,
                                      char *output_ptr, size_t output_bytes,
                                      const char **input_ptr, const size_t *input_bytes,
                                      size_t n_inputs, char *scratch_ptr, size_t scratch_bytes);
/* The original API's variants. _scratch_auto: the core provides the scratch buffer, of
 * scratch_bytes (a per-thread buffer, prepared before first use; 0: the graph's
 * scratch_bytes_per_task when its kernel needs one), for ports that cannot allocate one (Spark
 * through the JVM). _nonconst: non-const input pointers, int64_t as in the original (Chapel). */
void task_graph_execute_point_scratch_auto(task_graph_t graph, long timestep, long point,
                                           char *output_ptr, size_t output_bytes,
                                           const char **input_ptr, const size_t *input_bytes,
                                           size_t n_inputs, size_t scratch_bytes);
void task_graph_execute_point_nonconst(task_graph_t graph, long timestep, long point,
                                       int64_t *output_ptr, size_t output_bytes,
                                       int64_t **input_ptr, const size_t *input_bytes,
                                       size_t n_inputs);
void task_graph_execute_point_scratch_nonconst(task_graph_t graph, long timestep, long point,
                                               int64_t *output_ptr, size_t output_bytes,
                                               int64_t **input_ptr, const size_t *input_bytes,
                                               size_t n_inputs, char *scratch_ptr,
                                               size_t scratch_bytes);
/* Same, without a scratch buffer (kernels that need one use a thread-local buffer). */
void task_graph_execute_point(task_graph_t graph, long timestep, long point, char *output_ptr,
                              size_t output_bytes, const char **input_ptr,
                              const size_t *input_bytes, size_t n_inputs);
/* Checks an output that no task read (docs/spec.md §3): every output of a graph's last timestep,
 * and any earlier one that no task of the next row reads, which a system still holds. Called
 * once per such output, after the timed region; a mismatch prints one line and exits with status
 * 3, as a failed input does. The App's report requires every output of each graph's last
 * timestep to have been checked once in the run (not for the original API's app_create). */
void task_graph_check_unread_output(task_graph_t graph, long timestep, long point,
                                    const char *output_ptr, size_t output_bytes);
/* Prepares a scratch buffer before its first use (memory kernels read it). */
void task_graph_prepare_scratch(char *scratch_ptr, size_t scratch_bytes);

/* Per-task counts of the graph's kernel. */
long long task_graph_flops_per_task(task_graph_t graph, long timestep, long point);
long long task_graph_bytes_per_task(task_graph_t graph, long timestep, long point);

/* ---- Lists of graphs ---- */
typedef struct task_graph_list_t {
  void *impl;
} task_graph_list_t;
void task_graph_list_destroy(task_graph_list_t graphs);
long task_graph_list_num_task_graphs(task_graph_list_t graphs);
task_graph_t task_graph_list_task_graph(task_graph_list_t graphs, long index);

/* ---- The application: flags, summary, report ---- */
typedef struct app_t {
  void *impl;
} app_t;

/* A flag a system declares to the parser, e.g. {"-worker", "N", "worker threads", 1}.
 * Integer flags take a value >= min_value; a flag with value_name NULL is a switch. */
typedef struct taskbench_flag_t {
  const char *name;
  const char *value_name;
  const char *help;
  long min_value;
} taskbench_flag_t;

/* Parses argv (exits with status 2 and one line on an invalid flag; prints help and exits 0
 * on -h). */
app_t app_create(int argc, char **argv);
/* The same, for a named system that declares its own flags. -width defaults to 4 on every
 * system; the last argument is ignored (it once made the default the core count) and is kept so
 * that bindings stay binary-compatible. */
app_t app_create_for_system(int argc, char **argv, const char *system_name,
                            const taskbench_flag_t *flags, int n_flags,
                            bool width_defaults_to_cores);
void app_destroy(app_t app);
task_graph_list_t app_task_graphs(app_t app);
bool app_verbose(app_t app);
void app_check(app_t app);
void app_display(app_t app);
/* Value of a system flag: its value, 1 for a given switch, or default_value when absent. */
long app_flag_value(app_t app, const char *name, long default_value);
/* Cores the run uses (ranks x threads per rank), for task granularity in the report. */
void app_set_parallelism(app_t app, long ranks, long threads_per_rank);
/* On rank != 0 nothing is printed or written by the report functions. */
void app_set_rank(app_t app, int rank);
/* Tasks this process executed for a graph (distributed systems sum them across ranks). */
long long app_local_executed_tasks(app_t app, long graph_index);
/* Adds a system-specific member to the JSON report (value must be valid JSON). */
void app_add_report_json(app_t app, const char *key, const char *json_value);
/* Checks that each graph ran every task once, prints the summary, writes -json/-trace. */
void app_report_timing(app_t app, double elapsed_seconds);
/* The same, with per-graph executed-task totals gathered by a distributed system. */
void app_report_timing_with_counts(app_t app, double elapsed_seconds,
                                   const long long *executed_per_graph);

/* Monotonic wall clock in seconds. */
double taskbench_wall_time(void);

#ifdef __cplusplus
}
#endif
#endif
