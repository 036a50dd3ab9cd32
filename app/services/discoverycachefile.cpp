#include "app/services/discoverycachefile.h"

#include "app/services/historysource.h"

#include <QStandardPaths>

namespace fieldscope::app {

QString discoveryCacheFolder()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation)
         + QStringLiteral("/fieldscope/discovery");
}

kube::DiscoveryCacheUse discoveryCacheUseFor(const kube::ResolvedConfig &config, bool window, bool refresh)
{
    kube::DiscoveryCacheUse use;
    const QString id = QString::fromStdString(clusterIdentityOf(config)).section(u':', -1).left(32);
    use.path = (discoveryCacheFolder() + u'/' + id + QStringLiteral(".json")).toStdString();
    use.server = config.server;
    use.refreshAfterCache = window;
    use.blockingIo = !window;
    if (refresh)
        use.maxAgeMs = 0;
    return use;
}

} // namespace fieldscope::app
