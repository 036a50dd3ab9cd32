#include "widgets/consentdialog.h"

#include "widgets/plaintext.h"

#include <QBoxLayout>
#include <QColor>
#include <QCoreApplication>
#include <QFont>
#include <QFontDatabase>
#include <QFrame>
#include <QLabel>
#include <QPalette>
#include <QPushButton>

#include <memory>
#include <utility>

namespace fieldscope::widgets {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("ConsentDialog", text);
}

QLabel *plainLabel(QWidget *parent, const QString &objectName, const QString &text)
{
    auto *l = new QLabel(parent);
    l->setObjectName(objectName);
    l->setTextFormat(Qt::PlainText); // kubeconfig strings: "<b>" shows as "<b>"
    l->setWordWrap(true);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    l->setText(visibleText(text, true)); // and control/bidi characters visible (the file name too)
    return l;
}

} // namespace

QWidget *askExecPluginConsent(QWidget *host, const ExecConsentQuestion &q, std::function<void(ConsentChoice)> answered)
{
    // Exactly one answer: a click, or NotNow when the prompt is destroyed unanswered.
    auto once = std::make_shared<std::function<void(ConsentChoice)>>(std::move(answered));
    auto answer = [once](ConsentChoice c) {
        if (auto f = std::exchange(*once, nullptr))
            f(c);
    };
    auto *box = host ? qobject_cast<QBoxLayout *>(host->layout()) : nullptr;
    if (!box) {
        answer(ConsentChoice::NotNow);
        return nullptr;
    }
    auto *frame = new QFrame(host);
    frame->setObjectName(QStringLiteral("execConsentPrompt"));
    frame->setFrameShape(QFrame::StyledPanel);
    auto *outer = new QVBoxLayout(frame);
    outer->addWidget(
        plainLabel(frame, QStringLiteral("execConsentTitle"),
                   tr("Run a credential plugin? The kubeconfig %1 asks Fieldscope to run a program to get credentials. "
                      "It runs with your rights. Allow it only if you trust this kubeconfig; the answer is remembered "
                      "for exactly this command, arguments, environment and server.")
                       .arg(q.kubeconfigFile)));
    auto *details = plainLabel(frame, QStringLiteral("execConsentText"), q.details);
    details->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    outer->addWidget(details);
    if (!q.warnings.isEmpty()) {
        auto *warn = plainLabel(frame, QStringLiteral("execConsentWarning"),
                                tr("These variables can make the plugin run something else:") + u'\n'
                                    + q.warnings.join(u'\n'));
        QFont bold = warn->font();
        bold.setBold(true);
        warn->setFont(bold);
        QPalette pal = warn->palette();
        pal.setColor(QPalette::WindowText, QColor(0xc0, 0x20, 0x20));
        warn->setPalette(pal);
        outer->addWidget(warn);
    }
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    auto *allow = new QPushButton(tr("Allow"), frame);
    allow->setObjectName(QStringLiteral("execConsentAllow"));
    auto *deny = new QPushButton(tr("Deny"), frame);
    deny->setObjectName(QStringLiteral("execConsentDeny"));
    auto *later = new QPushButton(tr("Not now"), frame);
    later->setObjectName(QStringLiteral("execConsentNotNow"));
    later->setToolTip(
        tr("Do not run it and do not remember anything; the question comes back on the next connection."));
    deny->setDefault(true);
    buttons->addWidget(allow);
    buttons->addWidget(deny);
    buttons->addWidget(later);
    outer->addLayout(buttons);

    auto close = [frame, answer](ConsentChoice c) {
        answer(c);
        frame->deleteLater();
    };
    QObject::connect(allow, &QPushButton::clicked, frame, [close] { close(ConsentChoice::Allow); });
    QObject::connect(deny, &QPushButton::clicked, frame, [close] { close(ConsentChoice::Deny); });
    QObject::connect(later, &QPushButton::clicked, frame, [close] { close(ConsentChoice::NotNow); });
    // The tab was closed or the app quits: "not now", never a remembered Deny.
    QObject::connect(frame, &QObject::destroyed, QCoreApplication::instance(),
                     [answer] { answer(ConsentChoice::NotNow); });
    box->insertWidget(1, frame); // under the connection banner
    deny->setFocus();
    return frame;
}

QWidget *askKeepRecordingSecretValues(QWidget *host, const QString &context, const QString &server,
                                      std::function<void(bool)> answered)
{
    auto *box = host ? qobject_cast<QBoxLayout *>(host->layout()) : nullptr;
    if (!box)
        return nullptr; // unanswered: nothing is recorded in clear
    auto *frame = new QFrame(host);
    frame->setObjectName(QStringLiteral("keepSecretValuesPrompt"));
    frame->setFrameShape(QFrame::StyledPanel);
    auto *outer = new QHBoxLayout(frame);
    outer->addWidget(
        plainLabel(frame, QStringLiteral("keepSecretValuesText"),
                   tr("Keep recording Secret values for this cluster? You chose to record them for the context \"%1\"; "
                      "that choice now belongs to one cluster, and this context reaches %2. Until you answer, "
                      "Secret values of this cluster are recorded only as hashes.")
                       .arg(context, server)),
        1);
    auto *keep = new QPushButton(tr("Keep recording them"), frame);
    keep->setObjectName(QStringLiteral("keepSecretValuesYes"));
    auto *stop = new QPushButton(tr("Record only hashes"), frame);
    stop->setObjectName(QStringLiteral("keepSecretValuesNo"));
    stop->setDefault(true);
    outer->addWidget(keep);
    outer->addWidget(stop);
    auto done = [frame, answered = std::move(answered)](bool yes) {
        answered(yes);
        frame->deleteLater();
    };
    QObject::connect(keep, &QPushButton::clicked, frame, [done] { done(true); });
    QObject::connect(stop, &QPushButton::clicked, frame, [done] { done(false); });
    box->insertWidget(1, frame);
    return frame;
}

} // namespace fieldscope::widgets
