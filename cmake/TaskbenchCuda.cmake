# The CUDA component (-DTASKBENCH_WITH_CUDA=AUTO|ON|OFF): the core's GPU kernels (core/gpu) and
# the GPU systems (systems/cuda, systems/cuda_graph, systems/mpi_cuda). On wherever nvcc and the
# CUDA runtime are found: CMAKE_CUDA_COMPILER, nvcc on PATH, /usr/local/cuda, or the NVIDIA
# wheels in this project's .venv (pyproject group `cuda`: nvcc, nvvm, crt and the runtime of
# CUDA 13.0), which is how CI compiles and links every CUDA source on a machine with no GPU.
# A GPU is needed only to run: the systems then say so in one line (exit 4).
#
# Architectures: TASKBENCH_CUDA_ARCHITECTURES, default the GPU of this machine when nvidia-smi
# sees one, else 90 (the H100 of the GPU machine).

function(_taskbench_find_nvcc out_nvcc out_reason)
  if(CMAKE_CUDA_COMPILER)
    set(${out_nvcc} "${CMAKE_CUDA_COMPILER}" PARENT_SCOPE)
    return()
  endif()
  set(hints /usr/local/cuda/bin)
  file(GLOB wheel_bins "${CMAKE_SOURCE_DIR}/.venv/lib/python3*/site-packages/nvidia/cu*/bin")
  find_program(TASKBENCH_NVCC nvcc HINTS ${hints} ${wheel_bins})
  if(TASKBENCH_NVCC)
    set(${out_nvcc} "${TASKBENCH_NVCC}" PARENT_SCOPE)
  else()
    set(${out_reason} "nvcc not found (install the CUDA toolkit, or `scripts/install-deps.sh`, which puts CUDA 13.0's nvcc in .venv)" PARENT_SCOPE)
  endif()
endfunction()

set(TASKBENCH_CUDA_FOUND FALSE)
set(TASKBENCH_CUDA_REASON "")
if(TASKBENCH_SANITIZE)
  set(TASKBENCH_CUDA_REASON "sanitizer builds leave CUDA out (nvcc takes no -fsanitize)")
elseif(NOT TASKBENCH_WITH_CUDA STREQUAL "OFF")
  _taskbench_find_nvcc(nvcc TASKBENCH_CUDA_REASON)
  if(nvcc)
    set(CMAKE_CUDA_COMPILER "${nvcc}")
    # NVIDIA's wheels put the libraries in lib/, where their nvcc.profile says lib64/.
    get_filename_component(cuda_top "${nvcc}/../.." ABSOLUTE)
    if(NOT EXISTS "${cuda_top}/lib64" AND EXISTS "${cuda_top}/lib/libcudart_static.a")
      set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -L${cuda_top}/lib")
    endif()
    if(NOT DEFINED TASKBENCH_CUDA_ARCHITECTURES)
      execute_process(COMMAND nvidia-smi --query-gpu=compute_cap --format=csv,noheader
        OUTPUT_VARIABLE caps RESULT_VARIABLE smi ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(smi EQUAL 0 AND caps MATCHES "^([0-9]+)\\.([0-9]+)")
        set(arch "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
      else()
        set(arch 90)
      endif()
      set(TASKBENCH_CUDA_ARCHITECTURES ${arch} CACHE STRING "CUDA architectures of the GPU kernels")
    endif()
    set(CMAKE_CUDA_ARCHITECTURES ${TASKBENCH_CUDA_ARCHITECTURES})
    # nvcc's host compiler: the project's C++ compiler, so host code sees the same headers.
    set(CMAKE_CUDA_HOST_COMPILER "${CMAKE_CXX_COMPILER}")
    include(CheckLanguage)
    check_language(CUDA)
    if(CMAKE_CUDA_COMPILER)
      enable_language(CUDA)
      # The static runtime beside nvcc (not FindCUDAToolkit, which wants libcudart.so, absent
      # from the wheels): the binaries then need only the driver, libcuda.so.1, at run time.
      get_filename_component(cuda_top "${CMAKE_CUDA_COMPILER}/../.." ABSOLUTE)
      find_library(TASKBENCH_CUDART_STATIC libcudart_static.a HINTS "${cuda_top}/lib64" "${cuda_top}/lib"
        NO_DEFAULT_PATH)
      if(TASKBENCH_CUDART_STATIC)
        find_package(Threads REQUIRED)
        set(TASKBENCH_CUDA_FOUND TRUE)
        add_library(taskbench_cudart INTERFACE IMPORTED GLOBAL)
        target_include_directories(taskbench_cudart INTERFACE ${CMAKE_CUDA_TOOLKIT_INCLUDE_DIRECTORIES})
        target_link_libraries(taskbench_cudart INTERFACE "${TASKBENCH_CUDART_STATIC}" Threads::Threads
          ${CMAKE_DL_LIBS} rt)
      else()
        set(TASKBENCH_CUDA_REASON "the CUDA runtime (libcudart_static.a) was not found beside ${CMAKE_CUDA_COMPILER}")
      endif()
    else()
      set(TASKBENCH_CUDA_REASON "${nvcc} cannot compile a CUDA program (see CMakeFiles/CMakeError.log)")
    endif()
  endif()
endif()
taskbench_optional(CUDA ${TASKBENCH_CUDA_FOUND} "${TASKBENCH_CUDA_REASON}")
if(TASKBENCH_ENABLE_CUDA)
  taskbench_component_note(CUDA "nvcc ${CMAKE_CUDA_COMPILER_VERSION}, sm_${TASKBENCH_CUDA_ARCHITECTURES}")
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
endif()
