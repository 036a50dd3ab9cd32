#pragma once
// Exec-plugin consent remembered across runs in QSettings, per (kubeconfig file, command).
// Called from the network thread (CredentialProvider); QSettings is reentrant and each call
// makes its own instance, and m_mutex serialises writers of this process.
#include "kube/credentials.h"

#include <mutex>

namespace fieldscope::app {

class SettingsConsentStore final : public kube::ConsentStore
{
public:
    std::optional<bool> decision(const std::string &kubeconfigFile, const std::string &consentKey) const override;
    void remember(const std::string &kubeconfigFile, const std::string &consentKey, bool allowed) override;

private:
    mutable std::mutex m_mutex;
};

} // namespace fieldscope::app
