#pragma once
// The settings dialog (Ctrl+,): shows and edits SettingsValues. It keeps nothing itself: the
// composition root fills it from the settings service (app/services/settings.h), checks what OK
// would keep, and saves it (app/gui/workspace.cpp). Without a root (a widget test) it shows the
// values it was given.
#include <QDialog>

#include <functional>

class QCheckBox;
class QLineEdit;
class QLabel;
class QRadioButton;
class QSpinBox;

namespace fieldscope::widgets {

class ConsentDecisionsView;

// The shown cluster: per-cluster options are keyed by `identity` (the cluster identity the
// history uses: SHA-256 of server URL and CA bundle), never by the context name, which another
// kubeconfig may give another cluster (`default`, `kubernetes-admin@kubernetes`).
struct SettingsCluster {
    QString context, identity, server;
};

// What the dialog edits.
struct SettingsValues {
    int versionsPerObject = 1000;
    int minVersionsPerObject = 2; // the spin box's range
    int maxVersionsPerObject = 100000;
    QString fieldManager;
    bool recordSecretValues = false; // for the shown cluster (only offered when it has an identity)
    QString backgroundResources;
    QString sharedHistoryUrl; // "" = histories on this computer
};

class SettingsDialog : public QDialog
{
    Q_OBJECT
public:
    // `cluster`: the shown cluster, whose per-cluster options the dialog offers (none while it
    // has not connected: its identity is not known yet).
    explicit SettingsDialog(QWidget *parent = nullptr, const SettingsCluster &cluster = {});
    void setValues(const SettingsValues &values);
    SettingsValues values() const;
    const SettingsCluster &cluster() const { return m_cluster; }
    // Remembered exec-plugin answers; the composition root fills it (MainWindow::settingsOpened).
    ConsentDecisionsView *consentDecisions() const { return m_consent; }
    // The composition root says whether the context is recorded in the background, or what
    // enabling it answered.
    void setBackgroundRecordingStatus(const QString &text);
    // The composition root checks a shared store's URL before it is tested or kept ("" = fine,
    // else why not), and all the values before OK closes the dialog.
    void setSharedUrlCheck(std::function<QString(const QString &)> check) { m_sharedUrlCheck = std::move(check); }
    void setValuesCheck(std::function<QString(const SettingsValues &)> check) { m_valuesCheck = std::move(check); }
    // What Test connection found (or that it failed), shown under the URL.
    void setSharedStoreTestResult(const QString &text);
    // Why OK did not close the dialog, shown above its buttons.
    void setProblem(const QString &text);

Q_SIGNALS:
    // OK with values the check passed; the dialog then closes.
    void settingsAccepted(const fieldscope::widgets::SettingsValues &values);
    // The user asked to start (on) or stop recording `context` in the background, recording
    // `resources` (comma-separated).
    void backgroundRecordingRequested(const QString &context, bool on, const QString &resources);
    // Test connection was pressed for this URL.
    void sharedStoreTestRequested(const QString &url);

private:
    QSpinBox *m_retention;
    QLineEdit *m_manager;
    ConsentDecisionsView *m_consent = nullptr;
    QCheckBox *m_secretValues = nullptr;
    QLineEdit *m_backgroundResources = nullptr;
    QLabel *m_backgroundStatus = nullptr;
    QRadioButton *m_localStore = nullptr;
    QRadioButton *m_sharedStore = nullptr;
    QLineEdit *m_sharedUrl = nullptr;
    QLabel *m_sharedStatus = nullptr;
    QLabel *m_problem = nullptr;
    std::function<QString(const QString &)> m_sharedUrlCheck;
    std::function<QString(const SettingsValues &)> m_valuesCheck;
    SettingsCluster m_cluster;
    SettingsValues m_values; // as given; what values() starts from
    QWidget *makeHistoryBox();
    QWidget *makeBackgroundBox(const QString &context);
    // OK: checks the shared store's URL and the values (the dialog stays open on a bad one), then
    // says what to keep.
    void checkAndAccept();
};

} // namespace fieldscope::widgets
