# Enforce the layering of docs/architecture.md: a library may link only the libraries of the
# folders cmake/FieldscopeLayers.cmake lets it use, and no layer below widgets/ links Qt Widgets
# or QScintilla. The includes are checked too (cmake/FieldscopeIncludeCheck.cmake): links alone
# cannot see a header used across layers, since every library has the source root on its path.
foreach(entry IN LISTS FIELDSCOPE_LAYERS)
  string(REPLACE ":" ";" _parts "${entry}")
  list(GET _parts 0 _folder)
  fieldscope_layer_target(${_folder} _target)
  if(NOT TARGET ${_target})
    continue() # not built in this configuration (FIELDSCOPE_BUILD_GUI=OFF)
  endif()
  fieldscope_layer_deps(${_folder} _deps)
  set(_allowed "")
  foreach(dep IN LISTS _deps)
    fieldscope_layer_target(${dep} _dep_target)
    list(APPEND _allowed ${_dep_target})
  endforeach()
  get_target_property(_libs ${_target} LINK_LIBRARIES)
  foreach(lib IN LISTS _libs)
    if(lib MATCHES "^fieldscope_" AND NOT lib STREQUAL "fieldscope_options" AND NOT lib IN_LIST _allowed)
      message(FATAL_ERROR "Layering: ${_target} must not link ${lib}; ${_folder}/ may use only: ${_deps}"
        " (cmake/FieldscopeLayers.cmake, docs/architecture.md)")
    endif()
    if(_folder IN_LIST FIELDSCOPE_NO_WIDGETS_LAYERS AND lib MATCHES "Qt6::Widgets|QScintilla")
      message(FATAL_ERROR "Layering: ${_target} must not link ${lib}")
    endif()
  endforeach()
endforeach()
