// The exec-plugin question and the remembered decisions in Settings, without a cluster: the
// question never waits (it answers through a callback, exactly once, "not now" when its view goes
// away), shows kubeconfig strings as plain text, and Settings lists decisions and asks to forget
// the selected ones.
#include "widgets/consentdecisionsview.h"
#include "widgets/consentdialog.h"

#include <QApplication>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <QVBoxLayout>

#include <memory>

using namespace fieldscope::widgets;

namespace {

// A stand-in for a cluster view: a box layout with a banner, where the question is inserted.
std::unique_ptr<QWidget> hostWidget()
{
    auto host = std::make_unique<QWidget>();
    auto *layout = new QVBoxLayout(host.get());
    layout->addWidget(new QLabel(QStringLiteral("banner"), host.get()));
    layout->addWidget(new QWidget(host.get()));
    host->resize(700, 400);
    host->show();
    return host;
}

ExecConsentQuestion hostileQuestion()
{
    ExecConsentQuestion q;
    q.kubeconfigFile = QStringLiteral("/tmp/<b>colleague</b>.yaml");
    q.details = QStringLiteral(
        "  context:  <img src=\"/dev/zero\"><b>x</b>\n  server:   https://api.example:6443\n  command:  evil\\u202efdp.exe");
    q.warnings = {QStringLiteral("env LD_PRELOAD: can change what runs")};
    return q;
}

} // namespace

class TestConsentWidgets : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void questionShowsKubeconfigStringsAsPlainTextAndAnswersOnce()
    {
        auto host = hostWidget();
        QList<ConsentChoice> answers;
        QWidget *prompt = askExecPluginConsent(host.get(), hostileQuestion(), [&](ConsentChoice c) { answers << c; });
        QVERIFY(prompt);
        QVERIFY(answers.isEmpty()); // returned at once, unanswered
        for (const char *name : {"execConsentTitle", "execConsentText", "execConsentWarning"}) {
            auto *label = prompt->findChild<QLabel *>(QLatin1String(name));
            QVERIFY2(label, name);
            QCOMPARE(label->textFormat(), Qt::PlainText);
        }
        QCOMPARE(prompt->findChild<QLabel *>(QStringLiteral("execConsentText"))->text(), hostileQuestion().details);
        QVERIFY(prompt->findChild<QLabel *>(QStringLiteral("execConsentTitle"))
                    ->text()
                    .contains(QLatin1String("/tmp/<b>colleague</b>.yaml")));
        QVERIFY(prompt->findChild<QLabel *>(QStringLiteral("execConsentWarning"))
                    ->text()
                    .contains(QLatin1String("LD_PRELOAD")));
        QTest::mouseClick(prompt->findChild<QPushButton *>(QStringLiteral("execConsentAllow")), Qt::LeftButton);
        QCOMPARE(answers, QList<ConsentChoice>{ConsentChoice::Allow});
        QTRY_VERIFY(!host->findChild<QWidget *>(QStringLiteral("execConsentPrompt")));
        QCOMPARE(answers.size(), 1); // its destruction does not answer again
    }

    void denyAndNotNowAreDistinctAnswers_data()
    {
        QTest::addColumn<QString>("button");
        QTest::addColumn<int>("choice");
        QTest::newRow("deny") << QStringLiteral("execConsentDeny") << int(ConsentChoice::Deny);
        QTest::newRow("not now") << QStringLiteral("execConsentNotNow") << int(ConsentChoice::NotNow);
    }
    void denyAndNotNowAreDistinctAnswers()
    {
        QFETCH(QString, button);
        QFETCH(int, choice);
        auto host = hostWidget();
        QList<ConsentChoice> answers;
        QWidget *prompt = askExecPluginConsent(host.get(), hostileQuestion(), [&](ConsentChoice c) { answers << c; });
        QTest::mouseClick(prompt->findChild<QPushButton *>(button), Qt::LeftButton);
        QCOMPARE(answers, QList<ConsentChoice>{ConsentChoice(choice)});
    }

    // Closing the tab (or quitting) while the question is open: "not now", never a Deny.
    void closingTheViewAnswersNotNow()
    {
        auto host = hostWidget();
        QList<ConsentChoice> answers;
        askExecPluginConsent(host.get(), hostileQuestion(), [&](ConsentChoice c) { answers << c; });
        host.reset();
        QCOMPARE(answers, QList<ConsentChoice>{ConsentChoice::NotNow});
    }

    void aViewWithoutLayoutAnswersNotNowAtOnce()
    {
        QWidget bare;
        QList<ConsentChoice> answers;
        QVERIFY(!askExecPluginConsent(&bare, hostileQuestion(), [&](ConsentChoice c) { answers << c; }));
        QCOMPARE(answers, QList<ConsentChoice>{ConsentChoice::NotNow});
    }

    void settingsListsDecisionsAndForgetsTheSelectedOnes()
    {
        ConsentDecisionsView view;
        view.resize(900, 300);
        view.show();
        const QDateTime when(QDate(2026, 3, 1), QTime(9, 30), Qt::UTC);
        view.setDecisions({{QStringLiteral("id-1"), true, QStringLiteral("/home/u/.kube/config"),
                            QStringLiteral("prod"), QStringLiteral("/usr/bin/kubelogin"),
                            QStringLiteral("https://api.prod:6443"), when},
                           {QStringLiteral("id-2"), false, QStringLiteral("<b>/tmp/x</b>"), QStringLiteral("stage"),
                            QStringLiteral("/tmp/evil"), QStringLiteral("https://api.stage:6443"), when}});
        QTableWidget *t = view.table();
        QCOMPARE(t->rowCount(), 2);
        QCOMPARE(t->item(0, 0)->text(), QStringLiteral("allowed"));
        QCOMPARE(t->item(1, 0)->text(), QStringLiteral("denied"));
        QCOMPARE(t->item(1, 1)->text(), QStringLiteral("<b>/tmp/x</b>"));
        QCOMPARE(t->item(0, 3)->text(), QStringLiteral("/usr/bin/kubelogin"));
        QCOMPARE(t->item(0, 4)->text(), QStringLiteral("https://api.prod:6443"));
        QVERIFY(!view.forgetButton()->isEnabled());
        QSignalSpy spy(&view, &ConsentDecisionsView::forgetRequested);
        t->selectRow(1);
        QVERIFY(view.forgetButton()->isEnabled());
        QTest::mouseClick(view.forgetButton(), Qt::LeftButton);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toStringList(), QStringList{QStringLiteral("id-2")});
    }
};

QTEST_MAIN(TestConsentWidgets)
#include "tst_consentwidgets.moc"
