#include "app/services/backgroundrecording.h"

#include "app/services/historysource.h"
#include "app/services/settings.h"
#include "core/base/json.h"
#include "core/base/jsonread.h"
#include "core/base/privatefiles.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>

#include <cerrno>
#include <csignal>

namespace fieldscope::app {

QString backgroundMarkerFor(const QString &database)
{
    // A shared store is no file of this computer: its marker lives with the local histories.
    if (isSharedHistoryLocation(database))
        return historyFolder() + QStringLiteral("/shared-")
             + QString::fromLatin1(
                   QCryptographicHash::hash(database.toUtf8(), QCryptographicHash::Sha256).toHex().left(16))
             + QStringLiteral(".recorder");
    return database + QStringLiteral(".recorder");
}

core::Status writeBackgroundMarker(const QString &database, const BackgroundRecorder &r)
{
    const core::Json marker{{"pid", r.pid},
                            {"since", r.since.toMSecsSinceEpoch()},
                            {"heartbeat", QDateTime::currentMSecsSinceEpoch()},
                            {"resources", r.resources.toStdString()},
                            {"context", r.context.toStdString()}};
    // The recorder opens the database on its own thread, maybe after this first beat.
    if (auto st = core::makePrivateDirectory(QFileInfo(backgroundMarkerFor(database)).absolutePath().toStdString(),
                                             true);
        !st)
        return st;
    return core::writePrivateFileDurably(backgroundMarkerFor(database).toStdString(), core::toJsonText(marker));
}

void removeBackgroundMarker(const QString &database)
{
    QFile::remove(backgroundMarkerFor(database));
}

std::optional<BackgroundRecorder> runningBackgroundRecorder(const QString &database, const QDateTime &now)
{
    QFile f(backgroundMarkerFor(database));
    if (!f.open(QIODevice::ReadOnly))
        return std::nullopt;
    const QByteArray bytes = f.read(qint64{64} * 1024); // a marker is ~150 bytes; anything else is not ours
    auto j = core::parseJson(std::string_view(bytes.constData(), std::size_t(bytes.size())));
    if (!j || !j->is_object())
        return std::nullopt;
    const core::Json &m = *j;
    if (!m.value("pid", core::Json()).is_number_integer() || !m.value("since", core::Json()).is_number_integer()
        || !m.value("heartbeat", core::Json()).is_number_integer())
        return std::nullopt;
    BackgroundRecorder r;
    r.pid = m["pid"].get<qint64>();
    r.since = QDateTime::fromMSecsSinceEpoch(m["since"].get<qint64>(), Qt::UTC);
    r.heartbeat = QDateTime::fromMSecsSinceEpoch(m["heartbeat"].get<qint64>(), Qt::UTC);
    r.resources = QString::fromStdString(core::stringAt(m, "/resources").value_or(std::string()));
    r.context = QString::fromStdString(core::stringAt(m, "/context").value_or(std::string()));
    if (r.pid <= 0 || r.heartbeat.secsTo(now) > 90)
        return std::nullopt;
    // Signal 0 checks that the process exists (EPERM: it does, under another user).
    if (::kill(pid_t(r.pid), 0) != 0 && errno != EPERM)
        return std::nullopt;
    return r;
}

QString backgroundResources()
{
    return Settings::backgroundResources();
}

QString systemdInstanceName(const QString &context)
{
    // systemd-escape: '/' becomes '-', [A-Za-z0-9:_.] stay (but a leading '.'), every other byte \xNN.
    const QByteArray utf8 = context.toUtf8();
    QString out;
    for (int i = 0; i < utf8.size(); ++i) {
        const char c = utf8[i];
        const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ':'
                        || c == '_' || (c == '.' && i > 0);
        if (c == '/')
            out += QLatin1Char('-');
        else if (plain)
            out += QLatin1Char(c);
        else
            out += QStringLiteral("\\x%1").arg(uchar(c), 2, 16, QLatin1Char('0'));
    }
    return out;
}

} // namespace fieldscope::app
