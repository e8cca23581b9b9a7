# Installs the build into a fresh prefix, builds tests/install/consumer against it with
# find_package(taskbench), runs it and checks its totals.
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "cmake --install failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK}/build -DCMAKE_PREFIX_PATH=${WORK}/prefix
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "configuring the consumer against the installed package failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the consumer failed")
endif()
execute_process(COMMAND ${WORK}/build/consumer -steps 5 -width 8 -type dom OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(rc OR NOT out MATCHES "Total Tasks 9\nTotal Dependencies 10\n")
  message(FATAL_ERROR "consumer run failed (${rc}):\n${out}")
endif()
if(NOT SHARED)
  return()  # configured with -DTASKBENCH_BUILD_SHARED=OFF
endif()
execute_process(COMMAND ${WORK}/build/consumer_shared -steps 5 -width 8 -type dom OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(rc OR NOT out MATCHES "Total Tasks 9\nTotal Dependencies 10\n")
  message(FATAL_ERROR "consumer linked with taskbench::shared failed (${rc}):\n${out}")
endif()

# The shared library (SONAME libtaskbench.so.<major>) and its pkg-config file, as a port built
# outside CMake uses them: the same consumer, compiled with `pkg-config --cflags --libs`.
file(GLOB shared_libs ${WORK}/prefix/lib*/libtaskbench.so.[0-9])
file(GLOB pc_files ${WORK}/prefix/lib*/pkgconfig/taskbench.pc)
if(NOT shared_libs OR NOT pc_files)
  message(FATAL_ERROR "no libtaskbench.so.<major> or pkgconfig/taskbench.pc in the installed prefix")
endif()
find_program(PKG_CONFIG NAMES pkg-config pkgconf)
find_program(C_COMPILER NAMES cc gcc clang)
if(PKG_CONFIG AND C_COMPILER)
  get_filename_component(pc_dir ${pc_files} DIRECTORY)
  get_filename_component(lib_dir ${shared_libs} DIRECTORY)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir}
                          ${PKG_CONFIG} --cflags --libs taskbench
                  OUTPUT_VARIABLE pc_flags OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "pkg-config --cflags --libs taskbench failed")
  endif()
  separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
  execute_process(COMMAND ${C_COMPILER} ${SOURCE}/main.c ${pc_flags} -Wl,-rpath,${lib_dir}
                          -o ${WORK}/consumer_shared RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "building the consumer with pkg-config's flags failed")
  endif()
  execute_process(COMMAND ${WORK}/consumer_shared -steps 5 -width 8 -type dom
                  OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(rc OR NOT out MATCHES "Total Tasks 9\nTotal Dependencies 10\n")
    message(FATAL_ERROR "consumer linked with libtaskbench.so failed (${rc}):\n${out}")
  endif()
  # A port as the original's clients are: its own declarations of the original API (no project
  # header), linked with the installed libtaskbench.so, every pattern validated.
  get_filename_component(abi_client ${SOURCE}/../../../core/tests/original_abi_client.c ABSOLUTE)
  execute_process(COMMAND ${C_COMPILER} -std=c11 ${abi_client} ${pc_flags} -Wl,-rpath,${lib_dir}
                          -o ${WORK}/original_abi_client RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "building the original-API client against the installed libtaskbench.so failed")
  endif()
  execute_process(COMMAND ${WORK}/original_abi_client OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(rc OR NOT out MATCHES "12 patterns passed")
    message(FATAL_ERROR "the original-API client failed on the installed libtaskbench.so (${rc}):\n${out}")
  endif()
else()
  message(STATUS "pkg-config or a C compiler not found: the shared consumer is not built")
endif()
