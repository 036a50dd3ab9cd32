# Where scripts/build-kube.sh caches the control plane: ~/.cache/fieldscope/kube-<version>/bin,
# the version read from the wrapper module that pins it (scripts/kube-modules/kubernetes/go.mod),
# so the tests, the packages and the scripts always agree on one release. A new release in go.mod
# (scripts/kube-modules/gen-kubernetes-gomod.sh) configures the build again by itself.
set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             "${PROJECT_SOURCE_DIR}/scripts/kube-modules/kubernetes/go.mod")
file(STRINGS "${PROJECT_SOURCE_DIR}/scripts/kube-modules/kubernetes/go.mod" _kube_require
     REGEX "^[ \t]*(require[ \t]+)?k8s\\.io/kubernetes[ \t]+v[0-9]")
if(NOT _kube_require MATCHES "k8s\\.io/kubernetes[ \t]+v([0-9]+\\.[0-9]+\\.[0-9]+)")
  message(FATAL_ERROR "no k8s.io/kubernetes release in scripts/kube-modules/kubernetes/go.mod")
endif()
set(FIELDSCOPE_KUBE_VERSION "${CMAKE_MATCH_1}" CACHE INTERNAL "the Kubernetes release the tests and sandbox run")
if(DEFINED ENV{FIELDSCOPE_CACHE})
  set(FIELDSCOPE_KUBE_BIN "$ENV{FIELDSCOPE_CACHE}/kube-${FIELDSCOPE_KUBE_VERSION}/bin" CACHE INTERNAL "")
else()
  set(FIELDSCOPE_KUBE_BIN "$ENV{HOME}/.cache/fieldscope/kube-${FIELDSCOPE_KUBE_VERSION}/bin" CACHE INTERNAL "")
endif()
