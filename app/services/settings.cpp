#include "app/services/settings.h"

#include "core/history/historystore.h"

#include <QRegularExpression>
#include <QSettings>

namespace fieldscope::app {
namespace {

constexpr QLatin1String kVersionsKey("history/versionsPerObject");
constexpr QLatin1String kFieldManagerKey("writes/fieldManager");
constexpr QLatin1String kBackgroundKey("background/resources");
constexpr QLatin1String kSharedUrlKey("history/sharedUrl");
constexpr QLatin1String kFavouritesKey("favourites");
constexpr int kMaxFavourites = 1000; // a hand-edited file cannot make the kinds list slow

// Identities are "sha256:HEX"; percent-encoded all the same so nothing makes a settings group.
QString secretValuesKey(const QString &clusterIdentity)
{
    return QStringLiteral("secrets/recordValuesForCluster/")
         + QString::fromLatin1(clusterIdentity.toUtf8().toPercentEncoding());
}

// The key earlier versions used (context names are a kubeconfig's: percent-encoded).
QString legacySecretValuesKey(const QString &context)
{
    return QStringLiteral("secrets/recordValues/") + QString::fromLatin1(context.toUtf8().toPercentEncoding());
}

// A resource as `fieldscope record` and kubectl take it: "deployments", "deployments.apps",
// "cm", "ConfigMap" (discovery resolves it); never spaces, quotes or shell syntax.
bool isResourceName(const QString &name)
{
    static const QRegularExpression re(QStringLiteral("^[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?$"));
    return name.size() <= 253 && re.match(name).hasMatch();
}

} // namespace

const std::vector<SettingKey> &Settings::keys()
{
    static const std::vector<SettingKey> all{
        {kVersionsKey.data(), "1000", "versions kept per object in a history file on this computer (2 to 100000)"},
        {kSharedUrlKey.data(), "", "the team's PostgreSQL URL; empty: histories on this computer"},
        {kFieldManagerKey.data(), kDefaultFieldManager, "the fieldManager name the window and `apply` write with"},
        {kBackgroundKey.data(), kDefaultBackgroundResources, "what the background recorder records"},
        {kFavouritesKey.data(), "", "the resource kinds starred in the kinds list"},
        {"secrets/recordValuesForCluster/IDENTITY", "false", "record Secret values for one cluster"},
        {"secrets/recordValues/CONTEXT", "false", "an earlier version's opt-in per context name"},
    };
    return all;
}

int Settings::historyVersionsPerObject()
{
    bool ok = false;
    const int n = QSettings().value(kVersionsKey, kDefaultVersionsPerObject).toInt(&ok);
    if (!ok)
        return kDefaultVersionsPerObject;
    return std::clamp(n, kMinVersionsPerObject, kMaxVersionsPerObject);
}

QString Settings::setHistoryVersionsPerObject(int versions)
{
    if (versions < kMinVersionsPerObject || versions > kMaxVersionsPerObject)
        return QStringLiteral("Keep %1 to %2 versions per object.")
            .arg(kMinVersionsPerObject)
            .arg(kMaxVersionsPerObject);
    QSettings().setValue(kVersionsKey, versions);
    return {};
}

QString Settings::checkFieldManager(const QString &name)
{
    // The API server's own rule (apimachinery ValidateFieldManager): at most 128 bytes of UTF-8,
    // every rune printable as Go's unicode.IsPrint says (no controls, format characters or spaces
    // but the ASCII one).
    if (name.isEmpty() || name.toUtf8().size() > 128)
        return QStringLiteral("A field manager name is 1 to 128 characters.");
    for (const char32_t c : name.toUcs4()) {
        const bool space = QChar::isSpace(c) && c != U' ';
        if (!QChar::isPrint(c) || space)
            return QStringLiteral("A field manager name has no control or invisible characters.");
    }
    return {};
}

QString Settings::fieldManager()
{
    const QString stored =
        QSettings().value(kFieldManagerKey, QString::fromLatin1(kDefaultFieldManager)).toString().trimmed();
    return checkFieldManager(stored).isEmpty() ? stored : QString::fromLatin1(kDefaultFieldManager);
}

QString Settings::setFieldManager(const QString &name)
{
    const QString trimmed = name.trimmed();
    if (QString why = checkFieldManager(trimmed); !why.isEmpty())
        return why;
    QSettings().setValue(kFieldManagerKey, trimmed);
    return {};
}

QString Settings::checkBackgroundResources(const QString &resources)
{
    const QStringList names = resources.split(u',', Qt::SkipEmptyParts);
    if (names.isEmpty())
        return QStringLiteral("Name at least one resource (comma-separated: deployments,configmaps).");
    for (const QString &n : names)
        if (!isResourceName(n.trimmed()))
            return QStringLiteral("\"%1\" is not a resource name (as `kubectl api-resources` lists them).")
                .arg(n.trimmed().left(64));
    return {};
}

QString Settings::backgroundResources()
{
    QString stored =
        QSettings().value(kBackgroundKey, QString::fromLatin1(kDefaultBackgroundResources)).toString().simplified();
    if (!checkBackgroundResources(stored).isEmpty())
        return QString::fromLatin1(kDefaultBackgroundResources);
    return stored.remove(u' ');
}

QString Settings::setBackgroundResources(const QString &resources)
{
    if (QString why = checkBackgroundResources(resources); !why.isEmpty())
        return why;
    QSettings().setValue(kBackgroundKey, resources.simplified().remove(u' '));
    return {};
}

QString Settings::sharedHistoryUrl()
{
    return QSettings().value(kSharedUrlKey).toString().trimmed();
}

QString Settings::checkSharedHistoryUrl(const QString &url)
{
    const QString u = url.trimmed();
    if (u.isEmpty())
        return {};
    if (!core::isSharedHistoryLocation(u.toStdString()))
        return QStringLiteral("A shared history is a PostgreSQL URL: postgresql://HOST/DATABASE (with "
                              "?sslmode=verify-full and the like as needed).");
    if (auto st = core::checkSharedHistoryLocation(u.toStdString()); !st)
        return QString::fromStdString(st.error().message);
    return {};
}

QString Settings::setSharedHistoryUrl(const QString &url)
{
    if (QString why = checkSharedHistoryUrl(url); !why.isEmpty())
        return why;
    QSettings s;
    if (url.trimmed().isEmpty())
        s.remove(kSharedUrlKey);
    else
        s.setValue(kSharedUrlKey, url.trimmed());
    return {};
}

QStringList Settings::favourites()
{
    QStringList kinds = QSettings().value(kFavouritesKey).toStringList();
    if (kinds.size() > kMaxFavourites)
        kinds.resize(kMaxFavourites);
    return kinds;
}

void Settings::setFavourites(const QStringList &kinds)
{
    QSettings().setValue(kFavouritesKey, kinds.mid(0, kMaxFavourites));
}

bool Settings::recordsSecretValues(const QString &clusterIdentity)
{
    return !clusterIdentity.isEmpty() && QSettings().value(secretValuesKey(clusterIdentity), false).toBool();
}

void Settings::setRecordsSecretValues(const QString &clusterIdentity, bool on)
{
    if (clusterIdentity.isEmpty())
        return;
    QSettings s;
    if (on)
        s.setValue(secretValuesKey(clusterIdentity), true);
    else
        s.remove(secretValuesKey(clusterIdentity));
}

bool Settings::hadLegacySecretValuesOptIn(const QString &context)
{
    return !context.isEmpty() && QSettings().value(legacySecretValuesKey(context), false).toBool();
}

void Settings::removeLegacySecretValuesOptIn(const QString &context)
{
    QSettings().remove(legacySecretValuesKey(context));
}

} // namespace fieldscope::app
