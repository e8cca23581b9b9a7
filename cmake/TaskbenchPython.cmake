# taskbench_add_python_launcher(<name> SCRIPT <file.py> INSTALLED <path in the package>): an
# executable build/bin/<name> that runs a Python script with the interpreter the binding was
# built for, the source package and the built taskbench._core on its path (and its children's:
# Dask's and Ray's worker processes import them too).
function(taskbench_add_python_launcher name)
  cmake_parse_arguments(arg "" "SCRIPT;INSTALLED" "" ${ARGN})
  get_property(enabled GLOBAL PROPERTY TASKBENCH_ENABLE_PYTHON)
  if(NOT enabled)
    return()
  endif()
  set(template ${PROJECT_SOURCE_DIR}/python/ext/launcher.py.in)
  # In the build tree: the harness package from the sources, _core from the build.
  set(source_python ${PROJECT_SOURCE_DIR}/python)
  set(build_python ${TASKBENCH_PYTHON_BUILD_DIR})
  set(script ${arg_SCRIPT})
  configure_file(${template} ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/${name}
    FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE
    @ONLY)
  # Installed: everything is in the package; the script is found from the launcher's place.
  set(source_python "")
  set(build_python "")
  set(script ${arg_INSTALLED})
  configure_file(${template} ${CMAKE_CURRENT_BINARY_DIR}/installed/${name} @ONLY)
  install(PROGRAMS ${CMAKE_CURRENT_BINARY_DIR}/installed/${name} DESTINATION bin)
endfunction()

# taskbench_add_python_system(<name> SCRIPT <file.py>): a Python system, launched as
# build/bin/<name> like a C++ one (so the registry, the harness and the tests need nothing new).
function(taskbench_add_python_system name)
  cmake_parse_arguments(arg "" "SCRIPT" "" ${ARGN})
  get_filename_component(folder ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  taskbench_add_python_launcher(${name} SCRIPT ${CMAKE_CURRENT_SOURCE_DIR}/${arg_SCRIPT}
                                INSTALLED systems/${folder}/${arg_SCRIPT})
  get_property(enabled GLOBAL PROPERTY TASKBENCH_ENABLE_PYTHON)
  if(enabled)
    set_property(GLOBAL APPEND PROPERTY TASKBENCH_SYSTEMS ${name})
  endif()
endfunction()
