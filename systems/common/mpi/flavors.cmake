# Finding each MPI implementation separately. FindMPI finds one implementation (whichever
# `mpicc` the alternatives system points at), but we build against Open MPI and MPICH side by
# side, so each is found through its own compiler wrapper and turned into an imported target.

# taskbench_find_mpi_flavor(<TARGET> <CACHE_VAR> LABEL <name> IDENTITY <arg> <regex>
#                           SHOW_ARG <arg> NAMES <wrapper names...> PATHS <extra dirs...>)
# Looks for the implementation's C compiler wrapper (cache variable <CACHE_VAR> overrides the
# search), checks that it belongs to this implementation (the output of `<wrapper> <arg>` must
# match <regex>: the other implementation's wrapper would hand the argument to gcc, or accept
# it and say its own name), asks it for its command line (`--showme` for Open MPI, `-show` for
# MPICH) and creates the INTERFACE target <TARGET> from its -I, -L, -l and -Wl, tokens. Sets
# <TARGET>_FOUND and <TARGET>_REASON (why not, for the configure summary: no ';' or '|') in
# the caller's scope.
function(taskbench_find_mpi_flavor target cache_var)
  cmake_parse_arguments(arg "" "LABEL;SHOW_ARG" "IDENTITY;NAMES;PATHS" ${ARGN})
  find_program(${cache_var} NAMES ${arg_NAMES} PATHS ${arg_PATHS}
               DOC "C compiler wrapper of the MPI implementation behind ${target}")
  set(${target}_FOUND FALSE PARENT_SCOPE)
  set(wrapper ${${cache_var}})
  if(NOT wrapper)
    string(JOIN " or " names ${arg_NAMES})
    set(${target}_REASON "no ${names} found (set ${cache_var} to its compiler wrapper)" PARENT_SCOPE)
    return()
  endif()
  list(GET arg_IDENTITY 0 identity_arg)
  list(GET arg_IDENTITY 1 identity_regex)
  execute_process(COMMAND ${wrapper} ${identity_arg} OUTPUT_VARIABLE identity
                  ERROR_VARIABLE identity RESULT_VARIABLE rc)
  if(NOT identity MATCHES "${identity_regex}")
    set(${target}_REASON "${wrapper} does not identify as ${arg_LABEL} (set ${cache_var})" PARENT_SCOPE)
    return()
  endif()
  execute_process(COMMAND ${wrapper} ${arg_SHOW_ARG}
                  OUTPUT_VARIABLE line ERROR_QUIET RESULT_VARIABLE rc
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0 OR line STREQUAL "")
    set(${target}_REASON "${wrapper} ${arg_SHOW_ARG} failed" PARENT_SCOPE)
    return()
  endif()
  separate_arguments(tokens UNIX_COMMAND "${line}")
  set(includes "")
  set(link "")
  foreach(token IN LISTS tokens)
    if(token MATCHES "^-I(.+)")
      list(APPEND includes "${CMAKE_MATCH_1}")
    elseif(token MATCHES "^-(L|l|Wl,|pthread)")
      list(APPEND link "${token}")
    endif()
  endforeach()
  if(includes STREQUAL "" OR NOT link MATCHES "-l")
    set(${target}_REASON "could not read include and library flags from '${line}'" PARENT_SCOPE)
    return()
  endif()
  add_library(${target} INTERFACE IMPORTED GLOBAL)
  set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${includes}"
                                             INTERFACE_LINK_LIBRARIES "${link}")
  set(${target}_FOUND TRUE PARENT_SCOPE)
  set(${target}_REASON "" PARENT_SCOPE)
endfunction()

# taskbench_find_smpi(<TARGET>): SimGrid's SMPI, the MPI whose ranks run on a simulated platform.
# What its smpicxx wrapper does, as a target: SMPI's mpi.h, libsimgrid, and a program linked as a
# shared object (smpirun loads one copy of it per rank, so that each rank has its own globals).
#
# Which SimGrid: the system's (Debian's libsimgrid-dev), or the one installed at
# TASKBENCH_SIMGRID_ROOT (scripts/install-simgrid.sh: /opt/simgrid-VERSION), searched there only.
# The smpirun found beside it is the one the harness runs: the build links it as
# libexec/taskbench/smpirun (python/taskbench/launch/smpirun.py), so that programs built against
# one SimGrid never run under another's smpirun.
set(TASKBENCH_SIMGRID_ROOT "" CACHE PATH
    "Prefix of the SimGrid the SMPI builds use (include/, lib/, bin/smpirun), e.g. /opt/simgrid-4.1 from scripts/install-simgrid.sh; empty: the system's")
function(taskbench_find_smpi target)
  set(${target}_FOUND FALSE PARENT_SCOPE)
  set(link ${TASKBENCH_HELPER_DIR}/smpirun)
  file(REMOVE ${link})  # a build without SMPI, or with another SimGrid, keeps no stale one
  set(root "${TASKBENCH_SIMGRID_ROOT}")
  if(NOT root STREQUAL "${_TASKBENCH_SIMGRID_ROOT_SEARCHED}")  # another SimGrid: search again
    unset(TASKBENCH_SMPI_INCLUDE_DIR CACHE)
    unset(TASKBENCH_SIMGRID_LIBRARY CACHE)
    unset(TASKBENCH_SMPIRUN CACHE)
    set(_TASKBENCH_SIMGRID_ROOT_SEARCHED "${root}" CACHE INTERNAL "TASKBENCH_SIMGRID_ROOT of the last search")
  endif()
  if(root)
    set(only_there NO_DEFAULT_PATH)
  endif()
  find_path(TASKBENCH_SMPI_INCLUDE_DIR smpi/smpi.h PATHS ${root}/include ${only_there}
            DOC "the folder that holds SimGrid's smpi/smpi.h")
  find_library(TASKBENCH_SIMGRID_LIBRARY simgrid PATHS ${root}/lib ${root}/lib64 ${only_there}
               DOC "SimGrid's library")
  find_program(TASKBENCH_SMPIRUN smpirun PATHS ${root}/bin ${only_there} DOC "SimGrid's smpirun")
  if(NOT TASKBENCH_SMPI_INCLUDE_DIR OR NOT TASKBENCH_SIMGRID_LIBRARY OR NOT TASKBENCH_SMPIRUN)
    if(root)  # asked for by name: never another SimGrid in its place
      message(FATAL_ERROR "TASKBENCH_SIMGRID_ROOT=${root} holds no whole SimGrid (include/smpi/smpi.h: "
              "${TASKBENCH_SMPI_INCLUDE_DIR}, lib/libsimgrid: ${TASKBENCH_SIMGRID_LIBRARY}, bin/smpirun: "
              "${TASKBENCH_SMPIRUN}); scripts/install-simgrid.sh VERSION installs one")
    endif()
    set(${target}_REASON "no SimGrid (smpi/smpi.h, libsimgrid and smpirun)" PARENT_SCOPE)
    return()
  endif()
  # The headers' version and smpirun's must be one SimGrid's (a smpirun of another install first
  # on PATH would load these programs into another libsimgrid).
  file(STRINGS ${TASKBENCH_SMPI_INCLUDE_DIR}/simgrid/version.h header_version
       REGEX "define SIMGRID_VERSION_STRING")
  string(REGEX REPLACE ".*\"(.*)\".*" "\\1" header_version "${header_version}")
  execute_process(COMMAND ${TASKBENCH_SMPIRUN} -version OUTPUT_VARIABLE run_version ERROR_QUIET
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT run_version STREQUAL header_version)
    set(${target}_REASON "${TASKBENCH_SMPIRUN} is '${run_version}' but ${TASKBENCH_SMPI_INCLUDE_DIR} holds '${header_version}' (set TASKBENCH_SIMGRID_ROOT)" PARENT_SCOPE)
    return()
  endif()
  file(MAKE_DIRECTORY ${TASKBENCH_HELPER_DIR})
  file(CREATE_LINK ${TASKBENCH_SMPIRUN} ${link} SYMBOLIC)
  install(PROGRAMS ${link} DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/taskbench)
  string(REPLACE "SimGrid version " "" version "${header_version}")
  taskbench_component_note(SMPI "SimGrid ${version}, ${TASKBENCH_SMPIRUN}")
  add_library(${target} INTERFACE IMPORTED GLOBAL)
  set_target_properties(${target} PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${TASKBENCH_SMPI_INCLUDE_DIR}/smpi;${TASKBENCH_SMPI_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${TASKBENCH_SIMGRID_LIBRARY}"
    INTERFACE_COMPILE_OPTIONS "-fPIC"  # not an executable's -fPIE: the program is a shared object
    INTERFACE_LINK_OPTIONS "-shared")
  # Started by hand, a shared object jumps to address 0 (a segmentation fault): given the system's
  # dynamic loader as its interpreter and an entry point of its own (simulation.cc), it says in
  # one line how it runs instead. The loader is the one this machine's programs ask for (cmake's).
  execute_process(COMMAND readelf -l ${CMAKE_COMMAND} OUTPUT_VARIABLE headers ERROR_QUIET)
  if(headers MATCHES "program interpreter: ([^]]+)]")
    set_property(TARGET ${target} APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS
                 "TASKBENCH_DYNAMIC_LOADER=\"${CMAKE_MATCH_1}\"")
    set_property(TARGET ${target} APPEND PROPERTY INTERFACE_LINK_OPTIONS
                 "-Wl,-e,taskbench_smpi_started_alone")
  endif()
  set(${target}_FOUND TRUE PARENT_SCOPE)
  set(${target}_REASON "" PARENT_SCOPE)
endfunction()
