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
  "core/history:core/diff"                # history store, codec, writer, feed, query, export, who made it
  "core/audit:core/history"               # audit events: decoding, the join to versions, log follower, import
  "core/edit:core/diff"                   # edit buffers, apply bodies, drafts, the editor's decisions
  "core/drift:core/history"               # drift: applied fields another manager changed or took since
  "core/lessons:core/ownership"           # lesson format, requests, step reports and checks
  "kube:core/objects,core/yaml"           # the Kubernetes API client
  "lessons:kube,core/lessons"             # the lesson runner (talks to a server)
  "models:core/history,core/drift"        # Qt item models
  "widgets:models,core/lessons,core/edit" # windows, views, dialogs
  "app/services:models,lessons,kube,core/audit" # headless services: settings, history source, audit, sandbox
  "app/cli:app/services,core/edit,core/drift" # the subcommands and their parser
  "app/gui:widgets,app/services"          # the window's composition: workspace, controllers, editors
  "app:app/cli,app/gui"                   # main.cpp: routes to the command line or the window
)
# The layers that may not see Qt Widgets or QScintilla: everything but widgets/, app/gui/ and
# main.cpp. Checked on links (cmake/FieldscopeLayering.cmake) and includes, <QtWidgets/...> and
# <Qsci/...> too (cmake/FieldscopeIncludeCheck.cmake).
set(FIELDSCOPE_NO_WIDGETS_LAYERS core/base core/yaml core/objects core/ownership core/diff core/history core/audit
  core/edit core/drift core/lessons kube lessons models app/services app/cli)
# The tree's other code: not libraries of the table, but linted, formatted and checked for
# citations like the product. With the table's top folders, this is the one list of where our
# code lives (scripts/lib/lint.py and the top-level CMakeLists.txt read it from here).
set(FIELDSCOPE_OTHER_CODE_FOLDERS bench fuzz tests packaging)

# The top-level folders of the table (core, kube, lessons, models, widgets, app), in table order.
function(fieldscope_product_folders out)
  set(_tops "")
  foreach(entry IN LISTS FIELDSCOPE_LAYERS)
    string(REGEX REPLACE "[:/].*$" "" _top "${entry}")
    list(APPEND _tops "${_top}")
  endforeach()
  list(REMOVE_DUPLICATES _tops)
  set(${out} "${_tops}" PARENT_SCOPE)
endfunction()

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
