#include "app/services/settingsconsentstore.h"

#include <QCoreApplication>
#include <QSettings>

#include <algorithm>
#include <memory>

namespace fieldscope::app {
namespace {

// One group per decision, named by the fingerprint (hex: a valid settings key). Decisions of
// earlier versions ("execConsent/<hash of file and command>") were bound to less than the user
// is shown now; they are ignored, and removed by forgetAll().
// Functions, not global QStrings: nothing to construct at load time (clazy non-pod-global-static).
QString consentGroup()
{
    return QStringLiteral("execPluginConsent");
}
QString legacyConsentGroup()
{
    return QStringLiteral("execConsent");
}

std::unique_ptr<QSettings> open(const QString &file)
{
    if (!file.isEmpty())
        return std::make_unique<QSettings>(file, QSettings::IniFormat);
    // The subcommands set no organisation; without this they would read "Unknown Organization"'s
    // file and never see what the window remembered.
    QString org = QCoreApplication::organizationName();
    if (org.isEmpty())
        org = QStringLiteral("fieldscope");
    QString app = QCoreApplication::applicationName();
    if (app.isEmpty())
        app = QStringLiteral("fieldscope");
    return std::make_unique<QSettings>(org, app);
}

bool isFingerprint(const std::string &s)
{
    return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

} // namespace

SettingsConsentStore::SettingsConsentStore(QString settingsFile) : m_file(std::move(settingsFile)) {}

std::optional<bool> SettingsConsentStore::decision(const std::string &fingerprint) const
{
    if (!isFingerprint(fingerprint))
        return std::nullopt;
    std::lock_guard lock(m_mutex);
    auto s = open(m_file);
    const QVariant v = s->value(consentGroup() + u'/' + QString::fromStdString(fingerprint)
                                + QStringLiteral("/allowed"));
    if (!v.isValid())
        return std::nullopt;
    return v.toBool();
}

void SettingsConsentStore::remember(const kube::ConsentRecord &r)
{
    if (!isFingerprint(r.fingerprint))
        return;
    std::lock_guard lock(m_mutex);
    auto s = open(m_file);
    s->beginGroup(consentGroup() + u'/' + QString::fromStdString(r.fingerprint));
    s->setValue(QStringLiteral("allowed"), r.allowed);
    s->setValue(QStringLiteral("kubeconfig"), QString::fromStdString(r.kubeconfigFile));
    s->setValue(QStringLiteral("context"), QString::fromStdString(r.contextName));
    s->setValue(QStringLiteral("user"), QString::fromStdString(r.userName));
    s->setValue(QStringLiteral("server"), QString::fromStdString(r.server));
    s->setValue(QStringLiteral("program"), QString::fromStdString(r.program));
    s->setValue(QStringLiteral("when"), r.when.toUTC().toString(Qt::ISODate));
    s->endGroup();
    s->sync();
}

std::vector<kube::ConsentRecord> SettingsConsentStore::decisions() const
{
    std::lock_guard lock(m_mutex);
    auto s = open(m_file);
    std::vector<kube::ConsentRecord> out;
    s->beginGroup(consentGroup());
    for (const QString &fp : s->childGroups()) {
        if (!isFingerprint(fp.toStdString()))
            continue; // not ours (edited by hand)
        s->beginGroup(fp);
        kube::ConsentRecord r;
        r.fingerprint = fp.toStdString();
        r.allowed = s->value(QStringLiteral("allowed")).toBool();
        r.kubeconfigFile = s->value(QStringLiteral("kubeconfig")).toString().toStdString();
        r.contextName = s->value(QStringLiteral("context")).toString().toStdString();
        r.userName = s->value(QStringLiteral("user")).toString().toStdString();
        r.server = s->value(QStringLiteral("server")).toString().toStdString();
        r.program = s->value(QStringLiteral("program")).toString().toStdString();
        r.when = QDateTime::fromString(s->value(QStringLiteral("when")).toString(), Qt::ISODate).toUTC();
        s->endGroup();
        out.push_back(std::move(r));
    }
    std::stable_sort(out.begin(), out.end(), [](const auto &a, const auto &b) { return a.when > b.when; });
    return out;
}

bool SettingsConsentStore::forget(const std::string &fingerprint)
{
    if (!isFingerprint(fingerprint))
        return false;
    std::lock_guard lock(m_mutex);
    auto s = open(m_file);
    const QString key = consentGroup() + u'/' + QString::fromStdString(fingerprint);
    if (!s->contains(key + QStringLiteral("/allowed")))
        return false;
    s->remove(key);
    s->sync();
    return true;
}

int SettingsConsentStore::forgetAll()
{
    std::lock_guard lock(m_mutex);
    auto s = open(m_file);
    s->beginGroup(consentGroup());
    const int n = int(s->childGroups().size());
    s->endGroup();
    s->remove(consentGroup());
    s->remove(legacyConsentGroup());
    s->sync();
    return n;
}

} // namespace fieldscope::app
