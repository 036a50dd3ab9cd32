// The plain-text helpers every widget uses for server and kubeconfig strings (README.md, Security).
#include "widgets/plaintext.h"

#include <QApplication>
#include <QLabel>
#include <QStandardItemModel>
#include <QTest>
#include <QTextDocument>
#include <QTreeView>

using namespace fieldscope::widgets;

namespace {
const QString kHostile = QStringLiteral("<img src=\"/dev/zero\"><b>x</b>");
QString renderedToolTip(const QString &tip)
{
    if (!Qt::mightBeRichText(tip))
        return tip;
    QTextDocument doc;
    doc.setHtml(tip);
    return doc.toPlainText();
}
} // namespace

class TestPlainText : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void toolTipsShowMarkupLiterally_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("tags") << kHostile;
        QTest::newRow("entity") << QStringLiteral("a &lt; b");
        QTest::newRow("plain") << QStringLiteral("kubectl-client-side-apply");
        QTest::newRow("multi-line with tags") << QStringLiteral("<b>one</b>\ntwo");
    }
    void toolTipsShowMarkupLiterally()
    {
        QFETCH(QString, text);
        QCOMPARE(renderedToolTip(plainToolTip(text))
                     .replace(QChar::LineSeparator, u'\n')
                     .replace(QChar::ParagraphSeparator, u'\n'),
                 text);
    }

    void bidiAndControlCharactersBecomeVisible()
    {
        QCOMPARE(visibleText(QStringLiteral("evil") + QChar(0x202E) + QStringLiteral("txt.exe")),
                 QStringLiteral("evil\\u202etxt.exe"));
        QCOMPARE(visibleText(QStringLiteral("a\tb\nc")), QStringLiteral("a\\u0009b\\u000ac"));
        QCOMPARE(visibleText(QStringLiteral("a\nb"), true), QStringLiteral("a\nb"));
        QCOMPARE(visibleText(QStringLiteral("zero") + QChar(0x200B) + QStringLiteral("width")),
                 QStringLiteral("zero\\u200bwidth"));
        const QString ordinary = QStringLiteral("Grüße, 日本語, עברית");
        QCOMPARE(visibleText(ordinary), ordinary); // scripts are not escapes
    }

    void richEscapedAndActionTexts()
    {
        QTextDocument doc;
        doc.setHtml(QStringLiteral("<p>") + richEscaped(kHostile) + QStringLiteral("</p>"));
        QCOMPARE(doc.toPlainText(), kHostile);
        QCOMPARE(actionText(QStringLiteral("dev&prod")), QStringLiteral("dev&&prod"));
        QLabel l;
        QCOMPARE(plainLabel(&l)->textFormat(), Qt::PlainText);
    }

    void delegateShowsVisibleTextAndPlainToolTips()
    {
        QStandardItemModel model(1, 1);
        model.setData(model.index(0, 0), kHostile + QChar(0x202E) + QStringLiteral("x"));
        model.setData(model.index(0, 0), kHostile, Qt::ToolTipRole);
        QTreeView view;
        view.setModel(&model);
        showPlainText(&view);
        auto *d = qobject_cast<PlainTextDelegate *>(view.itemDelegate());
        QVERIFY(d);
        QCOMPARE(d->displayText(model.index(0, 0).data(), QLocale()), kHostile + QStringLiteral("\\u202ex"));
    }
};

QTEST_MAIN(TestPlainText)
#include "tst_plaintext.moc"
