# Legion and Realm as legate's PyPI wheel ships them (legate==26.6.1, installed into the project's
# venv by scripts/install-large-engines.sh), and the NVIDIA driver they need.
#
# Usage, in a system folder's CMakeLists.txt (any number of folders may include it; the targets
# are defined once):
#   include(LegionWheel)
#   taskbench_optional(MY_LEGION "${TASKBENCH_LEGION_WHEEL_FOUND}" "${TASKBENCH_LEGION_WHEEL_REASON}")
#   if(TASKBENCH_ENABLE_MY_LEGION)
#     taskbench_add_system(my_legion SOURCES main.cc LIBRARIES taskbench::legion_wheel)  # or taskbench::realm_wheel
#     taskbench_component_note(MY_LEGION "${TASKBENCH_LEGION_DRIVER_NOTE}")  # which driver, in the
#   endif()                                     # configure summary and `taskbench systems`
# or, the same first two steps in one:
#   taskbench_legion_optional(MY_LEGION "Legion ${TASKBENCH_LEGION_WHEEL_VERSION}")  # note: "WHAT, driver"
#
# Sets, in the including scope:
#   TASKBENCH_LEGION_WHEEL_FOUND   TRUE when the wheel's headers and libraries are there
#   TASKBENCH_LEGION_WHEEL_REASON  why not, otherwise
#   TASKBENCH_LEGION_WHEEL_DIR     the legate package folder (include/legate/deps, lib64)
#   TASKBENCH_LEGION_WHEEL_VERSION legate's version, e.g. 26.6.1
#   TASKBENCH_CUDA_RUNTIME_DIR     the folder with libcudart.so.13 (nvidia-cuda-runtime), or empty
#   TASKBENCH_CUDA_DRIVER          the machine's libcuda.so.1, or "" where the stand-in is used
#   TASKBENCH_LEGION_DRIVER_NOTE   one line naming the driver, for taskbench_component_note
# Targets: taskbench::realm_wheel (realm.h, librealm-legate, the driver), taskbench::legion_wheel
# (the same and legion.h, liblegion-legate). Executables find the libraries by their RPATH: the
# wheel's lib64 and, on a machine without the driver, <bin>/../cuda-standin (build/cuda-standin
# in the build tree, <prefix>/cuda-standin installed), where the stand-in libcuda.so.1
# (cmake/cuda_driver_standin.c: cuInit says there is no device) is built. The driver is chosen
# here, at configure time: the machine's libcuda.so.1 wherever one is found, else the stand-in.
# Python users (systems/legate) load <bin>/../cuda-standin/libcuda.so.1 when it exists.
# Limits measured with this wheel: Legion holds at most LEGION_MAX_NUM_PROCS (64, in
# legion_defines.h) processors per process, the utility processor included, and aborts as it
# starts beyond; Realm alone holds 4096. A -worker flag should stop short of them.

# Detection in a function: its variables stay out of the including folder's scope.
function(_taskbench_detect_legion_wheel)
  set(found FALSE)
  set(reason "")
  set(wheel "")
  set(version "")
  set(cudart "")
  set(driver "")
  # The venv's interpreter (the one the harness runs, where the large-engines step installs
  # the wheel) even in builds without the Python binding.
  set(python ${TASKBENCH_PYTHON_EXECUTABLE})
  if(NOT python AND EXISTS ${PROJECT_SOURCE_DIR}/.venv/bin/python)
    set(python ${PROJECT_SOURCE_DIR}/.venv/bin/python)
  endif()
  if(TASKBENCH_SANITIZE)
    # Realm's threads and allocators in the wheel are not instrumented.
    set(reason "sanitizer builds leave out the Legion wheel (its uninstrumented Realm runtime)")
  elseif(NOT python)
    set(reason "no Python interpreter to find legate's wheel in (scripts/install-large-engines.sh)")
  else()
    # find_spec, not import: importing legate.core needs the driver this module may stand in for.
    execute_process(COMMAND ${python} -c [=[
import importlib.metadata, importlib.util, os
spec = importlib.util.find_spec("legate")
print(os.path.dirname(spec.origin) if spec else "")
print(importlib.metadata.version("legate") if spec else "")
nvidia = importlib.util.find_spec("nvidia")
dirs = [os.path.join(d, "cu13", "lib") for d in (nvidia.submodule_search_locations if nvidia else [])]
print(next((d for d in dirs if os.path.exists(os.path.join(d, "libcudart.so.13"))), ""))
]=]
      OUTPUT_VARIABLE probe RESULT_VARIABLE probe_status ERROR_QUIET TIMEOUT 60)
    string(REPLACE "\n" ";" probe "${probe}")
    list(LENGTH probe n)
    if(NOT probe_status EQUAL 0 OR n LESS 3)
      set(reason "${python} could not be asked where legate is")
    else()
      list(GET probe 0 wheel)
      list(GET probe 1 version)
      list(GET probe 2 cudart)
      if(wheel STREQUAL "")
        set(reason "legate (Legion and Realm) is not installed for ${python} (scripts/install-large-engines.sh)")
      else()
        foreach(file include/legate/deps/realm.h include/legate/deps/legion.h lib64/librealm-legate.so.25
                     lib64/liblegion-legate.so.1)
          if(NOT EXISTS ${wheel}/${file} AND reason STREQUAL "")
            set(reason "legate ${version} at ${wheel} has no ${file} (the pinned wheel is legate==26.6.1)")
          endif()
        endforeach()
        if(reason STREQUAL "")
          set(found TRUE)
        endif()
      endif()
    endif()
  endif()

  set(note "")
  if(found)
    # The machine's driver, looked up afresh on every configure (never from the cache): where
    # one is found, that one; else the stand-in.
    unset(TASKBENCH_CUDA_DRIVER_LOOKUP CACHE)
    string(REPLACE ":" ";" ld_path "$ENV{LD_LIBRARY_PATH}")
    find_library(TASKBENCH_CUDA_DRIVER_LOOKUP NAMES libcuda.so.1 HINTS ${ld_path} /usr/lib/wsl/lib)
    if(TASKBENCH_CUDA_DRIVER_LOOKUP)
      set(driver ${TASKBENCH_CUDA_DRIVER_LOOKUP})
    endif()
    unset(TASKBENCH_CUDA_DRIVER_LOOKUP CACHE)

    set(standin_dir ${CMAKE_BINARY_DIR}/cuda-standin)
    add_library(taskbench_realm_wheel INTERFACE)
    add_library(taskbench::realm_wheel ALIAS taskbench_realm_wheel)
    target_include_directories(taskbench_realm_wheel SYSTEM INTERFACE ${wheel}/include/legate/deps ${wheel}/include)
    target_link_libraries(taskbench_realm_wheel INTERFACE ${wheel}/lib64/librealm-legate.so.25)
    if(driver)
      # A stand-in left by an earlier configure must never shadow the real driver.
      file(REMOVE_RECURSE ${standin_dir})
      set(note "NVIDIA driver: this machine's ${driver}")
    else()
      add_library(taskbench_cuda_standin SHARED ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/cuda_driver_standin.c)
      # Alone in its folder, so that the RPATH to it exposes nothing else.
      set_target_properties(taskbench_cuda_standin PROPERTIES OUTPUT_NAME cuda SOVERSION 1
                            LIBRARY_OUTPUT_DIRECTORY ${standin_dir})
      install(FILES ${standin_dir}/libcuda.so.1 DESTINATION cuda-standin)
      # A NEEDED entry of the executable itself: loaded first, it is the libcuda.so.1 that the
      # wheel's libraries (whose own RUNPATH is $ORIGIN) then find by its soname.
      target_link_libraries(taskbench_realm_wheel INTERFACE "-Wl,--push-state,--no-as-needed"
                            taskbench_cuda_standin "-Wl,--pop-state")
      set(note "NVIDIA driver: taskbench's stand-in, cuda-standin/libcuda.so.1 beside bin/ (this machine has no libcuda.so.1: the stand-in's cuInit reports no device, so Realm runs on its CPU processors)")
    endif()
    add_library(taskbench_legion_wheel INTERFACE)
    add_library(taskbench::legion_wheel ALIAS taskbench_legion_wheel)
    target_link_libraries(taskbench_legion_wheel INTERFACE taskbench_realm_wheel ${wheel}/lib64/liblegion-legate.so.1 atomic)
    # As Legion's exported config does (share/Legion/cmake/LegionTargets.cmake).
    target_compile_definitions(taskbench_legion_wheel INTERFACE LIBCUDACXX_ENABLE_HOST_NVFP16=1)
  endif()
  foreach(key found reason wheel version cudart driver note)
    set_property(GLOBAL PROPERTY TASKBENCH_LEGION_WHEEL_${key} "${${key}}")
  endforeach()
endfunction()

if(NOT TARGET taskbench_legion_wheel_detected)
  add_library(taskbench_legion_wheel_detected INTERFACE)  # the guard: detection runs once
  _taskbench_detect_legion_wheel()
endif()
get_property(TASKBENCH_LEGION_WHEEL_FOUND GLOBAL PROPERTY TASKBENCH_LEGION_WHEEL_found)
get_property(TASKBENCH_LEGION_WHEEL_REASON GLOBAL PROPERTY TASKBENCH_LEGION_WHEEL_reason)
get_property(TASKBENCH_LEGION_WHEEL_DIR GLOBAL PROPERTY TASKBENCH_LEGION_WHEEL_wheel)
get_property(TASKBENCH_LEGION_WHEEL_VERSION GLOBAL PROPERTY TASKBENCH_LEGION_WHEEL_version)
get_property(TASKBENCH_CUDA_RUNTIME_DIR GLOBAL PROPERTY TASKBENCH_LEGION_WHEEL_cudart)
get_property(TASKBENCH_CUDA_DRIVER GLOBAL PROPERTY TASKBENCH_LEGION_WHEEL_driver)
get_property(TASKBENCH_LEGION_DRIVER_NOTE GLOBAL PROPERTY TASKBENCH_LEGION_WHEEL_note)
# Installed executables (the including folder's, from here on) find the wheel's libraries (not
# added by CMAKE_INSTALL_RPATH_USE_LINK_PATH: their versioned names are linked as files) and the
# installed stand-in.
if(TASKBENCH_LEGION_WHEEL_FOUND)
  list(APPEND CMAKE_INSTALL_RPATH ${TASKBENCH_LEGION_WHEEL_DIR}/lib64)
endif()
if(TASKBENCH_LEGION_WHEEL_FOUND AND NOT TASKBENCH_CUDA_DRIVER)
  list(APPEND CMAKE_INSTALL_RPATH "$ORIGIN/../cuda-standin")
endif()

# taskbench_legion_optional(<NAME> <WHAT>): the component NAME on where the wheel was found, its
# reason where not, and where it is on, the note "WHAT, NVIDIA driver: ..." (see the usage above).
function(taskbench_legion_optional name what)
  taskbench_optional(${name} "${TASKBENCH_LEGION_WHEEL_FOUND}" "${TASKBENCH_LEGION_WHEEL_REASON}")
  if(TASKBENCH_ENABLE_${name})
    taskbench_component_note(${name} "${what}, ${TASKBENCH_LEGION_DRIVER_NOTE}")
  endif()
  set(TASKBENCH_ENABLE_${name} ${TASKBENCH_ENABLE_${name}} PARENT_SCOPE)
endfunction()
