/* A stand-in for the NVIDIA driver's libcuda.so.1, built by cmake/LegionWheel.cmake only where
 * the machine has none: Legion and Realm from legate's PyPI wheel are CUDA builds that name
 * libcuda.so.1 as a needed library. It reports what a machine without a GPU reports
 * (cuInit: CUDA_ERROR_NO_DEVICE), so Realm's CUDA module finds no device and Realm runs on its
 * CPU processors, as it does on any machine without a GPU. Nothing here runs a task. */
#include <stddef.h>
#include <string.h>

typedef int CUresult;
enum { CUDA_SUCCESS = 0, CUDA_ERROR_NO_DEVICE = 100 };

/* Every driver entry that is not defined below: whatever its arguments, there is no device. */
static CUresult no_device(void) { return CUDA_ERROR_NO_DEVICE; }

CUresult cuInit(unsigned int flags) {
  (void)flags;
  return CUDA_ERROR_NO_DEVICE;
}

CUresult cuDriverGetVersion(int* version) {
  if (version == NULL) return 1; /* CUDA_ERROR_INVALID_VALUE */
  *version = 0;
  return CUDA_SUCCESS;
}

/* Realm asserts that it gets these two, and prints them with cuInit's status. */
CUresult cuGetErrorName(CUresult error, const char** name) {
  *name = error == CUDA_ERROR_NO_DEVICE ? "CUDA_ERROR_NO_DEVICE" : "CUDA_ERROR_UNKNOWN";
  return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult error, const char** text) {
  *text = error == CUDA_ERROR_NO_DEVICE ? "no CUDA-capable device is detected (taskbench's driver stand-in)"
                                        : "unknown error (taskbench's driver stand-in)";
  return CUDA_SUCCESS;
}

/* Legion links these directly; with no device nothing was ever allocated. */
CUresult cuMemFreeHost(void* pointer) {
  (void)pointer;
  return CUDA_ERROR_NO_DEVICE;
}

CUresult cuMemFree_v2(unsigned long long pointer) {
  (void)pointer;
  return CUDA_ERROR_NO_DEVICE;
}

CUresult cuGetProcAddress_v2(const char* symbol, void** function, int cuda_version, unsigned long long flags,
                             int* symbol_status);

/* Realm opens the driver itself and fetches every entry through this. */
CUresult cuGetProcAddress(const char* symbol, void** function, int cuda_version, unsigned long long flags) {
  return cuGetProcAddress_v2(symbol, function, cuda_version, flags, NULL);
}

CUresult cuGetProcAddress_v2(const char* symbol, void** function, int cuda_version, unsigned long long flags,
                             int* symbol_status) {
  static const struct {
    const char* name;
    void* entry;
  } own[] = {
      {"cuInit", (void*)cuInit},
      {"cuDriverGetVersion", (void*)cuDriverGetVersion},
      {"cuGetErrorName", (void*)cuGetErrorName},
      {"cuGetErrorString", (void*)cuGetErrorString},
      {"cuMemFreeHost", (void*)cuMemFreeHost},
      {"cuMemFree", (void*)cuMemFree_v2},
      /* The 4-argument form: a caller of either form can call it safely. */
      {"cuGetProcAddress", (void*)cuGetProcAddress},
  };
  (void)cuda_version;
  (void)flags;
  if (symbol_status != NULL) *symbol_status = 0; /* CU_GET_PROC_ADDRESS_SUCCESS */
  if (symbol == NULL || function == NULL) return 1;
  for (size_t k = 0; k < sizeof own / sizeof own[0]; ++k)
    if (strcmp(symbol, own[k].name) == 0) {
      *function = own[k].entry;
      return CUDA_SUCCESS;
    }
  *function = (void*)no_device;
  return CUDA_SUCCESS;
}
