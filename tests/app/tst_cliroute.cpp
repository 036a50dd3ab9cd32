// Where a command line goes: global options before or after the subcommand, help and
// version decided before any Qt application exists, values of options never taken for a subcommand.
#include "app/cli/cliroute.h"
#include "app/cli/commands.h"
#include "app/services/windowoptions.h"

#include <QFile>
#include <QTest>

using namespace fieldscope::app;

namespace {
QStringList argv(std::initializer_list<const char *> words)
{
    QStringList out{QStringLiteral("/build/dir/app/fieldscope")};
    for (const char *w : words)
        out << QString::fromUtf8(w);
    return out;
}
QStringList strings(std::initializer_list<const char *> words)
{
    QStringList out;
    for (const char *w : words)
        out << QString::fromUtf8(w);
    return out;
}
} // namespace

class TestCliRoute : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void globalOptionsBeforeTheSubcommandGoToTheSubcommand()
    {
        const CliRoute r = routeCommandLine(argv({"--kubeconfig", "/k", "--context", "prod", "list", "configmaps",
                                                  "-A"}));
        QCOMPARE(r.kind, CliRoute::Kind::Subcommand);
        QCOMPARE(QString::fromUtf8(r.command->name), QStringLiteral("list"));
        QCOMPARE(r.args, strings({"fieldscope list", "--kubeconfig", "/k", "--context", "prod", "configmaps", "-A"}));
    }

    void globalOptionsAfterTheSubcommandStayWhereTheyAre()
    {
        const CliRoute r = routeCommandLine(argv({"list", "configmaps", "--context", "prod"}));
        QCOMPARE(r.kind, CliRoute::Kind::Subcommand);
        QCOMPARE(r.args, strings({"fieldscope list", "configmaps", "--context", "prod"}));
    }

    void anOptionValueNamedLikeASubcommandIsNotTheSubcommand()
    {
        const CliRoute r = routeCommandLine(argv({"--context", "list", "-n", "watch", "blame", "cm/x"}));
        QCOMPARE(r.kind, CliRoute::Kind::Subcommand);
        QCOMPARE(QString::fromUtf8(r.command->name), QStringLiteral("blame"));
        QCOMPARE(r.args, strings({"fieldscope blame", "--context", "list", "-n", "watch", "cm/x"}));
    }

    void aSubcommandWithoutAClusterIgnoresConnectionOptions()
    {
        const CliRoute r = routeCommandLine(argv({"--kubeconfig", "/k", "--allow-exec-plugins", "--context=x",
                                                  "consent", "list"}));
        QCOMPARE(r.kind, CliRoute::Kind::Subcommand);
        QCOMPARE(r.args, strings({"fieldscope consent", "list"}));
    }

    void verbosityIsAcceptedAnywhereAndRemoved_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<bool>("verbose");
        QTest::newRow("-v before") << argv({"-v", "list", "pods"}) << true;
        QTest::newRow("-v after") << argv({"list", "pods", "-v"}) << true;
        QTest::newRow("--v=6 as kubectl") << argv({"list", "--v=6", "pods"}) << true;
        QTest::newRow("-v=0 is off") << argv({"-v=0", "list", "pods"}) << false;
        QTest::newRow("--verbose") << argv({"--verbose", "list", "pods"}) << true;
    }
    void verbosityIsAcceptedAnywhereAndRemoved()
    {
        QFETCH(QStringList, args);
        QFETCH(bool, verbose);
        const CliRoute r = routeCommandLine(args);
        QCOMPARE(r.kind, CliRoute::Kind::Subcommand);
        QCOMPARE(r.verbose, verbose);
        QCOMPARE(r.args, strings({"fieldscope list", "pods"}));
    }

    void helpAndVersionNeedNoWindow()
    {
        QCOMPARE(routeCommandLine(argv({"--help"})).kind, CliRoute::Kind::Help);
        QCOMPARE(routeCommandLine(argv({"help"})).kind, CliRoute::Kind::Help);
        QCOMPARE(routeCommandLine(argv({"--context", "x", "-h"})).kind, CliRoute::Kind::Help);
        const CliRoute v = routeCommandLine(argv({"--version", "-v"}));
        QCOMPARE(v.kind, CliRoute::Kind::Version);
        QVERIFY(v.verbose);
        QVERIFY(!routeCommandLine(argv({"--version"})).verbose);
    }

    void helpOfASubcommandRunsItWithHelp()
    {
        const CliRoute r = routeCommandLine(argv({"help", "blame"}));
        QCOMPARE(r.kind, CliRoute::Kind::Subcommand);
        QCOMPARE(QString::fromUtf8(r.command->name), QStringLiteral("blame"));
        QCOMPARE(r.args, strings({"fieldscope blame", "--help"}));
        // --help after a subcommand is the subcommand's own
        const CliRoute own = routeCommandLine(argv({"record", "--help"}));
        QCOMPARE(own.kind, CliRoute::Kind::Subcommand);
        QCOMPARE(own.args, strings({"fieldscope record", "--help"}));
    }

    void unknownWordsAreUnknownSubcommands()
    {
        const CliRoute r = routeCommandLine(argv({"--context", "x", "get", "pods"}));
        QCOMPARE(r.kind, CliRoute::Kind::UnknownSubcommand);
        QCOMPARE(r.unknown, QStringLiteral("get"));
        const CliRoute h = routeCommandLine(argv({"help", "nosuch"}));
        QCOMPARE(h.kind, CliRoute::Kind::UnknownSubcommand);
        QCOMPARE(h.unknown, QStringLiteral("nosuch"));
    }

    // The package's man page (packaging/fieldscope.1) must not fall behind the subcommand table.
    void manPageCoversEverySubcommand()
    {
        QFile man(QStringLiteral(FIELDSCOPE_TEST_DATA "/../../packaging/fieldscope.1"));
        QVERIFY(man.open(QIODevice::ReadOnly));
        const QByteArray text = man.readAll();
        for (const auto *c = subcommands(); c->name; ++c)
            QVERIFY2(text.contains(QByteArray("\\fB") + c->name), c->name);
    }

    void windowOptionsStartTheWindow()
    {
        const CliRoute r = routeCommandLine(argv({"--context", "prod", "--select", "pods/x", "-v", "--screenshot",
                                                  "a.png"}));
        QCOMPARE(r.kind, CliRoute::Kind::Gui);
        QVERIFY(r.verbose);
        QCOMPARE(r.args, strings({"/build/dir/app/fieldscope", "--context", "prod", "--select", "pods/x",
                                  "--screenshot", "a.png"}));
        QCOMPARE(routeCommandLine(argv({})).kind, CliRoute::Kind::Gui);
    }

    // Every window option's value stays the window's, whatever it looks like ("list", "40").
    void everyWindowOptionValueIsNeverASubcommand()
    {
        const QStringList options = guiOptionsWithValues();
        QVERIFY(options.contains(QStringLiteral("--screenshot-timeout"))
                && options.contains(QStringLiteral("--lesson-step")));
        for (const QString &option : options) {
            const CliRoute r = routeCommandLine(argv({option.toUtf8().constData(), "list"}));
            QVERIFY2(r.kind == CliRoute::Kind::Gui, qPrintable(option));
        }
    }
};

QTEST_GUILESS_MAIN(TestCliRoute)
#include "tst_cliroute.moc"
