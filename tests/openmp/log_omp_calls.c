/* What an OpenMP system asks its runtime for, logged from outside: preloaded (LD_PRELOAD), it
 * wraps the entry points that compiled code calls for a task with depend clauses and for a
 * barrier, in GCC's libgomp (GOMP_task, GOMP_barrier) and in LLVM's libomp
 * (__kmpc_omp_task_with_deps, __kmpc_barrier), and appends one line per call to the file
 * $TASKBENCH_OMP_LOG, in the order the calls came:
 *   task TID out ADDR... in ADDR...
 *   barrier TID
 * (out: the out and inout addresses, which both runtimes treat alike; in: the in addresses).
 * tests/e2e/test_openmp_algorithm.py reads it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE* log_file;

static void* next(const char* symbol) {
  void* f = dlsym(RTLD_NEXT, symbol);
  if (f == NULL) {
    fprintf(stderr, "log_omp_calls: no %s after this library\n", symbol);
    abort();
  }
  return f;
}

static void append(const char* line) {
  pthread_mutex_lock(&lock);
  if (log_file == NULL) {
    const char* path = getenv("TASKBENCH_OMP_LOG");
    log_file = fopen(path != NULL ? path : "/dev/null", "w");
    if (log_file == NULL) abort();
  }
  fputs(line, log_file);
  pthread_mutex_unlock(&lock);
}

static long tid(void) { return (long)syscall(SYS_gettid); }

/* One task line; out and in are arrays of n_out and n_in addresses. */
static void log_task(void* const* out, size_t out_stride, long n_out, void* const* in,
                     size_t in_stride, long n_in) {
  char line[8192];
  size_t at = (size_t)snprintf(line, sizeof line, "task %ld out", tid());
  for (long k = 0; k < n_out && at < sizeof line - 32; ++k)
    at += (size_t)snprintf(line + at, sizeof line - at, " %p", *(void* const*)((const char*)out + k * out_stride));
  at += (size_t)snprintf(line + at, sizeof line - at, " in");
  for (long k = 0; k < n_in && at < sizeof line - 32; ++k)
    at += (size_t)snprintf(line + at, sizeof line - at, " %p", *(void* const*)((const char*)in + k * in_stride));
  snprintf(line + at, sizeof line - at, "\n");
  append(line);
}

static void log_barrier(void) {
  char line[64];
  snprintf(line, sizeof line, "barrier %ld\n", tid());
  append(line);
}

/* libgomp (GCC 11 and later). flags bit 3 (GOMP_TASK_FLAG_DEPEND): `depend` holds either
 * {N, n_out, out and inout addresses, in addresses} or, when depend[0] is 0,
 * {0, N, n_out, n_mutexinoutset, n_in, addresses in that order, then depobjs}. */
void GOMP_task(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size,
               long arg_align, bool if_clause, unsigned flags, void** depend, int priority,
               void* detach) {
  typedef void (*task_fn)(void (*)(void*), void*, void (*)(void*, void*), long, long, bool,
                          unsigned, void**, int, void*);
  static task_fn real;
  if (real == NULL) real = (task_fn)next("GOMP_task");
  if ((flags & 8) && depend != NULL) {
    if ((uintptr_t)depend[0] != 0) {
      const long n = (long)(uintptr_t)depend[0], n_out = (long)(uintptr_t)depend[1];
      log_task(depend + 2, sizeof(void*), n_out, depend + 2 + n_out, sizeof(void*), n - n_out);
    } else {
      const long n_out = (long)(uintptr_t)depend[2], n_mutex = (long)(uintptr_t)depend[3];
      const long n_in = (long)(uintptr_t)depend[4];
      log_task(depend + 5, sizeof(void*), n_out, depend + 5 + n_out + n_mutex, sizeof(void*), n_in);
    }
  }
  real(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority, detach);
}

void GOMP_barrier(void) {
  static void (*real)(void);
  if (real == NULL) real = (void (*)(void))next("GOMP_barrier");
  log_barrier();
  real();
}

/* libomp: kmp_depend_info_t is {base address, length, flags}, flags bit 0 in, bit 1 out
 * (clang passes out and inout as in|out). */
typedef struct {
  intptr_t base_addr;
  size_t len;
  uint8_t flags;
} kmp_depend_info;

int32_t __kmpc_omp_task_with_deps(void* loc, int32_t gtid, void* task, int32_t ndeps,
                                  kmp_depend_info* deps, int32_t ndeps_noalias,
                                  kmp_depend_info* noalias) {
  typedef int32_t (*task_fn)(void*, int32_t, void*, int32_t, kmp_depend_info*, int32_t,
                             kmp_depend_info*);
  static task_fn real;
  if (real == NULL) real = (task_fn)next("__kmpc_omp_task_with_deps");
  void* out[256];
  void* in[256];
  long n_out = 0, n_in = 0;
  for (int32_t k = 0; k < ndeps && n_out < 256 && n_in < 256; ++k) {
    if (deps[k].flags & 2)
      out[n_out++] = (void*)deps[k].base_addr;
    else if (deps[k].flags & 1)
      in[n_in++] = (void*)deps[k].base_addr;
  }
  log_task(out, sizeof(void*), n_out, in, sizeof(void*), n_in);
  return real(loc, gtid, task, ndeps, deps, ndeps_noalias, noalias);
}

void __kmpc_barrier(void* loc, int32_t gtid) {
  static void (*real)(void*, int32_t);
  if (real == NULL) real = (void (*)(void*, int32_t))next("__kmpc_barrier");
  log_barrier();
  real(loc, gtid);
}

__attribute__((destructor)) static void close_log(void) {
  pthread_mutex_lock(&lock);
  if (log_file != NULL) fflush(log_file);
  pthread_mutex_unlock(&lock);
}
