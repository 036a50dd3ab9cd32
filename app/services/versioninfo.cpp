#include "app/services/versioninfo.h"

#include "gitversion.h" // generated: cmake/GitVersion.cmake

#include <QCoreApplication>
#include <QtGlobal>

#include <curl/curl.h>
#include <libpq-fe.h>
#include <sqlite3.h>

namespace fieldscope::app {

std::string versionText(bool libraries)
{
    std::string out = "fieldscope " FIELDSCOPE_GIT_VERSION "\n";
    if (!libraries)
        return out;
    const curl_version_info_data *curl = curl_version_info(CURLVERSION_NOW);
    out += std::string("Qt ") + qVersion() + " (built with " QT_VERSION_STR ")\n";
    out += std::string("libcurl ") + (curl ? curl->version : "?")
         + (curl && curl->ssl_version ? std::string(" (") + curl->ssl_version + ")" : std::string()) + "\n";
    out += "yaml-cpp " FIELDSCOPE_YAML_CPP_VERSION " (built with; yaml-cpp has no run-time version)\n";
    out += std::string("SQLite ") + sqlite3_libversion() + "\n";
    const int pq = PQlibVersion();
    out += "libpq " + std::to_string(pq / 10000) + "." + std::to_string(pq % 10000) + "\n";
    return out;
}

void setApplicationIdentity()
{
    QCoreApplication::setOrganizationName(QStringLiteral("fieldscope"));
    QCoreApplication::setApplicationName(QStringLiteral("fieldscope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(FIELDSCOPE_VERSION));
}

} // namespace fieldscope::app
