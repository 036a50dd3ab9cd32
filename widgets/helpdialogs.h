#pragma once
// The keyboard shortcuts help (F1) and the settings dialog (Ctrl+,). Settings are kept in
// QSettings under the keys named in settingsdialog: "history/versionsPerObject",
// "writes/fieldManager", "history/sharedUrl".
#include <QDialog>

#include <functional>

class QAction;
class QCheckBox;
class QLineEdit;
class QLabel;
class QRadioButton;
class QSpinBox;

namespace fieldscope::widgets {

class ConsentDecisionsView;

class ShortcutsDialog : public QDialog
{
    Q_OBJECT
public:
    // Lists WINDOWACTIONS that have a key (as their menus name them), then keysInViews().
    explicit ShortcutsDialog(const QList<QAction *> &windowActions, QWidget *parent = nullptr);
    // (keys, what) in the order shown.
    static QList<QPair<QString, QString>> shortcuts(const QList<QAction *> &windowActions);
    static QList<QPair<QString, QString>> keysInViews();
};

// The shown cluster: per-cluster options are keyed by `identity` (the cluster identity the
// history uses: SHA-256 of server URL and CA bundle), never by the context name, which another
// kubeconfig may give another cluster (`default`, `kubernetes-admin@kubernetes`).
struct SettingsCluster {
    QString context, identity, server;
};

class SettingsDialog : public QDialog
{
    Q_OBJECT
public:
    // `cluster`: the shown cluster, whose per-cluster options the dialog offers (none while it
    // has not connected: its identity is not known yet).
    explicit SettingsDialog(QWidget *parent = nullptr, const SettingsCluster &cluster = {});
    static int historyVersionsPerObject(); // default 50
    static QString fieldManager();         // default "fieldscope"
    // Remembered exec-plugin answers; the composition root fills it (MainWindow::settingsOpened).
    ConsentDecisionsView *consentDecisions() const { return m_consent; }
    // The opt-in to record Secret values (history, drafts) for one cluster identity; default off.
    static bool recordsSecretValues(const QString &clusterIdentity);
    static void setRecordsSecretValues(const QString &clusterIdentity, bool on);
    // Earlier versions kept the opt-in per context name. Such a key is never consent for a
    // cluster: the window asks once (and then removes it), the command line only mentions it.
    static bool hadLegacySecretValuesOptIn(const QString &context);
    static void removeLegacySecretValuesOptIn(const QString &context);
    // What fieldscope-record@.service records (comma-separated resources).
    static QString backgroundResources();
    // The composition root says whether the context is recorded in the background, or what
    // enabling it answered.
    void setBackgroundRecordingStatus(const QString &text);
    // Where histories are kept: "" = on this computer (SQLite files), else the team's PostgreSQL
    // URL (never with a password: ~/.pgpass, PG* environment or a service file hold those).
    static QString sharedHistoryUrl();
    static void setSharedHistoryUrl(const QString &url);
    // The composition root checks a URL before it is kept ("" = fine, else why not).
    void setSharedUrlCheck(std::function<QString(const QString &)> check) { m_sharedUrlCheck = std::move(check); }
    const SettingsCluster &cluster() const { return m_cluster; }
    // What Test connection found (or that it failed), shown under the URL.
    void setSharedStoreTestResult(const QString &text);

Q_SIGNALS:
    void settingsChanged();
    // The user asked to start (on) or stop recording `context` in the background.
    void backgroundRecordingRequested(const QString &context, bool on);
    // Test connection was pressed for this URL.
    void sharedStoreTestRequested(const QString &url);

private:
    QSpinBox *m_retention;
    QLineEdit *m_manager;
    ConsentDecisionsView *m_consent = nullptr;
    QCheckBox *m_secretValues = nullptr;
    QLineEdit *m_backgroundResources = nullptr;
    QLabel *m_backgroundStatus = nullptr;
    QRadioButton *m_sharedStore = nullptr;
    QLineEdit *m_sharedUrl = nullptr;
    QLabel *m_sharedStatus = nullptr;
    std::function<QString(const QString &)> m_sharedUrlCheck;
    SettingsCluster m_cluster;
    QWidget *makeHistoryBox();
    QWidget *makeBackgroundBox(const QString &context);
    // OK: checks the shared store's URL (the dialog stays open on a bad one), then saves.
    void saveAndAccept();
};

} // namespace fieldscope::widgets
