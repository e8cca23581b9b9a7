include(GNUInstallDirs)

# The harness's helper programs (a cluster's starter, the hosts' remote-shell agent) are not
# systems: they go to build/libexec/taskbench, and to ${CMAKE_INSTALL_LIBEXECDIR}/taskbench when
# installed, so that bin/ holds the systems and nothing else. The harness finds them from a
# system's executable, at bin/../libexec/taskbench (python/taskbench/launch/plan.py).
set(TASKBENCH_HELPER_DIR ${CMAKE_BINARY_DIR}/libexec/taskbench)

# _taskbench_python_program(<name> <file.py> <path in the package> <build dir> <install dir>):
# an executable <build dir>/<name> that runs a Python script with the interpreter the binding was
# built for, the source package and the built taskbench._core on its path (and its children's:
# Dask's and Ray's worker processes import them too); installed to <install dir>.
function(_taskbench_python_program name script installed build_dir install_dir)
  get_property(enabled GLOBAL PROPERTY TASKBENCH_ENABLE_PYTHON)
  if(NOT enabled)
    return()
  endif()
  set(template ${PROJECT_SOURCE_DIR}/python/ext/launcher.py.in)
  # In the build tree: the harness package from the sources, _core from the build.
  set(source_python ${PROJECT_SOURCE_DIR}/python)
  set(build_python ${TASKBENCH_PYTHON_BUILD_DIR})
  configure_file(${template} ${build_dir}/${name}
    FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE
    @ONLY)
  # Installed: everything is in the package; the script is found from the launcher's place.
  set(source_python "")
  set(build_python "")
  set(script ${installed})
  configure_file(${template} ${CMAKE_CURRENT_BINARY_DIR}/installed/${name} @ONLY)
  install(PROGRAMS ${CMAKE_CURRENT_BINARY_DIR}/installed/${name} DESTINATION ${install_dir})
endfunction()

# taskbench_add_python_helper(<name> SCRIPT <file.py> INSTALLED <path in the package>): a helper
# program the harness starts, in build/libexec/taskbench (see above).
function(taskbench_add_python_helper name)
  cmake_parse_arguments(arg "" "SCRIPT;INSTALLED" "" ${ARGN})
  _taskbench_python_program(${name} ${arg_SCRIPT} ${arg_INSTALLED} ${TASKBENCH_HELPER_DIR}
                            ${CMAKE_INSTALL_LIBEXECDIR}/taskbench)
  # An older build wrote the helpers beside the systems: a stale copy there would pass for one.
  file(REMOVE ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/${name})
endfunction()

# taskbench_add_python_system(<name> SCRIPT <file.py>): a Python system, launched as
# build/bin/<name> like a C++ one (so the registry, the harness and the tests need nothing new).
function(taskbench_add_python_system name)
  cmake_parse_arguments(arg "" "SCRIPT" "" ${ARGN})
  get_filename_component(folder ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  _taskbench_python_program(${name} ${CMAKE_CURRENT_SOURCE_DIR}/${arg_SCRIPT} systems/${folder}/${arg_SCRIPT}
                            ${CMAKE_RUNTIME_OUTPUT_DIRECTORY} bin)
  get_property(enabled GLOBAL PROPERTY TASKBENCH_ENABLE_PYTHON)
  if(enabled)
    set_property(GLOBAL APPEND PROPERTY TASKBENCH_SYSTEMS ${name})
  endif()
endfunction()
