#pragma once
// The keyboard shortcuts help (F1) and the settings dialog (Ctrl+,). Settings are kept in
// QSettings under the keys named in settingsdialog: "history/versionsPerObject",
// "writes/fieldManager".
#include <QDialog>

class QAction;
class QCheckBox;
class QLineEdit;
class QSpinBox;

namespace fieldscope::widgets {

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

class SettingsDialog : public QDialog
{
    Q_OBJECT
public:
    // `context`: the shown cluster's context, whose per-context options the dialog offers.
    explicit SettingsDialog(QWidget *parent = nullptr, const QString &context = {});
    static int historyVersionsPerObject();     // default 50
    static QString fieldManager();             // default "fieldscope"
    // The opt-in to record Secret values (history, drafts) for one context; default off.
    static bool recordsSecretValues(const QString &context);
    static void setRecordsSecretValues(const QString &context, bool on);

Q_SIGNALS:
    void settingsChanged();

private:
    QSpinBox *m_retention;
    QLineEdit *m_manager;
    QCheckBox *m_secretValues = nullptr;
    QString m_context;
};

} // namespace fieldscope::widgets
