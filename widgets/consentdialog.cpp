#include "widgets/consentdialog.h"

#include <QBoxLayout>
#include <QCoreApplication>
#include <QEventLoop>
#include <QFrame>
#include <QLabel>
#include <QPointer>
#include <QPushButton>

namespace fieldscope::widgets {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("ConsentDialog", text);
}

QFrame *buildPrompt(QWidget *host, const QString &kubeconfigFile, const QString &commandLine, QPushButton **allow, QPushButton **deny)
{
    auto *frame = new QFrame(host);
    frame->setObjectName(QStringLiteral("execConsentPrompt"));
    frame->setFrameShape(QFrame::StyledPanel);
    auto *layout = new QHBoxLayout(frame);
    auto *text = new QLabel(frame);
    text->setObjectName(QStringLiteral("execConsentText"));
    text->setWordWrap(true);
    text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    text->setText(tr("<b>Run a credential plugin?</b> The kubeconfig <b>%1</b> asks Fieldscope to run this program to "
                     "get credentials:<pre>%2</pre>It runs with your rights. Allow it only if you trust this kubeconfig; "
                     "the answer is remembered for this file and command.")
                      .arg(kubeconfigFile.toHtmlEscaped(), commandLine.toHtmlEscaped()));
    *allow = new QPushButton(tr("Allow"), frame);
    (*allow)->setObjectName(QStringLiteral("execConsentAllow"));
    *deny = new QPushButton(tr("Deny"), frame);
    (*deny)->setObjectName(QStringLiteral("execConsentDeny"));
    (*deny)->setDefault(true);
    layout->addWidget(text, 1);
    layout->addWidget(*allow);
    layout->addWidget(*deny);
    return frame;
}

} // namespace

bool askExecPluginConsent(QWidget *host, const QString &kubeconfigFile, const QString &commandLine)
{
    auto *box = host ? qobject_cast<QBoxLayout *>(host->layout()) : nullptr;
    if (!box)
        return false; // nowhere to ask: never run a program nobody agreed to
    QPushButton *allow = nullptr, *deny = nullptr;
    QPointer<QFrame> prompt = buildPrompt(host, kubeconfigFile, commandLine, &allow, &deny);
    box->insertWidget(1, prompt); // under the connection banner
    deny->setFocus();
    bool allowed = false;
    QEventLoop loop;
    QObject::connect(allow, &QPushButton::clicked, &loop, [&] { allowed = true; loop.quit(); });
    QObject::connect(deny, &QPushButton::clicked, &loop, &QEventLoop::quit);
    QObject::connect(prompt, &QObject::destroyed, &loop, &QEventLoop::quit); // the tab was closed
    loop.exec();
    if (prompt)
        prompt->deleteLater();
    return allowed;
}

} // namespace fieldscope::widgets
