# The layering of docs/architecture.md as data: each folder is one static library
# (fieldscope_<folder with / as _>) and may use only the folders listed after it, plus what
# those may use. The same table links the libraries (fieldscope_layer below) and checks every
# #include at configure time and on every build (cmake/FieldscopeIncludeCheck.cmake), so a
# wrong include fails the build with the rule it breaks.
set(FIELDSCOPE_LAYERS
  "core/base:"                            # errors, results, JSON, typed reads, visible text, private files
  "core/yaml:core/base"                   # YAML <-> JSON, manifests
  "core/objects:core/base"                # object refs, field paths, list semantics, watch types
  "core/ownership:core/objects,core/yaml" # FieldsV1, managedFields, ownership tree/diff, conflicts, blame
  "core/diff:core/ownership"              # object and YAML diffs, three-way merge
  "core/history:core/diff"                # history store, codec, writer, feed, query, export, audit join
  "core/edit:core/diff"                   # edit buffers, apply bodies, drafts, the editor's decisions
  "core/lessons:core/ownership"           # lesson format, requests, step reports and checks
  "kube:core/ownership"                   # the Kubernetes API client
  "lessons:kube,core/lessons"             # the lesson runner (talks to a server)
  "models:core/history"                   # Qt item models
  "widgets:models,core/lessons,core/edit" # windows, views, dialogs
  "app:widgets,lessons,kube,core/edit"    # composition root and command line
)
# Only the layers below widgets/ may not see Qt Widgets or QScintilla.
set(FIELDSCOPE_NO_WIDGETS_LAYERS core/base core/yaml core/objects core/ownership core/diff core/history core/edit
  core/lessons kube lessons models)

function(fieldscope_layer_target folder out)
  string(REPLACE "/" "_" _name "${folder}")
  set(${out} "fieldscope_${_name}" PARENT_SCOPE)
endfunction()

# The direct dependencies of a folder (from the table).
function(fieldscope_layer_deps folder out)
  set(_deps "")
  foreach(entry IN LISTS FIELDSCOPE_LAYERS)
    string(REPLACE ":" ";" _parts "${entry}")
    list(GET _parts 0 _folder)
    if(_folder STREQUAL folder)
      list(LENGTH _parts _n)
      if(_n GREATER 1)
        list(GET _parts 1 _list)
        string(REPLACE "," ";" _deps "${_list}")
      endif()
    endif()
  endforeach()
  set(${out} "${_deps}" PARENT_SCOPE)
endfunction()

# A library of the table: its sources, and the libraries of the folders it may use, linked PUBLIC.
function(fieldscope_layer folder)
  fieldscope_layer_target(${folder} _target)
  fieldscope_library(${_target} ${ARGN})
  fieldscope_layer_deps(${folder} _deps)
  foreach(dep IN LISTS _deps)
    fieldscope_layer_target(${dep} _dep_target)
    target_link_libraries(${_target} PUBLIC ${_dep_target})
  endforeach()
endfunction()
