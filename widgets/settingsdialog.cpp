#include "widgets/settingsdialog.h"

#include "widgets/consentdecisionsview.h"
#include "widgets/plaintext.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace fieldscope::widgets {

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
    m_localStore = new QRadioButton(tr("On this computer (a file per cluster)"), box);
    m_localStore->setObjectName(QStringLiteral("historyOnThisComputer"));
    m_sharedStore = new QRadioButton(tr("Shared with the team (PostgreSQL)"), box);
    m_sharedStore->setObjectName(QStringLiteral("historyShared"));
    m_sharedUrl = new QLineEdit(box);
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
    v->addWidget(m_localStore);
    v->addWidget(m_sharedStore);
    v->addLayout(urlRow);
    v->addWidget(m_sharedStatus);
    m_localStore->setChecked(true);
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

SettingsDialog::SettingsDialog(QWidget *parent, const SettingsCluster &cluster) : QDialog(parent), m_cluster(cluster)
{
    const QString &context = cluster.context;
    setObjectName(QStringLiteral("settingsDialog"));
    setWindowTitle(tr("Settings"));
    auto *layout = new QVBoxLayout(this);
    auto *form = new QFormLayout;
    m_retention = new QSpinBox(this);
    m_retention->setObjectName(QStringLiteral("historyRetention"));
    m_retention->setRange(m_values.minVersionsPerObject, m_values.maxVersionsPerObject);
    m_retention->setSuffix(tr(" versions per object"));
    m_manager = new QLineEdit(this);
    m_manager->setObjectName(QStringLiteral("fieldManagerEdit"));
    m_manager->setToolTip(tr("The fieldManager name Fieldscope writes with; it appears in managedFields."));
    form->addRow(tr("History kept:"), m_retention);
    form->addRow(tr("Field manager name:"), m_manager);
    if (!cluster.identity.isEmpty()) {
        // Kubeconfig strings: '&' is no mnemonic, controls and bidi characters show as escapes.
        m_secretValues =
            new QCheckBox(tr("Record Secret values for this cluster (context \"%1\")").arg(actionText(context)), this);
        m_secretValues->setObjectName(QStringLiteral("recordSecretValues"));
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
    m_problem = plainLabel(new QLabel(this));
    m_problem->setObjectName(QStringLiteral("settingsProblem"));
    m_problem->setWordWrap(true);
    m_problem->hide();
    layout->addWidget(m_problem);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &SettingsDialog::checkAndAccept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

QWidget *SettingsDialog::makeBackgroundBox(const QString &context)
{
    auto *bg = new QGroupBox(tr("Background recording"), this);
    auto *bgLayout = new QFormLayout(bg);
    m_backgroundResources = new QLineEdit(bg);
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
        Q_EMIT backgroundRecordingRequested(m_cluster.context, true, m_backgroundResources->text().simplified());
    });
    connect(stop, &QPushButton::clicked, this, [this] {
        Q_EMIT backgroundRecordingRequested(m_cluster.context, false, m_backgroundResources->text().simplified());
    });
    return bg;
}

void SettingsDialog::setValues(const SettingsValues &values)
{
    m_values = values;
    m_retention->setRange(values.minVersionsPerObject, values.maxVersionsPerObject);
    m_retention->setValue(values.versionsPerObject);
    m_manager->setText(values.fieldManager);
    if (m_secretValues)
        m_secretValues->setChecked(values.recordSecretValues);
    if (m_backgroundResources)
        m_backgroundResources->setText(values.backgroundResources);
    m_sharedUrl->setText(values.sharedHistoryUrl);
    (values.sharedHistoryUrl.isEmpty() ? m_localStore : m_sharedStore)->setChecked(true);
}

SettingsValues SettingsDialog::values() const
{
    SettingsValues v = m_values;
    v.versionsPerObject = m_retention->value();
    v.fieldManager = m_manager->text().trimmed();
    if (m_secretValues)
        v.recordSecretValues = m_secretValues->isChecked();
    if (m_backgroundResources)
        v.backgroundResources = m_backgroundResources->text().simplified();
    v.sharedHistoryUrl = m_sharedStore->isChecked() ? m_sharedUrl->text().trimmed() : QString();
    return v;
}

void SettingsDialog::setProblem(const QString &text)
{
    m_problem->setText(visibleText(text, true));
    m_problem->setVisible(!text.isEmpty());
}

void SettingsDialog::checkAndAccept()
{
    const SettingsValues v = values();
    if (m_sharedStore->isChecked()) {
        const QString why = v.sharedHistoryUrl.isEmpty()
                              ? tr("Enter the shared database's URL, or keep history on this computer.")
                          : m_sharedUrlCheck ? m_sharedUrlCheck(v.sharedHistoryUrl)
                                             : QString();
        if (!why.isEmpty()) {
            setSharedStoreTestResult(why);
            m_sharedUrl->setFocus();
            return; // the dialog stays open with what the user typed
        }
    }
    if (const QString why = m_valuesCheck ? m_valuesCheck(v) : QString(); !why.isEmpty()) {
        setProblem(why);
        return;
    }
    setProblem({});
    accept();
    Q_EMIT settingsAccepted(v);
}

} // namespace fieldscope::widgets
