#pragma once
// Exec-plugin consent remembered across runs in QSettings, shared by the window and every
// subcommand (one file: organisation and application "fieldscope" even when the command line set
// no organisation). A decision is keyed by the invocation's fingerprint (kube/execplugin.h) and
// keeps, for `fieldscope consent list` and Settings, the kubeconfig file, context, user, server,
// resolved program and time; never the arguments or env values (they may hold client secrets).
//
// Called from network, runner and GUI threads; QSettings is reentrant and each call makes its own
// instance; m_mutex serialises this process's writers (QSettings locks the file across processes).
#include "kube/credentials.h"

#include <QString>

#include <mutex>

namespace fieldscope::app {

class SettingsConsentStore final : public kube::ConsentStore
{
public:
    // `settingsFile`: an INI file to use instead of the user's settings (tests).
    explicit SettingsConsentStore(QString settingsFile = {});

    std::optional<bool> decision(const std::string &fingerprint) const override;
    void remember(const kube::ConsentRecord &record) override;
    std::vector<kube::ConsentRecord> decisions() const override;
    bool forget(const std::string &fingerprint) override;
    int forgetAll() override;

private:
    const QString m_file;
    mutable std::mutex m_mutex;
};

} // namespace fieldscope::app
