/* A deliberately broken BLAS buffer pool for the test that proves DgemmConcurrency can fail:
 * preloaded, it hands every OpenBLAS caller the same packing buffer with no lock, which is the
 * kind of race the test exists to catch. */
#include <stdlib.h>

static char* shared_buffer;

void* blas_memory_alloc(int position) {
  (void)position;
  if (!shared_buffer) shared_buffer = aligned_alloc(4096, 64u << 20);
  return shared_buffer;
}

void blas_memory_free(void* buffer) { (void)buffer; }
