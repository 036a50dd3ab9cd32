// Issue 15 section 6: strings from the server and the kubeconfig are plain text in every view. A
// field manager, annotation, event message and context name of `<img src="/dev/zero"><b>x</b>`
// (with a right-to-left override where the server allows one) show those characters literally
// in the table, the tabs, the labels, the tooltips, the detail pane, the editor and the consent
// question; no label renders them as HTML, no raw bidi character reaches a widget.
#include "guitesting.h"
#include "../integration/clusterenv.h"
#include "app/clustercontroller.h"
#include "core/json.h"
#include "widgets/clusterview.h"
#include "widgets/consentdialog.h"
#include "widgets/detailpane.h"
#include "widgets/editorwindow.h"
#include "widgets/mainwindow.h"
#include "widgets/objecttablepage.h"
#include "widgets/plaintext.h"

#include <QAbstractItemView>
#include <QHelpEvent>
#include <QLabel>
#include <QPushButton>
#include <QStandardPaths>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTextDocument>
#include <QToolTip>
#include <QTreeView>
#include <QUrl>

using namespace fieldscope;

namespace {
constexpr const char *kNamespace = "hostile-text";
const QString kHostile = QStringLiteral("<img src=\"/dev/zero\"><b>x</b>");
const QString kRlo = QString(QChar(0x202E));

// What a person reads in a widget that shows `text` with `format`.
QString rendered(const QString &text, Qt::TextFormat format)
{
    if (format == Qt::PlainText || (format == Qt::AutoText && !Qt::mightBeRichText(text)))
        return text;
    QTextDocument doc;
    doc.setHtml(text);
    return doc.toPlainText();
}

// Every label of `root`: an untrusted string in it reads literally, and no raw override is there.
void checkLabels(QWidget *root, int *seen)
{
    for (QLabel *l : root->findChildren<QLabel *>()) {
        if (l->text().contains(kRlo))
            QFAIL(qPrintable(QStringLiteral("raw U+202E in label %1").arg(l->objectName())));
        if (!l->text().contains(QLatin1String("/dev/zero")))
            continue;
        ++*seen;
        const QString shown = rendered(l->text(), l->textFormat());
        QVERIFY2(shown.contains(kHostile), qPrintable(QStringLiteral("label %1 shows \"%2\"").arg(l->objectName(), shown)));
    }
}

// The tooltip a view shows for `index`, through the view's own delegate.
QString toolTipOf(QAbstractItemView *view, const QModelIndex &index)
{
    QToolTip::hideText();
    const QRect r = view->visualRect(index);
    QHelpEvent e(QEvent::ToolTip, r.center(), view->viewport()->mapToGlobal(r.center()));
    QStyleOptionViewItem opt;
    opt.rect = r;
    view->itemDelegateForIndex(index)->helpEvent(&e, view, opt, index);
    return QToolTip::text();
}
} // namespace

class TestUntrustedText : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_kubeconfig, m_context;

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        m_context = kHostile + QStringLiteral("&ctx");
        // The test cluster's context, renamed to a hostile name, in a kubeconfig of our own.
        const QString kubectl = qEnvironmentVariable("FIELDSCOPE_KUBECTL");
        m_kubeconfig = m_dir.filePath(QStringLiteral("kubeconfig"));
        QProcess view;
        view.setStandardOutputFile(m_kubeconfig);
        view.start(kubectl, {QStringLiteral("config"), QStringLiteral("view"), QStringLiteral("--raw"), QStringLiteral("--minify"), QStringLiteral("--flatten"),
                             QStringLiteral("--kubeconfig"), testing::testKubeconfig(), QStringLiteral("--context"),
                             QString::fromStdString(testing::ctxToken())});
        QVERIFY(view.waitForFinished(30000) && view.exitCode() == 0);
        QProcess rename;
        rename.start(kubectl, {QStringLiteral("config"), QStringLiteral("rename-context"), QString::fromStdString(testing::ctxToken()), m_context,
                               QStringLiteral("--kubeconfig"), m_kubeconfig});
        QVERIFY(rename.waitForFinished(30000) && rename.exitCode() == 0);

        auto c = testing::connectTo(testing::ctxToken());
        kube::ApiClient client(c.transport);
        const std::string hostile = kHostile.toStdString(), rlo = kRlo.toStdString();
        (void)testing::call(client, testing::request("POST", "/api/v1/namespaces", core::toJsonText({{"metadata", {{"name", kNamespace}}}})));
        const std::string base = std::string("/api/v1/namespaces/") + kNamespace;
        (void)testing::call(client, testing::request("DELETE", base + "/configmaps/evil"));
        // The field manager is the hostile string (the server allows any printable text there).
        auto cm = testing::call(client, testing::request("POST", base + "/configmaps?fieldManager=" + QUrl::toPercentEncoding(kHostile).toStdString(),
                                                         core::toJsonText({{"metadata", {{"name", "evil"}, {"annotations", {{"note", hostile + rlo + "tail"}}}}},
                                                                           {"data", {{"k", hostile}}}})));
        QVERIFY2(cm.ok(), cm.ok() ? "" : cm.error().describe().c_str());
        const std::string uid = core::parseJson(cm->body).value()["metadata"]["uid"].get<std::string>();
        auto ev = testing::call(client, testing::request("POST", base + "/events",
                                                         core::toJsonText({{"metadata", {{"generateName", "evil-"}}},
                                                                           {"involvedObject", {{"kind", "ConfigMap"}, {"namespace", kNamespace}, {"name", "evil"}, {"uid", uid}, {"apiVersion", "v1"}}},
                                                                           {"reason", hostile},
                                                                           {"message", hostile + rlo + "gnp.live"},
                                                                           {"type", "Warning"},
                                                                           {"source", {{"component", hostile}}}})));
        QVERIFY2(ev.ok(), ev.ok() ? "" : ev.error().describe().c_str());
    }

    void hostileStringsArePlainTextInEveryView()
    {
        widgets::MainWindow window;
        widgets::ClusterView *view = window.addCluster(m_context);
        app::ClusterController controller{view};
        window.resize(1280, 800);
        controller.showResource(QStringLiteral("configmaps"));
        controller.open(m_kubeconfig, m_context);
        window.show();
        QTRY_VERIFY_WITH_TIMEOUT(controller.isLoaded() && view->tablePage()->selectName(QString::fromLatin1(kNamespace), QStringLiteral("evil")), 30000);
        widgets::DetailPane *detail = view->detailPane();
        QTRY_VERIFY_WITH_TIMEOUT(detail->isReady() && detail->detail().name == QStringLiteral("evil"), 10000);

        // The tab of the cluster: the context name, '&' not a mnemonic.
        QTabWidget *tabs = window.tabs();
        const QString tabText = tabs->tabText(tabs->indexOf(view));
        QCOMPARE(tabText, widgets::actionText(m_context));
        int labels = 0;
        checkLabels(&window, &labels); // the context label in the banner, the status line

        // Summary (a rich-text view): the manager and the annotation read literally.
        detail->setCurrentTab(widgets::DetailPane::SummaryTab);
        auto *summary = detail->findChild<QTextBrowser *>();
        QVERIFY(summary);
        QTRY_VERIFY_WITH_TIMEOUT(summary->toPlainText().contains(kHostile), 10000);
        QVERIFY(!summary->toPlainText().contains(kRlo));

        // Ownership tree: the manager's row shows it literally, its tooltip too.
        detail->setCurrentTab(widgets::DetailPane::OwnershipTab);
        auto *tree = detail->findChild<QTreeView *>();
        QVERIFY(tree);
        const QModelIndexList hits = tree->model()->match(tree->model()->index(0, 0), Qt::DisplayRole, QStringLiteral("/dev/zero"), -1,
                                                          Qt::MatchContains | Qt::MatchRecursive);
        bool managerSeen = false;
        for (int c = 0; c < tree->model()->columnCount(); ++c) {
            for (int r = 0; r < tree->model()->rowCount(); ++r) {
                const QModelIndex i = tree->model()->index(r, c);
                const QString tip = toolTipOf(tree, i);
                if (tip.contains(QLatin1String("/dev/zero"))) {
                    managerSeen = true;
                    QVERIFY2(rendered(tip, Qt::AutoText).contains(kHostile), qPrintable(tip));
                }
            }
        }
        QVERIFY2(managerSeen || !hits.isEmpty(), "the hostile manager appears in the ownership tree");

        // Events: the message with its override shows the override as an escape.
        detail->setCurrentTab(widgets::DetailPane::EventsTab);
        QAbstractItemView *events = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT(events = [&]() -> QAbstractItemView * {
            for (auto *v : detail->findChildren<QAbstractItemView *>())
                if (v->isVisible() && v != tree && v->model() && v->model()->rowCount() > 0)
                    return v;
            return nullptr;
        }(), 15000);
        bool messageSeen = false;
        for (int c = 0; c < events->model()->columnCount(); ++c) {
            const QModelIndex i = events->model()->index(0, c);
            const QString shown = static_cast<QStyledItemDelegate *>(events->itemDelegateForIndex(i))->displayText(i.data(), QLocale());
            QVERIFY2(!shown.contains(kRlo), "a raw right-to-left override reached the events table");
            if (shown.contains(QLatin1String("gnp.live"))) {
                messageSeen = true;
                QVERIFY2(shown.contains(kHostile + QStringLiteral("\\u202egnp.live")), qPrintable(shown));
                QVERIFY2(rendered(toolTipOf(events, i), Qt::AutoText).contains(kHostile), qPrintable(toolTipOf(events, i)));
            }
        }
        QVERIFY(messageSeen);
        (void)testing::saveShot(&window, QStringLiteral("untrusted-text-events.png"));

        // The editor: title and header name the object plainly.
        detail->setCurrentTab(widgets::DetailPane::YamlTab);
        auto *edit = detail->findChild<QPushButton *>(QStringLiteral("editButton"));
        QVERIFY(edit && edit->isEnabled());
        QTest::mouseClick(edit, Qt::LeftButton);
        widgets::EditorWindow *editor = controller.editor(detail->uid());
        QVERIFY(editor);
        QTRY_VERIFY_WITH_TIMEOUT(editor->state() == widgets::EditorWindow::State::Editing, 10000);
        QVERIFY(!editor->windowTitle().contains(kRlo));
        checkLabels(editor, &labels);
        QVERIFY2(labels >= 1, "the context name was seen in at least one label");

        // The consent question with kubeconfig strings of the same kind.
        widgets::ExecConsentQuestion q{kHostile + kRlo + QStringLiteral(".yaml"), QStringLiteral("command: ") + kHostile, {kHostile}};
        QWidget *prompt = widgets::askExecPluginConsent(view, q, [](widgets::ConsentChoice) {});
        QVERIFY(prompt);
        int promptLabels = 0;
        checkLabels(prompt, &promptLabels);
        QVERIFY(promptLabels >= 1);
        (void)testing::saveShot(&window, QStringLiteral("untrusted-text-consent.png"));
        editor->close();
    }
};

QTEST_MAIN(TestUntrustedText)
#include "tst_untrusted_text.moc"
