#include "app/cli/climanifest.h"

#include <QFile>

#include <cstdio>

namespace fieldscope::app {

core::Result<core::ManifestObjects> readManifest(const QString &path)
{
    QFile f(path);
    if (path == QLatin1String("-") ? !f.open(stdin, QIODevice::ReadOnly) : !f.open(QIODevice::ReadOnly))
        return core::Error::make(core::ErrorCategory::Io,
                                 "cannot read " + path.toStdString() + ": " + f.errorString().toStdString());
    const QByteArray bytes = f.readAll();
    auto objects = core::manifestObjects(std::string_view(bytes.constData(), std::size_t(bytes.size())));
    if (!objects) {
        core::Error e = objects.error();
        e.where = path.toStdString() + (e.where.empty() ? std::string() : ", " + e.where);
        return e;
    }
    for (const auto &w : objects->warnings)
        std::fprintf(stderr, "Warning: %s: %s\n", qUtf8Printable(path), w.c_str());
    return objects;
}

std::string heading(const core::Json &object)
{
    const core::Json id = core::manifestIdentity(object);
    const std::string ns = id.contains("namespace") ? id["namespace"].get<std::string>() + "/" : std::string();
    return id["kind"].get<std::string>() + " " + ns + id["name"].get<std::string>();
}

} // namespace fieldscope::app
