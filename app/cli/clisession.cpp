#include "app/cli/clisession.h"

#include "app/services/discoverycachefile.h"
#include "app/services/settingsconsentstore.h"
#include "core/base/json.h"
#include "core/base/jsonread.h"
#include "core/base/visibletext.h"

#include <QEventLoop>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTextStream>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>

namespace fieldscope::app {

void addConnectionOptions(QCommandLineParser &parser)
{
    parser.addOption({QStringLiteral("context"), QStringLiteral("The kubeconfig context to use."),
                      QStringLiteral("NAME")});
    parser.addOption({QStringLiteral("kubeconfig"), QStringLiteral("Path to the kubeconfig file."),
                      QStringLiteral("FILE")});
    parser.addOption(
        {QStringLiteral("allow-exec-plugins"),
         QStringLiteral("Run the kubeconfig's exec credential plugin for this run, even if it was denied before "
                        "(it is an arbitrary program; nothing is remembered).")});
    parser.addOption(
        {QStringLiteral("refresh-discovery"),
         QStringLiteral("Ask the server which resource types it serves instead of using what the last "
                        "run cached (the cache is kept six hours and refreshed when a name is unknown).")});
}

bool parseOrHelp(QCommandLineParser &p, const QStringList &args, int *rc)
{
    if (!p.parse(args)) {
        *rc = reportError(p.errorText()) + 1;
        return false;
    }
    if (p.isSet(QStringLiteral("help"))) {
        std::fputs(qUtf8Printable(p.helpText()), stdout);
        *rc = 0;
        return false;
    }
    return true;
}

int reportError(const core::Error &e)
{
    std::fprintf(stderr, "fieldscope: %s\n", e.describe().c_str());
    return e.category == core::ErrorCategory::Config || e.category == core::ErrorCategory::Parse ? 2 : 1;
}

int reportError(const QString &message)
{
    std::fprintf(stderr, "fieldscope: %s\n", qUtf8Printable(message));
    return 1;
}

core::Result<std::unique_ptr<core::HistoryStore>> openHistoryForReading(const std::string &location)
{
    if (location.size() < 6 || location.compare(location.size() - 6, 6, ".jsonl") != 0)
        return core::HistoryStore::open(location, core::HistoryStore::OpenMode::ReadOnly);
    static QTemporaryDir scratch; // lives until the command ends
    if (!scratch.isValid())
        return core::Error::make(core::ErrorCategory::Io, "cannot make a temporary folder to read the export in");
    auto store = core::HistoryStore::open(scratch.filePath(QStringLiteral("import.db")).toStdString());
    if (!store)
        return store.error();
    if (auto imported = core::importJsonLines(location, **store); !imported)
        return imported.error();
    return store;
}

void printUnreadable(const core::UnreadableVersions &skipped, const char *verb)
{
    if (skipped.count == 0)
        return;
    std::fprintf(stderr, "fieldscope: %lld versions not %s: their stored rows cannot be read\n",
                 static_cast<long long>(skipped.count), verb);
    for (const auto &n : skipped.named)
        std::fprintf(stderr, "fieldscope:   %s\n", core::visibleEscapes(n.substr(0, 400)).c_str());
    if (skipped.count > std::int64_t(skipped.named.size()))
        std::fprintf(stderr, "fieldscope:   ... and %lld more\n",
                     static_cast<long long>(skipped.count - std::int64_t(skipped.named.size())));
}

namespace {
std::atomic<bool> g_terminate{false};
extern "C" void onTerminationSignal(int)
{
    g_terminate = true; // async-signal-safe; the poll below does the rest on the main thread
}
} // namespace

void quitOnTerminationSignals()
{
    std::signal(SIGINT, onTerminationSignal);
    std::signal(SIGTERM, onTerminationSignal);
    auto *poll = new QTimer(QCoreApplication::instance());
    QObject::connect(poll, &QTimer::timeout, [] {
        if (g_terminate)
            QCoreApplication::exit(0);
    });
    poll->start(100);
}

qint64 parseDuration(const QString &text)
{
    static const QRegularExpression re(QStringLiteral("^(?:(\\d+)h)?(?:(\\d+)m(?!s))?(?:(\\d+)s)?(?:(\\d+)ms)?$"));
    const auto m = re.match(text);
    if (text.isEmpty() || !m.hasMatch())
        return -1;
    return m.captured(1).toLongLong() * 3600000 + m.captured(2).toLongLong() * 60000 + m.captured(3).toLongLong() * 1000
         + m.captured(4).toLongLong();
}

std::unique_ptr<CliSession> CliSession::open(const QCommandLineParser &parser)
{
    return open(parser, QString());
}

std::unique_ptr<CliSession> CliSession::open(const QCommandLineParser &parser, const QString &defaultKubeconfig)
{
    kube::ConnectionOptions opts;
    opts.kubeconfigPath = parser.isSet(QStringLiteral("kubeconfig"))
                            ? parser.value(QStringLiteral("kubeconfig")).toStdString()
                            : defaultKubeconfig.toStdString();
    opts.context = parser.value(QStringLiteral("context")).toStdString();
    // What the user allowed in the window is allowed here too (one store, the same fingerprint).
    opts.credentials.consentStore = std::make_shared<SettingsConsentStore>();
    opts.credentials.allowExecPluginsThisRun = parser.isSet(QStringLiteral("allow-exec-plugins"));
    // Without the flag and without a remembered Allow, show what would run and how to allow it.
    // Nobody was asked, so the refusal is not remembered (NotNow).
    opts.credentials.askConsent = [](const kube::ExecConsentRequest &req, const kube::ConsentReply &reply) {
        std::fprintf(
            stderr,
            "fieldscope: the kubeconfig wants to run an exec credential plugin (an arbitrary program):\n%s"
            "Re-run with --allow-exec-plugins to run it for this run, or allow it in the window to remember it.\n",
            req.description.text().c_str());
        reply(kube::ConsentAnswer::NotNow);
    };
    auto conn = kube::connect(opts);
    if (!conn) {
        s_openFailureCode = reportError(conn.error());
        return nullptr;
    }
    for (const auto &w : conn->config.warnings)
        std::fprintf(stderr, "Warning: %s\n", w.c_str());
    auto s = std::make_unique<CliSession>();
    s->m_connection = std::move(*conn);
    s->m_client = std::make_unique<kube::ApiClient>(s->m_connection.transport);
    s->m_discovery = std::make_unique<kube::Discovery>(s->m_client.get());
    const QStringList given = parser.optionNames();
    s->m_discovery->setCache(discoveryCacheUseFor(s->m_connection.config, false,
                                                  given.contains(QLatin1String("refresh-discovery"))));
    QObject::connect(s->m_discovery.get(), &kube::Discovery::failed,
                     [session = s.get()](const QString &m) { session->m_discoveryFailure = m; });
    s->m_discovery->refresh();
    // Only until the core group is known (the server is there and answers): a command waits for
    // the rest only as far as the names it resolves need (resolve(), discovery()).
    s->waitForDiscovery([&] { return s->m_discovery->coreKnown(); });
    if (!s->m_discoveryFailure.isEmpty()) {
        s_openFailureCode = reportError(s->m_discoveryFailure);
        return nullptr;
    }
    return s;
}

CliSession::~CliSession()
{
    // What an unfinished discovery learnt is kept: the next run asks only the groups still missing.
    if (m_discovery && m_discovery->isRunning())
        m_discovery->saveProgress();
}

void CliSession::waitForDiscovery(const std::function<bool()> &done) const
{
    while (!done() && m_discoveryFailure.isEmpty() && m_discovery->isRunning()) {
        QEventLoop loop;
        QObject::connect(m_discovery.get(), &kube::Discovery::progressed, &loop, &QEventLoop::quit);
        QObject::connect(m_discovery.get(), &kube::Discovery::finished, &loop, &QEventLoop::quit);
        QObject::connect(m_discovery.get(), &kube::Discovery::failed, &loop, &QEventLoop::quit);
        loop.exec();
    }
}

const kube::DiscoverySnapshot &CliSession::discovery() const
{
    waitForDiscovery([] { return false; });
    return m_discovery->snapshot();
}

const kube::ResourceInfo *CliSession::resolve(const QString &word) const
{
    const std::string w = word.toStdString();
    std::optional<const kube::ResourceInfo *> decided;
    waitForDiscovery([&] { return (decided = m_discovery->decide(w)).has_value(); });
    if (!decided)
        decided = m_discovery->decide(w); // the run ended (or failed): decide on what is there
    if (!*decided && m_discovery->fromCache()) {
        // A type created since the cache was written (a new CRD): ask the server once, as kubectl does.
        m_discoveryFailure.clear();
        m_discovery->refreshFromServer();
        waitForDiscovery([&] { return (decided = m_discovery->decide(w)).has_value(); });
        decided = m_discovery->decide(w);
    }
    const kube::ResourceInfo *r = *decided ? &m_resolved.emplace_back(**decided) : nullptr;
    if (!r && !m_discoveryFailure.isEmpty()) { // the server could not be asked: say why, not "no such type"
        reportError(m_discoveryFailure);
        return nullptr;
    }
    if (!r) {
        // A group whose discovery document could not be read may be the one that has it: say so,
        // or a server's malformed answer reads as "no such type".
        QString why;
        const kube::DiscoverySnapshot known = m_discovery->progress().assemble();
        for (const auto &[gv, error] : known.failedGroups)
            why += QStringLiteral("\n  discovery of %1 failed: %2")
                       .arg(QString::fromStdString(gv), QString::fromStdString(error));
        for (const auto &[entry, error] : known.failedResources)
            why += QStringLiteral("\n  discovery skipped %1: %2")
                       .arg(QString::fromStdString(entry), QString::fromStdString(error));
        reportError(QStringLiteral("the server doesn't have a resource type \"%1\"%2").arg(word, why));
    }
    return r;
}

const kube::ResourceInfo *CliSession::findKind(const std::string &apiVersion, const std::string &kind) const
{
    const auto *r = discovery().findKind(apiVersion, kind);
    if (!r && m_discovery->fromCache()) {
        m_discoveryFailure.clear();
        m_discovery->refreshFromServer();
        r = discovery().findKind(apiVersion, kind);
    }
    return r ? &m_resolved.emplace_back(*r) : nullptr;
}

std::string CliSession::serverVersion()
{
    const auto &snap = discovery();
    if (!m_discovery->fromCache())
        return snap.serverVersion;
    kube::HttpRequest req;
    req.path = "/version";
    auto r = call(std::move(req));
    if (!r.ok())
        return snap.serverVersion;
    auto doc = core::parseJson(r->body);
    if (!doc.ok() || !doc->is_object())
        return snap.serverVersion;
    core::JsonReader read("GET /version");
    const std::string v = read.string(*doc, "gitVersion", "");
    return v.empty() ? snap.serverVersion : v;
}

std::string CliSession::namespaceFor(const QCommandLineParser &parser, const kube::ResourceInfo &r) const
{
    // optionNames(): only what was given, so commands without -A do not trip isSet() warnings.
    const QStringList given = parser.optionNames();
    if (!r.namespaced || given.contains(QLatin1String("A")) || given.contains(QLatin1String("all-namespaces")))
        return {};
    if (given.contains(QLatin1String("n")) || given.contains(QLatin1String("namespace")))
        return parser.value(QStringLiteral("namespace")).toStdString();
    return m_connection.config.namespace_.empty() ? std::string("default") : m_connection.config.namespace_;
}

core::Result<kube::HttpResponse> CliSession::call(kube::HttpRequest request)
{
    QEventLoop loop;
    std::optional<core::Result<kube::HttpResponse>> out;
    m_client->send(std::move(request), &loop, [&](core::Result<kube::HttpResponse> r) {
        out = std::move(r);
        loop.quit();
    });
    loop.exec();
    reportWarnings(out->ok() ? (*out)->warnings : out->error().warnings);
    return std::move(*out);
}

void CliSession::reportWarnings(const std::vector<std::string> &warnings)
{
    for (const std::string &w : warnings) {
        if (std::find(m_warned.begin(), m_warned.end(), w) != m_warned.end() || m_warned.size() >= 100)
            continue;
        m_warned.push_back(w);
        // The server's words: control characters are shown escaped, never sent to the terminal.
        std::fprintf(stderr, "Warning: %s\n", core::visibleEscapes(w).c_str());
    }
}

} // namespace fieldscope::app
