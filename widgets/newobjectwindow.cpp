#include "widgets/newobjectwindow.h"

#include "widgets/plaintext.h"
#include "widgets/yamlview.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace fieldscope::widgets {

NewObjectWindow::NewObjectWindow(const QString &context, QWidget *parent)
    : QWidget(parent, Qt::Window)
    , m_buffer(new YamlView(this))
    , m_dryRun(new QPushButton(tr("Dry run"), this))
    , m_create(new QPushButton(tr("Create"), this))
    , m_status(plainLabel(new QLabel(this)))
    , m_results(new QTextBrowser(this))
{
    setObjectName(QStringLiteral("newObjectWindow"));
    setWindowTitle(tr("New object on %1").arg(visibleText(context)));
    m_buffer->setObjectName(QStringLiteral("newObjectBuffer"));
    m_buffer->setReadOnly(false);
    m_buffer->setText(QStringLiteral(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \n  namespace: default\ndata:\n  key: value\n"));
    m_dryRun->setObjectName(QStringLiteral("newObjectDryRun"));
    m_dryRun->setToolTip(tr("The server validates and answers, nothing is stored"));
    m_create->setObjectName(QStringLiteral("newObjectCreate"));
    m_create->setToolTip(tr("Create each object; one that exists already is reported and left as it is"));
    m_create->setDefault(true);
    m_results->setObjectName(QStringLiteral("newObjectResults"));
    m_status->setWordWrap(true);
    m_status->setText(
        tr("Paste or write one object, or several separated by ---, or a List. Objects without a namespace go "
           "to the context's."));
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_status, 1);
    buttons->addWidget(m_dryRun);
    buttons->addWidget(m_create);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_buffer, 3);
    layout->addLayout(buttons);
    layout->addWidget(m_results, 1);
    connect(m_dryRun, &QPushButton::clicked, this, [this] { Q_EMIT createRequested(text(), true); });
    connect(m_create, &QPushButton::clicked, this, [this] { Q_EMIT createRequested(text(), false); });
    resize(900, 700);
}

QString NewObjectWindow::text() const
{
    return m_buffer->text();
}

void NewObjectWindow::setText(const QString &yaml)
{
    m_buffer->setText(yaml);
}

void NewObjectWindow::setBusy(bool busy)
{
    m_dryRun->setEnabled(!busy);
    m_create->setEnabled(!busy);
    if (busy)
        m_status->setText(tr("Sending…"));
}

void NewObjectWindow::showResults(const QStringList &lines, bool allCreated)
{
    setBusy(false);
    m_status->setText(allCreated ? tr("Done.") : tr("Not everything was created: see below. Your text is unchanged."));
    m_results->setPlainText(visibleText(lines.join(u'\n'), true));
}

QString NewObjectWindow::resultsText() const
{
    return m_results->toPlainText();
}

} // namespace fieldscope::widgets
