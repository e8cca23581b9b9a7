# taskbench_add_python_system(<name> SCRIPT <file.py>): a Python system, launched as
# build/bin/<name> like a C++ one (so the registry, the harness and the tests need nothing
# new). The launcher runs the system's script with the interpreter the binding was built for.
function(taskbench_add_python_system name)
  cmake_parse_arguments(arg "" "SCRIPT" "" ${ARGN})
  get_property(enabled GLOBAL PROPERTY TASKBENCH_ENABLE_PYTHON)
  if(NOT enabled)
    return()
  endif()
  get_filename_component(folder ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  set(template ${PROJECT_SOURCE_DIR}/python/ext/launcher.py.in)
  # In the build tree: the harness package from the sources, _core from the build.
  set(source_python ${PROJECT_SOURCE_DIR}/python)
  set(build_python ${TASKBENCH_PYTHON_BUILD_DIR})
  set(script ${CMAKE_CURRENT_SOURCE_DIR}/${arg_SCRIPT})
  configure_file(${template} ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/${name}
    FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE
    @ONLY)
  # Installed: everything is in the package; the script is found from the launcher's place.
  set(source_python "")
  set(build_python "")
  set(script "systems/${folder}/${arg_SCRIPT}")
  configure_file(${template} ${CMAKE_CURRENT_BINARY_DIR}/installed/${name} @ONLY)
  install(PROGRAMS ${CMAKE_CURRENT_BINARY_DIR}/installed/${name} DESTINATION bin)
  set_property(GLOBAL APPEND PROPERTY TASKBENCH_SYSTEMS ${name})
endfunction()
