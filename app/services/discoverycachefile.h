#pragma once
// Where a cluster's discovery cache file lives: $XDG_CACHE_HOME/fieldscope/discovery/, one file
// per cluster identity (server URL and CA, as the history store's key). A cache, not data: losing
// it costs one slower start.
#include "kube/discovery.h"
#include "kube/kubeconfig.h"

#include <QString>

namespace fieldscope::app {

QString discoveryCacheFolder();
// `window`: publish the file at once and refresh in the background, file I/O on a worker;
// otherwise (the command line) use a young file as it is, blocking I/O. `refresh`: ignore the file
// (still written after the server answered).
kube::DiscoveryCacheUse discoveryCacheUseFor(const kube::ResolvedConfig &config, bool window, bool refresh = false);

} // namespace fieldscope::app
