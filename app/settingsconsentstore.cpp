#include "app/settingsconsentstore.h"

#include <QCryptographicHash>
#include <QSettings>

namespace fieldscope::app {
namespace {
// Settings keys must not contain '/' from paths; a hash of both parts is stable and opaque.
QString keyFor(const std::string &file, const std::string &consentKey)
{
    const QByteArray h = QCryptographicHash::hash(QByteArray::fromStdString(file + '\n' + consentKey), QCryptographicHash::Sha256).toHex();
    return QStringLiteral("execConsent/") + QString::fromLatin1(h.left(32));
}
} // namespace

std::optional<bool> SettingsConsentStore::decision(const std::string &kubeconfigFile, const std::string &consentKey) const
{
    std::lock_guard lock(m_mutex);
    QSettings s;
    const QVariant v = s.value(keyFor(kubeconfigFile, consentKey));
    if (!v.isValid())
        return std::nullopt;
    return v.toBool();
}

void SettingsConsentStore::remember(const std::string &kubeconfigFile, const std::string &consentKey, bool allowed)
{
    std::lock_guard lock(m_mutex);
    QSettings s;
    s.setValue(keyFor(kubeconfigFile, consentKey), allowed);
}

} // namespace fieldscope::app
