#include "widgets/helpdialogs.h"

#include "widgets/consentdecisionsview.h"
#include "widgets/plaintext.h"

#include <QAction>
#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace fieldscope::widgets {

// Keys handled inside views rather than by the window's menu actions.
QList<QPair<QString, QString>> ShortcutsDialog::keysInViews()
{
    return {
        {tr("↑ ↓ / Page Up / Page Down"), tr("Move in lists and tables")},
        {tr("Enter (kinds list, Find a kind)"), tr("Show the chosen kind's objects")},
        {tr("Enter (object table)"), tr("Go into the object's detail (the current tab)")},
        {tr("Esc (detail)"), tr("Back to the object table")},
        {tr("↓ or Enter (filter)"), tr("Into the table")},
        {tr("Esc (filter)"), tr("Clear the filter")},
        {tr("Ctrl+click (namespaces)"), tr("Show several namespaces")},
        {tr("F (kinds list)"), tr("Pin or unpin the chosen kind")},
        {tr("↑ ↓ (History)"), tr("Step through versions; the diff follows")},
        {tr("Ctrl+click (History)"), tr("Compare any two versions")},
        {tr("Ctrl+Return (editor)"), tr("Write the buffer")},
        {tr("Enter (context list)"), tr("Open the chosen context")},
    };
}

// Every window action with a key, as its menu names it: the list cannot miss one.
QList<QPair<QString, QString>> ShortcutsDialog::shortcuts(const QList<QAction *> &windowActions)
{
    QList<QPair<QString, QString>> rows;
    for (const QAction *a : windowActions)
        if (!a->shortcut().isEmpty())
            rows.append({a->shortcut().toString(QKeySequence::NativeText),
                         QString(a->text()).remove(u'&').remove(u'…')});
    return rows + keysInViews();
}

ShortcutsDialog::ShortcutsDialog(const QList<QAction *> &windowActions, QWidget *parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("shortcutsDialog"));
    setWindowTitle(tr("Keyboard shortcuts"));
    resize(620, 560);
    auto *layout = new QVBoxLayout(this);
    const auto list = shortcuts(windowActions);
    auto *table = new QTableWidget(int(list.size()), 2, this);
    table->setObjectName(QStringLiteral("shortcutsTable"));
    table->setHorizontalHeaderLabels({tr("Keys"), tr("Action")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setShowGrid(false);
    table->horizontalHeader()->setStretchLastSection(true);
    table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft);
    for (int i = 0; i < list.size(); ++i) {
        table->setItem(i, 0, new QTableWidgetItem(list[i].first));
        table->setItem(i, 1, new QTableWidgetItem(list[i].second));
    }
    table->resizeColumnToContents(0);
    layout->addWidget(table);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

int SettingsDialog::historyVersionsPerObject()
{
    return QSettings().value(QStringLiteral("history/versionsPerObject"), 1000).toInt();
}

QString SettingsDialog::fieldManager()
{
    return QSettings().value(QStringLiteral("writes/fieldManager"), QStringLiteral("fieldscope")).toString();
}

namespace {
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
} // namespace

QString SettingsDialog::backgroundResources()
{
    return QSettings()
        .value(QStringLiteral("background/resources"),
               QStringLiteral("deployments,statefulsets,daemonsets,configmaps,services"))
        .toString();
}

QString SettingsDialog::sharedHistoryUrl()
{
    return QSettings().value(QStringLiteral("history/sharedUrl")).toString().trimmed();
}

void SettingsDialog::setSharedHistoryUrl(const QString &url)
{
    QSettings s;
    if (url.trimmed().isEmpty())
        s.remove(QStringLiteral("history/sharedUrl"));
    else
        s.setValue(QStringLiteral("history/sharedUrl"), url.trimmed());
}

void SettingsDialog::setSharedStoreTestResult(const QString &text)
{
    if (!m_sharedStatus)
        return;
    m_sharedStatus->setText(visibleText(text, true));
    // A wrapped answer needs more lines than the empty label had: grow the dialog to show them.
    if (isVisible()) {
        layout()->activate();
        resize(width(), std::max(height(), sizeHint().height()));
    }
}

QWidget *SettingsDialog::makeHistoryBox()
{
    auto *box = new QGroupBox(tr("History"), this);
    auto *v = new QVBoxLayout(box);
    auto *local = new QRadioButton(tr("On this computer (a file per cluster)"), box);
    local->setObjectName(QStringLiteral("historyOnThisComputer"));
    m_sharedStore = new QRadioButton(tr("Shared with the team (PostgreSQL)"), box);
    m_sharedStore->setObjectName(QStringLiteral("historyShared"));
    m_sharedUrl = new QLineEdit(sharedHistoryUrl(), box);
    m_sharedUrl->setObjectName(QStringLiteral("sharedHistoryUrl"));
    m_sharedUrl->setPlaceholderText(QStringLiteral("postgresql://history.example.com/fieldscope?sslmode=verify-full"));
    m_sharedUrl->setToolTip(plainToolTip(
        tr("A libpq connection URL. Passwords never go here: libpq reads them from ~/.pgpass, the PGPASSWORD "
           "environment or a service file. Every window and recorder pointed at the same database shares one "
           "history per cluster.")));
    auto *test = new QPushButton(tr("Test connection"), box);
    test->setObjectName(QStringLiteral("testSharedHistory"));
    m_sharedStatus = plainLabel(new QLabel(box));
    m_sharedStatus->setObjectName(QStringLiteral("sharedHistoryStatus"));
    m_sharedStatus->setWordWrap(true);
    auto *urlRow = new QHBoxLayout;
    urlRow->addWidget(m_sharedUrl, 1);
    urlRow->addWidget(test);
    v->addWidget(local);
    v->addWidget(m_sharedStore);
    v->addLayout(urlRow);
    v->addWidget(m_sharedStatus);
    const bool shared = !sharedHistoryUrl().isEmpty();
    (shared ? m_sharedStore : local)->setChecked(true);
    auto enable = [this, test] {
        m_sharedUrl->setEnabled(m_sharedStore->isChecked());
        test->setEnabled(m_sharedStore->isChecked());
    };
    enable();
    connect(m_sharedStore, &QRadioButton::toggled, this, enable);
    connect(test, &QPushButton::clicked, this, [this] {
        const QString url = m_sharedUrl->text().trimmed();
        const QString why = m_sharedUrlCheck ? m_sharedUrlCheck(url) : QString();
        if (!why.isEmpty()) {
            setSharedStoreTestResult(why);
            return;
        }
        setSharedStoreTestResult(tr("Connecting…"));
        Q_EMIT sharedStoreTestRequested(url);
    });
    return box;
}

void SettingsDialog::setBackgroundRecordingStatus(const QString &text)
{
    if (m_backgroundStatus)
        m_backgroundStatus->setText(visibleText(text, true));
}

bool SettingsDialog::recordsSecretValues(const QString &clusterIdentity)
{
    return !clusterIdentity.isEmpty() && QSettings().value(secretValuesKey(clusterIdentity), false).toBool();
}

void SettingsDialog::setRecordsSecretValues(const QString &clusterIdentity, bool on)
{
    if (clusterIdentity.isEmpty())
        return;
    QSettings s;
    if (on)
        s.setValue(secretValuesKey(clusterIdentity), true);
    else
        s.remove(secretValuesKey(clusterIdentity));
}

bool SettingsDialog::hadLegacySecretValuesOptIn(const QString &context)
{
    return !context.isEmpty() && QSettings().value(legacySecretValuesKey(context), false).toBool();
}

void SettingsDialog::removeLegacySecretValuesOptIn(const QString &context)
{
    QSettings().remove(legacySecretValuesKey(context));
}

SettingsDialog::SettingsDialog(QWidget *parent, const SettingsCluster &cluster) : QDialog(parent), m_cluster(cluster)
{
    const QString &context = cluster.context;
    setObjectName(QStringLiteral("settingsDialog"));
    setWindowTitle(tr("Settings"));
    auto *layout = new QVBoxLayout(this);
    auto *form = new QFormLayout;
    m_retention = new QSpinBox(this);
    m_retention->setObjectName(QStringLiteral("historyRetention"));
    m_retention->setRange(2, 100000);
    m_retention->setValue(historyVersionsPerObject());
    m_retention->setSuffix(tr(" versions per object"));
    m_manager = new QLineEdit(fieldManager(), this);
    m_manager->setObjectName(QStringLiteral("fieldManagerEdit"));
    m_manager->setToolTip(tr("The fieldManager name Fieldscope writes with; it appears in managedFields."));
    form->addRow(tr("History kept:"), m_retention);
    form->addRow(tr("Field manager name:"), m_manager);
    if (!cluster.identity.isEmpty()) {
        // Kubeconfig strings: '&' is no mnemonic, controls and bidi characters show as escapes.
        m_secretValues =
            new QCheckBox(tr("Record Secret values for this cluster (context \"%1\")").arg(actionText(context)), this);
        m_secretValues->setObjectName(QStringLiteral("recordSecretValues"));
        m_secretValues->setChecked(recordsSecretValues(cluster.identity));
        m_secretValues->setToolTip(plainToolTip(
            tr("For the cluster at %1, whichever context reaches it. Off (the default): the history keeps each Secret value "
               "only as a keyed hash (which key changed, which versions are equal) and a Secret's unsent edits are never "
               "written to disk. On: values are stored in the history database and in drafts, readable by anyone who can "
               "read those files.")
                .arg(cluster.server)));
        form->addRow(tr("Secrets:"), m_secretValues);
    }
    layout->addLayout(form);
    layout->addWidget(makeHistoryBox());
    if (!context.isEmpty())
        layout->addWidget(makeBackgroundBox(context));
    auto *consentBox = new QGroupBox(tr("Exec credential plugins you answered about"), this);
    auto *consentLayout = new QVBoxLayout(consentBox);
    m_consent = new ConsentDecisionsView(consentBox);
    consentLayout->addWidget(m_consent);
    layout->addWidget(consentBox);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &SettingsDialog::saveAndAccept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

QWidget *SettingsDialog::makeBackgroundBox(const QString &context)
{
    auto *bg = new QGroupBox(tr("Background recording"), this);
    auto *bgLayout = new QFormLayout(bg);
    m_backgroundResources = new QLineEdit(backgroundResources(), bg);
    m_backgroundResources->setObjectName(QStringLiteral("backgroundResources"));
    m_backgroundResources->setToolTip(
        tr("Comma-separated resource types recorded in all namespaces while no window runs."));
    bgLayout->addRow(tr("Resources:"), m_backgroundResources);
    m_backgroundStatus = plainLabel(new QLabel(bg));
    m_backgroundStatus->setObjectName(QStringLiteral("backgroundStatus"));
    m_backgroundStatus->setWordWrap(true);
    auto *buttons = new QHBoxLayout;
    auto *start = new QPushButton(tr("Record \"%1\" in the background").arg(actionText(context)), bg);
    start->setObjectName(QStringLiteral("startBackgroundRecording"));
    start->setToolTip(
        tr("Runs: systemctl --user enable --now fieldscope-record@CONTEXT (starts now and at every login)"));
    auto *stop = new QPushButton(tr("Stop"), bg);
    stop->setObjectName(QStringLiteral("stopBackgroundRecording"));
    buttons->addWidget(start);
    buttons->addWidget(stop);
    buttons->addStretch();
    bgLayout->addRow(m_backgroundStatus);
    bgLayout->addRow(buttons);
    connect(start, &QPushButton::clicked, this, [this] {
        QSettings().setValue(QStringLiteral("background/resources"), m_backgroundResources->text().simplified());
        Q_EMIT backgroundRecordingRequested(m_cluster.context, true);
    });
    connect(stop, &QPushButton::clicked, this,
            [this] { Q_EMIT backgroundRecordingRequested(m_cluster.context, false); });
    return bg;
}

void SettingsDialog::saveAndAccept()
{
    const QString url = m_sharedStore->isChecked() ? m_sharedUrl->text().trimmed() : QString();
    if (m_sharedStore->isChecked()) {
        const QString why = url.isEmpty()    ? tr("Enter the shared database's URL, or keep history on this computer.")
                          : m_sharedUrlCheck ? m_sharedUrlCheck(url)
                                             : QString();
        if (!why.isEmpty()) {
            setSharedStoreTestResult(why);
            m_sharedUrl->setFocus();
            return; // the dialog stays open with what the user typed
        }
    }
    setSharedHistoryUrl(url);
    QSettings s;
    s.setValue(QStringLiteral("history/versionsPerObject"), m_retention->value());
    const QString m = m_manager->text().trimmed();
    s.setValue(QStringLiteral("writes/fieldManager"), m.isEmpty() ? QStringLiteral("fieldscope") : m);
    if (m_secretValues)
        setRecordsSecretValues(m_cluster.identity, m_secretValues->isChecked());
    if (m_backgroundResources && !m_backgroundResources->text().trimmed().isEmpty())
        s.setValue(QStringLiteral("background/resources"), m_backgroundResources->text().simplified());
    accept();
    Q_EMIT settingsChanged();
}

} // namespace fieldscope::widgets
