/* A port written against the original Task Bench C API, as the ports in other languages are:
 * it declares that API itself, exactly as the original header has it (types, enums and the
 * prototypes it calls), and includes nothing from this project. Linked with the core, it
 * builds every pattern's graph, walks every task with the original's calls (dependencies and
 * reverse dependencies per dependence set, clipped to the previous row by the client, as the
 * original's ports do), runs each with inputs it gathers itself, and lets the core validate
 * them; then the app's report checks that every task ran once. Exit 0 when all pass. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- The original API (core_c.h), declared here ---- */
typedef enum dependence_type_t {
  TRIVIAL, NO_COMM, STENCIL_1D, STENCIL_1D_PERIODIC, DOM, TREE, FFT, ALL_TO_ALL, NEAREST,
  SPREAD, RANDOM_NEAREST, RANDOM_SPREAD,
} dependence_type_t;

typedef enum kernel_type_t {
  EMPTY, BUSY_WAIT, MEMORY_BOUND, COMPUTE_DGEMM, MEMORY_DAXPY, COMPUTE_BOUND, COMPUTE_BOUND2,
  IO_BOUND, LOAD_IMBALANCE,
} kernel_type_t;

typedef struct kernel_t {
  kernel_type_t type;
  long iterations;
  int samples;
  double imbalance;
} kernel_t;

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
} task_graph_t;

typedef struct interval_t {
  long start;
  long end;
} interval_t;

typedef struct interval_list_t { void *impl; } interval_list_t;
typedef struct task_graph_list_t { void *impl; } task_graph_list_t;
typedef struct app_t { void *impl; } app_t;

void interval_list_destroy(interval_list_t intervals);
long interval_list_num_intervals(interval_list_t intervals);
interval_t interval_list_interval(interval_list_t intervals, long index);

long task_graph_offset_at_timestep(task_graph_t graph, long timestep);
long task_graph_width_at_timestep(task_graph_t graph, long timestep);
long task_graph_max_dependence_sets(task_graph_t graph);
long task_graph_timestep_period(task_graph_t graph);
long task_graph_dependence_set_at_timestep(task_graph_t graph, long timestep);
interval_list_t task_graph_dependencies(task_graph_t graph, long dset, long point);
interval_list_t task_graph_reverse_dependencies(task_graph_t graph, long dset, long point);
void task_graph_execute_point_scratch(task_graph_t graph, long timestep, long point,
                                      char *output_ptr, size_t output_bytes,
                                      const char **input_ptr, const size_t *input_bytes,
                                      size_t n_inputs, char *scratch_ptr, size_t scratch_bytes);
void task_graph_prepare_scratch(char *scratch_ptr, size_t scratch_bytes);

void task_graph_list_destroy(task_graph_list_t graphs);
long task_graph_list_num_task_graphs(task_graph_list_t graphs);
task_graph_t task_graph_list_task_graph(task_graph_list_t graphs, long index);

app_t app_create(int argc, char **argv);
void app_destroy(app_t app);
task_graph_list_t app_task_graphs(app_t app);
bool app_verbose(app_t app);
void app_check(app_t app);
void app_display(app_t app);
void app_report_timing(app_t app, double elapsed_seconds);
/* ---- end of the original API ---- */

/* The original's layout on x86-64 (LP64): the declarations above are the ones a port has. */
#if defined(__x86_64__) && defined(__LP64__)
_Static_assert(sizeof(kernel_t) == 32, "kernel_t");
_Static_assert(offsetof(kernel_t, iterations) == 8 && offsetof(kernel_t, samples) == 16 &&
                   offsetof(kernel_t, imbalance) == 24, "kernel_t");
_Static_assert(sizeof(task_graph_t) == 112, "task_graph_t");
_Static_assert(offsetof(task_graph_t, timesteps) == 8 && offsetof(task_graph_t, max_width) == 16 &&
                   offsetof(task_graph_t, dependence) == 24 && offsetof(task_graph_t, radix) == 32 &&
                   offsetof(task_graph_t, period) == 40 &&
                   offsetof(task_graph_t, fraction_connected) == 48 &&
                   offsetof(task_graph_t, kernel) == 56 &&
                   offsetof(task_graph_t, output_bytes_per_task) == 88 &&
                   offsetof(task_graph_t, scratch_bytes_per_task) == 96 &&
                   offsetof(task_graph_t, nb_fields) == 104, "task_graph_t");
#endif

static const char *kPatterns[] = {"trivial", "no_comm", "stencil_1d", "stencil_1d_periodic",
                                  "dom", "tree", "fft", "all_to_all", "nearest", "spread",
                                  "random_nearest", "random_spread"};
enum { kPatternCount = 12 };

static int failures = 0;
#define CHECK(cond, ...)                        \
  do {                                          \
    if (!(cond)) {                              \
      fprintf(stderr, "original_abi_client: "); \
      fprintf(stderr, __VA_ARGS__);             \
      fprintf(stderr, "\n");                    \
      ++failures;                               \
    }                                           \
  } while (0)

/* Whether `point` is in the interval list. */
static bool list_contains(interval_list_t list, long point) {
  for (long k = 0; k < interval_list_num_intervals(list); ++k) {
    interval_t iv = interval_list_interval(list, k);
    if (iv.start <= point && point <= iv.end) return true;
  }
  return false;
}

/* Runs every task of g in timestep order, as a serial port of the original would. */
static long long run_graph(task_graph_t g) {
  const long w = g.max_width;
  const size_t out_bytes = g.output_bytes_per_task;
  char *rows[2] = {calloc((size_t)w, out_bytes), calloc((size_t)w, out_bytes)};
  const char **inputs = malloc(sizeof(char *) * (size_t)w);
  size_t *input_bytes = malloc(sizeof(size_t) * (size_t)w);
  char *scratch = g.scratch_bytes_per_task ? malloc(g.scratch_bytes_per_task) : NULL;
  if (scratch) task_graph_prepare_scratch(scratch, g.scratch_bytes_per_task);
  long long tasks = 0;
  CHECK(task_graph_max_dependence_sets(g) == task_graph_timestep_period(g), "graph %ld: period",
        g.graph_index);
  for (long t = 0; t < g.timesteps; ++t) {
    const long off = task_graph_offset_at_timestep(g, t), width = task_graph_width_at_timestep(g, t);
    const long prev_off = t > 0 ? task_graph_offset_at_timestep(g, t - 1) : 0;
    const long prev_width = t > 0 ? task_graph_width_at_timestep(g, t - 1) : 0;
    const long dset = task_graph_dependence_set_at_timestep(g, t);
    char *out_row = rows[t % 2], *in_row = rows[(t + 1) % 2];
    for (long p = off; p < off + width; ++p) {
      size_t n = 0;
      if (t > 0) {
        interval_list_t deps = task_graph_dependencies(g, dset, p);
        for (long k = 0; k < interval_list_num_intervals(deps); ++k) {
          interval_t iv = interval_list_interval(deps, k);
          for (long d = iv.start; d <= iv.end; ++d) {
            if (d < prev_off || d >= prev_off + prev_width) continue;
            /* The inverse relation names p among d's consumers. */
            interval_list_t back = task_graph_reverse_dependencies(g, dset, d);
            CHECK(list_contains(back, p), "graph %ld t=%ld: %ld depends on %ld, not its inverse",
                  g.graph_index, t, p, d);
            interval_list_destroy(back);
            inputs[n] = in_row + (size_t)d * out_bytes;
            input_bytes[n] = out_bytes;
            ++n;
          }
        }
        interval_list_destroy(deps);
        /* And every consumer the inverse names depends on its producer. */
        interval_list_t back = task_graph_reverse_dependencies(g, dset, p);
        for (long k = 0; k < interval_list_num_intervals(back); ++k) {
          interval_t iv = interval_list_interval(back, k);
          for (long c = iv.start; c <= iv.end; ++c) {
            interval_list_t deps_c = task_graph_dependencies(g, dset, c);
            CHECK(list_contains(deps_c, p), "graph %ld t=%ld: %ld's consumer %ld does not depend on it",
                  g.graph_index, t, p, c);
            interval_list_destroy(deps_c);
          }
        }
        interval_list_destroy(back);
      }
      /* The core validates the inputs (and exits with status 3 on a mismatch). */
      task_graph_execute_point_scratch(g, t, p, out_row + (size_t)p * out_bytes, out_bytes, inputs,
                                       input_bytes, n, scratch, g.scratch_bytes_per_task);
      ++tasks;
    }
  }
  free(rows[0]);
  free(rows[1]);
  free(inputs);
  free(input_bytes);
  free(scratch);
  return tasks;
}

int main(void) {
  /* Every pattern, one graph each, all in one app (graphs 0..11), with the kernels that use
   * the graph's numbers: load_imbalance (iterations, imbalance) and memory_bound (scratch,
   * samples). */
  char *argv[512];
  int argc = 0;
  argv[argc++] = "original_abi_client";
  char *common[] = {"-steps", "9", "-width", "7", "-radix", "3", "-period", "2", "-fraction",
                    "0.5", "-output", "48"};
  for (int p = 0; p < kPatternCount; ++p) {
    if (p > 0) argv[argc++] = "-and";
    argv[argc++] = "-type";
    argv[argc++] = (char *)kPatterns[p];
    for (size_t k = 0; k < sizeof common / sizeof common[0]; ++k) argv[argc++] = common[k];
    if (p % 2 == 0) {
      char *kernel[] = {"-kernel", "load_imbalance", "-iter", "20", "-imbalance", "1.5"};
      for (size_t k = 0; k < 6; ++k) argv[argc++] = kernel[k];
    } else {
      char *kernel[] = {"-kernel", "memory_bound", "-iter", "2", "-scratch", "256", "-sample", "4"};
      for (size_t k = 0; k < 8; ++k) argv[argc++] = kernel[k];
    }
  }
  argv[argc] = NULL;
  app_t app = app_create(argc, argv);
  app_check(app);
  if (app_verbose(app)) app_display(app);
  task_graph_list_t graphs = app_task_graphs(app);
  CHECK(task_graph_list_num_task_graphs(graphs) == kPatternCount, "%ld graphs",
        task_graph_list_num_task_graphs(graphs));
  for (long k = 0; k < task_graph_list_num_task_graphs(graphs); ++k) {
    task_graph_t g = task_graph_list_task_graph(graphs, k);
    /* The fields arrive where the original's declarations put them. */
    CHECK(g.graph_index == k && g.timesteps == 9 && g.max_width == 7 &&
              g.dependence == (dependence_type_t)k && g.radix == 3 && g.period == 2 &&
              g.fraction_connected == 0.5 && g.output_bytes_per_task == 48 && g.nb_fields == 2,
          "graph %ld: fields out of place", k);
    if (k % 2 == 0)
      CHECK(g.kernel.type == LOAD_IMBALANCE && g.kernel.iterations == 20 && g.kernel.samples == 16 &&
                g.kernel.imbalance == 1.5 && g.scratch_bytes_per_task == 0,
            "graph %ld: kernel fields out of place", k);
    else
      CHECK(g.kernel.type == MEMORY_BOUND && g.kernel.iterations == 2 && g.kernel.samples == 4 &&
                g.scratch_bytes_per_task == 256,
            "graph %ld: kernel fields out of place", k);
    const long long tasks = run_graph(g);
    CHECK(tasks > 0, "graph %ld ran no task", k);
  }
  task_graph_list_destroy(graphs);
  if (failures) return 1;
  /* Checks that every task of every graph ran once (exit 3 if not) and prints the totals. */
  app_report_timing(app, 1.0);
  app_destroy(app);
  printf("original_abi_client: %d patterns passed\n", kPatternCount);
  return 0;
}
