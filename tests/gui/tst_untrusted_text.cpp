// Strings from the server and the kubeconfig are plain text in every view. A
// field manager, annotation, event message and context name of `<img src="/dev/zero"><b>x</b>`
// (with a right-to-left override where the server allows one) show those characters literally
// in the table, the tabs, the labels, the tooltips, the detail pane, the editor and the consent
// question; no label renders them as HTML, no raw bidi character reaches a widget.
// The same for a server Table's column names and descriptions (a CRD's printer column,
// its description a megabyte long), the "Set only if unchanged" dialog holding the server's
// value, a kubeconfig whose other context has a hostile, megabyte-long namespace (the context
// switcher's tooltip), and the Settings dialog's per-cluster checkbox naming the context.
#include "app/gui/clustercontroller.h"
#include "app/gui/workspace.h"
#include "clusterenv.h"
#include "core/base/json.h"
#include "guitesting.h"
#include "models/objecttablemodel.h"
#include "widgets/clusterview.h"
#include "widgets/consentdialog.h"
#include "widgets/contextswitcher.h"
#include "widgets/detailpane.h"
#include "widgets/editorwindow.h"
#include "widgets/mainwindow.h"
#include "widgets/objecttablepage.h"
#include "widgets/plaintext.h"
#include "widgets/settingsdialog.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QHelpEvent>
#include <QInputDialog>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
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
// Without quotes: it survives JSON encoding as it is (the Set only if unchanged dialog shows JSON).
const QString kImg = QStringLiteral("<img src=/dev/zero>");
const QString kMiB = QString(1 << 20, u'm');
constexpr const char *kGroup = "hostile.example.com";

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
        QVERIFY2(shown.contains(kHostile),
                 qPrintable(QStringLiteral("label %1 shows \"%2\"").arg(l->objectName(), shown)));
    }
}

// What a label with a buddy shows: "&&" is "&", a single '&' marks a mnemonic and is not shown.
QString withoutMnemonics(const QLabel *label)
{
    QString t = label->text();
    if (!label->buddy())
        return t;
    QString out;
    for (qsizetype i = 0; i < t.size(); ++i) {
        if (t[i] != u'&') {
            out += t[i];
        } else if (i + 1 < t.size() && t[i + 1] == u'&') {
            out += u'&';
            ++i;
        }
    }
    return out;
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
    QString m_kubeconfig, m_context, m_otherContext;

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
        view.start(kubectl, {QStringLiteral("config"), QStringLiteral("view"), QStringLiteral("--raw"),
                             QStringLiteral("--minify"), QStringLiteral("--flatten"), QStringLiteral("--kubeconfig"),
                             testing::testKubeconfig(), QStringLiteral("--context"),
                             QString::fromStdString(testing::ctxToken())});
        QVERIFY(view.waitForFinished(30000) && view.exitCode() == 0);
        QProcess rename;
        rename.start(kubectl, {QStringLiteral("config"), QStringLiteral("rename-context"),
                               QString::fromStdString(testing::ctxToken()), m_context, QStringLiteral("--kubeconfig"),
                               m_kubeconfig});
        QVERIFY(rename.waitForFinished(30000) && rename.exitCode() == 0);
        // A second context of the same cluster whose namespace is hostile and a megabyte long
        // (written as JSON, a YAML subset: no command line takes a megabyte argument).
        QProcess json;
        json.start(kubectl,
                   {QStringLiteral("config"), QStringLiteral("view"), QStringLiteral("--raw"), QStringLiteral("-o"),
                    QStringLiteral("json"), QStringLiteral("--kubeconfig"), m_kubeconfig});
        QVERIFY(json.waitForFinished(30000) && json.exitCode() == 0);
        core::Json config = core::parseJson(json.readAllStandardOutput().toStdString()).valueOr(core::Json());
        QVERIFY(config.is_object() && config["contexts"].is_array() && !config["contexts"].empty());
        core::Json other = config["contexts"][0];
        m_otherContext = kImg + QStringLiteral("&other") + kRlo;
        other["name"] = m_otherContext.toStdString();
        other["context"]["namespace"] = (kHostile + QStringLiteral("&x") + kRlo + kMiB).toStdString();
        config["contexts"].push_back(other);
        QFile out(m_kubeconfig);
        QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
        out.write(QByteArray::fromStdString(core::toJsonText(config)));
        out.close();

        auto c = testing::connectTo(testing::ctxToken());
        kube::ApiClient client(c.transport);
        const std::string hostile = kHostile.toStdString(), rlo = kRlo.toStdString();
        (void)testing::call(client, testing::request("POST", "/api/v1/namespaces",
                                                     core::toJsonText({{"metadata", {{"name", kNamespace}}}})));
        const std::string base = std::string("/api/v1/namespaces/") + kNamespace;
        (void)testing::call(client, testing::request("DELETE", base + "/configmaps/evil"));
        // The field manager is the hostile string (the server allows any printable text there).
        auto cm = testing::call(
            client,
            testing::request(
                "POST", base + "/configmaps?fieldManager=" + QUrl::toPercentEncoding(kHostile).toStdString(),
                core::toJsonText({{"metadata", {{"name", "evil"}, {"annotations", {{"note", hostile + rlo + "tail"}}}}},
                                  {"data", {{"k", hostile}}}})));
        QVERIFY2(cm.ok(), cm.ok() ? "" : cm.error().describe().c_str());
        const std::string uid = core::parseJson(cm->body).value()["metadata"]["uid"].get<std::string>();
        auto ev = testing::call(client, testing::request("POST", base + "/events",
                                                         core::toJsonText({{"metadata", {{"generateName", "evil-"}}},
                                                                           {"involvedObject",
                                                                            {{"kind", "ConfigMap"},
                                                                             {"namespace", kNamespace},
                                                                             {"name", "evil"},
                                                                             {"uid", uid},
                                                                             {"apiVersion", "v1"}}},
                                                                           {"reason", hostile},
                                                                           {"message", hostile + rlo + "gnp.live"},
                                                                           {"type", "Warning"},
                                                                           {"source", {{"component", hostile}}}})));
        QVERIFY2(ev.ok(), ev.ok() ? "" : ev.error().describe().c_str());

        // A kind whose server Table has a column named and described by hostile strings (the
        // description a megabyte long): a CRD's printer column, as any CRD author may write.
        const std::string crd = std::string("evilthings.") + kGroup;
        (void)testing::call(client, testing::request("DELETE",
                                                     "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + crd));
        auto gone = [&] {
            auto r = testing::call(client,
                                   testing::request("GET",
                                                    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + crd));
            return !r && r.error().httpStatus == 404;
        };
        QTRY_VERIFY_WITH_TIMEOUT(gone(), 60000);
        const core::Json column = {{"name", (QStringLiteral("&col") + kImg + kRlo).toStdString()},
                                   {"type", "string"},
                                   {"jsonPath", ".spec.note"},
                                   {"description", (kHostile + QStringLiteral("&x") + kRlo + kMiB).toStdString()}};
        const core::Json definition = {
            {"apiVersion", "apiextensions.k8s.io/v1"},
            {"kind", "CustomResourceDefinition"},
            {"metadata", {{"name", crd}}},
            {"spec",
             {{"group", kGroup},
              {"scope", "Namespaced"},
              {"names",
               {{"plural", "evilthings"},
                {"singular", "evilthing"},
                {"kind", "EvilThing"},
                {"listKind", "EvilThingList"}}},
              {"versions",
               core::Json::array(
                   {{{"name", "v1"},
                     {"served", true},
                     {"storage", true},
                     {"schema",
                      {{"openAPIV3Schema", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}}}},
                     {"additionalPrinterColumns", core::Json::array({column})}}})}}}};
        auto made = testing::call(client,
                                  testing::request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                                                   core::toJsonText(definition)));
        QVERIFY2(made.ok(), made.ok() ? "" : made.error().describe().c_str());
        const std::string things = std::string("/apis/") + kGroup + "/v1/namespaces/" + kNamespace + "/evilthings";
        QTRY_VERIFY_WITH_TIMEOUT(testing::call(client, testing::request("GET", things)).ok(), 60000); // established
        auto thing = testing::call(client,
                                   testing::request("POST", things,
                                                    core::toJsonText({{"apiVersion", std::string(kGroup) + "/v1"},
                                                                      {"kind", "EvilThing"},
                                                                      {"metadata", {{"name", "evil"}}},
                                                                      {"spec", {{"note", hostile}}}})));
        QVERIFY2(thing.ok(), thing.ok() ? "" : thing.error().describe().c_str());
    }

    // The server Table's column: its header names it with visible escapes, its tooltip (shown by
    // the header itself, no delegate) reads literally, is bounded and shows at once.
    void serverTableColumnsArePlainTextInHeaderAndTooltip()
    {
        widgets::MainWindow window;
        widgets::ClusterView *view = window.addCluster(m_context);
        app::ClusterController controller{view};
        window.resize(1280, 800);
        controller.showResource(QStringLiteral("evilthings"));
        controller.open(m_kubeconfig, m_context);
        window.show();
        QTableView *table = view->tablePage()->table();
        auto serverColumn = [&] {
            for (int c = 0; c < table->model()->columnCount(); ++c)
                if (table->model()->headerData(c, Qt::Horizontal, models::ObjectTableModel::ServerColumnRole).toBool()
                    && table->model()->headerData(c, Qt::Horizontal).toString().contains(QLatin1String("/dev/zero")))
                    return c;
            return -1;
        };
        QTRY_VERIFY_WITH_TIMEOUT(controller.isLoaded() && serverColumn() >= 0, 30000);
        const int c = serverColumn();
        const QString name = table->model()->headerData(c, Qt::Horizontal).toString();
        QVERIFY2(!name.contains(kRlo), "a raw right-to-left override in a column header");
        QVERIFY2(name.contains(QStringLiteral("&col") + kImg + QStringLiteral("\\u202e")), qPrintable(name));
        const QString tip = table->model()->headerData(c, Qt::Horizontal, Qt::ToolTipRole).toString();
        QVERIFY2(!tip.contains(kRlo), "a raw right-to-left override in a header tooltip");
        QVERIFY2(rendered(tip, Qt::AutoText).startsWith(kHostile + QStringLiteral("&x\\u202emmm")),
                 qPrintable(tip.left(200)));
        QVERIFY2(tip.size() < qsizetype{64} * 1024, qPrintable(QString::number(tip.size())));
        // The header shows it: at once (nothing to load), exactly that text.
        QHeaderView *header = table->horizontalHeader();
        header->showSection(c);
        table->scrollTo(table->model()->index(0, c));
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        const QPoint at(header->sectionViewportPosition(c) + 4, header->height() / 2);
        QHelpEvent e(QEvent::ToolTip, at, header->viewport()->mapToGlobal(at));
        QElapsedTimer clock;
        clock.start();
        QCoreApplication::sendEvent(header->viewport(), &e);
        QVERIFY2(clock.elapsed() < 2000, qPrintable(QString::number(clock.elapsed())));
        QCOMPARE(QToolTip::text(), tip);
        QToolTip::hideText();
        (void)testing::saveShot(&window, QStringLiteral("untrusted-text-table.png"));
    }

    // The kubeconfig's strings in the context switcher (a namespace in an item's tooltip) and in
    // Settings (the per-cluster checkbox names the context: '&' is no mnemonic).
    void kubeconfigStringsArePlainTextInSwitcherAndSettings()
    {
        widgets::MainWindow window;
        window.resize(1280, 800);
        app::Workspace workspace(&window);
        QSignalSpy loaded(&workspace, &app::Workspace::contextsLoaded);
        workspace.setKubeconfig(m_kubeconfig);
        workspace.loadContexts();
        QVERIFY(loaded.wait(20000));
        app::ClusterController *controller = workspace.open(m_context);
        window.show();
        QComboBox *combo = window.contextSwitcher()->combo();
        int hostileNamespaces = 0;
        for (int i = 0; i < combo->count(); ++i) {
            QVERIFY2(!combo->itemText(i).contains(kRlo), "a raw right-to-left override in the context list");
            const QString tip = combo->itemData(i, Qt::ToolTipRole).toString();
            QVERIFY2(!tip.contains(kRlo), "a raw right-to-left override in a context's tooltip");
            if (!tip.contains(QLatin1String("/dev/zero")))
                continue;
            ++hostileNamespaces;
            QVERIFY2(rendered(tip, Qt::AutoText).contains(kHostile + QStringLiteral("&x\\u202emmm")),
                     qPrintable(tip.left(200)));
            QVERIFY2(tip.size() < qsizetype{64} * 1024, qPrintable(QString::number(tip.size())));
        }
        QCOMPARE(hostileNamespaces, 1);

        QTRY_VERIFY_WITH_TIMEOUT(controller->isLoaded() && !controller->clusterIdentity().isEmpty(), 30000);
        window.showSettings();
        auto *settings = window.findChild<widgets::SettingsDialog *>();
        QVERIFY(settings);
        auto *secrets = settings->findChild<QCheckBox *>(QStringLiteral("recordSecretValues"));
        QVERIFY(secrets);
        QVERIFY2(secrets->text().contains(widgets::actionText(m_context)), qPrintable(secrets->text()));
        QVERIFY(!secrets->text().contains(kRlo));
        QVERIFY2(rendered(secrets->toolTip(), Qt::AutoText)
                     .contains(QString::fromStdString(controller->connection()->config.server)),
                 qPrintable(secrets->toolTip()));
        auto *background = settings->findChild<QAbstractButton *>(QStringLiteral("startBackgroundRecording"));
        QVERIFY(background);
        QVERIFY2(background->text().contains(widgets::actionText(m_context)), qPrintable(background->text()));
        for (auto *b : settings->findChildren<QAbstractButton *>())
            QVERIFY2(!b->text().contains(kRlo), qPrintable(b->text()));
        int labels = 0;
        checkLabels(settings, &labels);
        (void)testing::saveShot(settings, QStringLiteral("untrusted-text-settings.png"));
        settings->reject();
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
        QTRY_VERIFY_WITH_TIMEOUT(controller.isLoaded()
                                     && view->tablePage()->selectName(QString::fromLatin1(kNamespace),
                                                                      QStringLiteral("evil")),
                                 30000);
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
        const QModelIndexList hits = tree->model()->match(tree->model()->index(0, 0), Qt::DisplayRole,
                                                          QStringLiteral("/dev/zero"), -1,
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
        QTRY_VERIFY_WITH_TIMEOUT(
            events = [&]() -> QAbstractItemView * {
                for (auto *v : detail->findChildren<QAbstractItemView *>())
                    if (v->isVisible() && v != tree && v->model() && v->model()->rowCount() > 0)
                        return v;
                return nullptr;
            }(),
            15000);
        bool messageSeen = false;
        for (int c = 0; c < events->model()->columnCount(); ++c) {
            const QModelIndex i = events->model()->index(0, c);
            const QString shown =
                static_cast<QStyledItemDelegate *>(events->itemDelegateForIndex(i))->displayText(i.data(), QLocale());
            QVERIFY2(!shown.contains(kRlo), "a raw right-to-left override reached the events table");
            if (shown.contains(QLatin1String("gnp.live"))) {
                messageSeen = true;
                QVERIFY2(shown.contains(kHostile + QStringLiteral("\\u202egnp.live")), qPrintable(shown));
                QVERIFY2(rendered(toolTipOf(events, i), Qt::AutoText).contains(kHostile),
                         qPrintable(toolTipOf(events, i)));
            }
        }
        QVERIFY(messageSeen);
        (void)testing::saveShot(&window, QStringLiteral("untrusted-text-events.png"));

        // Set only if unchanged…: the dialog's question holds the server's value, as plain text,
        // and opens at once (a rich-text label would load the <img>).
        {
            QElapsedTimer clock;
            clock.start();
            Q_EMIT detail->setIfUnchangedRequested(
                detail->uid(), QStringLiteral("/data/k"),
                QString::fromStdString(core::toJsonText(core::Json(kImg.toStdString() + "&x" + kRlo.toStdString()))));
            auto *ask = view->findChild<QInputDialog *>();
            QVERIFY(ask);
            QTRY_VERIFY_WITH_TIMEOUT(ask->isVisible(), 5000);
            QVERIFY2(clock.elapsed() < 2000, qPrintable(QString::number(clock.elapsed())));
            int asked = 0;
            for (QLabel *l : ask->findChildren<QLabel *>()) {
                QVERIFY2(!l->text().contains(kRlo),
                         "a raw right-to-left override in the Set only if unchanged question");
                if (!l->text().contains(QLatin1String("/dev/zero")))
                    continue;
                ++asked;
                QCOMPARE(l->textFormat(), Qt::PlainText);
                QVERIFY2(withoutMnemonics(l).contains(kImg + QStringLiteral("&x\\u202e")), qPrintable(l->text()));
            }
            QCOMPARE(asked, 1);
            (void)testing::saveShot(ask, QStringLiteral("untrusted-text-set-if-unchanged.png"));
            ask->reject();
        }

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
        widgets::ExecConsentQuestion q{
            kHostile + kRlo + QStringLiteral(".yaml"), QStringLiteral("command: ") + kHostile, {kHostile}};
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
