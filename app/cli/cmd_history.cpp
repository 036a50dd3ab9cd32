// fieldscope record / fieldscope history: headless recording of every version into the history
// store, and printing an object's versions with who made each change.
#include "app/cli/clisession.h"
#include "app/cli/commands.h"
#include "app/services/backgroundrecording.h"
#include "app/services/heaptuning.h"
#include "app/services/historysource.h"
#include "app/services/recordaudit.h"
#include "app/services/settings.h"
#include "core/base/jsonread.h"
#include "core/base/visibletext.h"
#include "core/history/historyexport.h"
#include "core/history/historyfeed.h"
#include "core/history/historyquery.h"
#include "core/history/historywriter.h"
#include "kube/watcher.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QTimer>

#include <cstdio>
#include <optional>

namespace fieldscope::app {
namespace {

// One watched scope feeding the recorder.
struct RecordedScope {
    std::unique_ptr<kube::Watcher> watcher;
    std::unique_ptr<core::HistoryFeed> feed;
};

// Without --db, `history` and `export` read the store the window and `record --store` write for
// the cluster of --context (Settings may make it the team's PostgreSQL store).
void addStoreChoiceOptions(QCommandLineParser &p)
{
    p.addOption({QStringLiteral("kubeconfig"), QStringLiteral("Without --db: the kubeconfig file."),
                 QStringLiteral("FILE")});
    p.addOption({QStringLiteral("context"),
                 QStringLiteral("Without --db: the context whose cluster's store to read (default: the current one)."),
                 QStringLiteral("NAME")});
}

core::Result<QString> chosenStore(const QCommandLineParser &p)
{
    if (p.isSet(QStringLiteral("db")))
        return p.value(QStringLiteral("db"));
    auto location = historyLocationForContext(p.value(QStringLiteral("kubeconfig")),
                                              p.value(QStringLiteral("context")));
    if (!location)
        return location.error();
    if (!isSharedHistoryLocation(*location) && !QFileInfo::exists(*location))
        return core::Error::make(core::ErrorCategory::NotFound,
                                 "nothing is recorded for this cluster on this computer yet (" + location->toStdString()
                                     + " does not exist): open it in the window, run `fieldscope record ... --store`, "
                                       "or name a database with --db");
    return location;
}

void addRecordOptions(QCommandLineParser &p)
{
    p.setApplicationDescription(
        QStringLiteral("fieldscope record RESOURCE[,RESOURCE...] --db FILE|URL: record every version seen, headless."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("RESOURCES"), QStringLiteral("Comma-separated resource types."));
    p.addOption({{QStringLiteral("n"), QStringLiteral("namespace")},
                 QStringLiteral("Namespace to record."),
                 QStringLiteral("NAMESPACE")});
    p.addOption({{QStringLiteral("A"), QStringLiteral("all-namespaces")},
                 QStringLiteral("Record across all namespaces.")});
    p.addOption({{QStringLiteral("l"), QStringLiteral("selector")},
                 QStringLiteral("Label selector."),
                 QStringLiteral("SELECTOR")});
    p.addOption({QStringLiteral("for"),
                 QStringLiteral("Stop after this long (e.g. 30s, 5m); default: until interrupted."),
                 QStringLiteral("DURATION")});
    p.addOption({QStringLiteral("db"),
                 QStringLiteral("The history database file (created when missing), or a team's PostgreSQL store: "
                                "postgresql://HOST/DATABASE (docs/team-history.md)."),
                 QStringLiteral("FILE|URL")});
    p.addOption({QStringLiteral("recorder-name"),
                 QStringLiteral("The name shown with each version this recorder stores (default record@HOST (USER))."),
                 QStringLiteral("NAME")});
    p.addOption(
        {QStringLiteral("store"),
         QStringLiteral(
             "Record into the window's own store for this cluster, as fieldscope-record@.service does: RESOURCES "
             "default to Settings' background list, all namespaces unless -n, Settings' retention applies (to a "
             "file: a team store keeps its own, `store retention`), and "
             "the window shows that background recording is on.")});
    p.addOption(
        {QStringLiteral("include-secret-values"),
         QStringLiteral("Store Secret data/stringData values as sent. Default: each value is a keyed hash (which key "
                        "changed stays visible, the value does not reach the disk).")});
    p.addOption(
        {QStringLiteral("audit-log"),
         QStringLiteral(
             "Follow the API server's audit log (--audit-log-path, JSON lines) across rotation and store who made "
             "each version and the refused writes (docs/audit.md); a restart resumes where it stopped."),
         QStringLiteral("FILE")});
    p.addOption({QStringLiteral("audit-webhook"),
                 QStringLiteral("Receive the API server's audit webhook batches (--audit-webhook-config-file) over "
                                "HTTPS on HOST:PORT and store who made each version (needs --tls-cert and --tls-key)."),
                 QStringLiteral("HOST:PORT")});
    p.addOption({QStringLiteral("tls-cert"), QStringLiteral("The webhook's serving certificate (PEM, then its chain)."),
                 QStringLiteral("FILE")});
    p.addOption({QStringLiteral("tls-key"), QStringLiteral("The webhook's private key (PEM, RSA or EC)."),
                 QStringLiteral("FILE")});
    p.addOption({QStringLiteral("client-ca"),
                 QStringLiteral("Accept only webhook clients whose certificate this CA signed (the API server's); "
                                "required with --audit-webhook."),
                 QStringLiteral("FILE")});
    p.addOption({QStringLiteral("client-name"),
                 QStringLiteral("With --client-ca: the name (CN or DNS subjectAltName) the API server's client "
                                "certificate carries (repeatable; default kube-apiserver-audit, the sandbox's)."),
                 QStringLiteral("NAME")});
    p.addOption({QStringLiteral("insecure-accept-any-webhook-client"),
                 QStringLiteral("Without --client-ca: let anyone who reaches the webhook post audit events, so anyone "
                                "can name who made a change. Loopback addresses only; for tests.")});
    p.addOption({QStringLiteral("write-webhook-kubeconfig"),
                 QStringLiteral("Write the kubeconfig kube-apiserver needs to reach the webhook "
                                "(--audit-webhook-config-file), then record."),
                 QStringLiteral("FILE")});
    p.addOption({QStringLiteral("webhook-client-cert"),
                 QStringLiteral("The API server's client certificate, put into that kubeconfig (with --client-ca)."),
                 QStringLiteral("FILE")});
    p.addOption({QStringLiteral("webhook-client-key"), QStringLiteral("Its private key, put into that kubeconfig."),
                 QStringLiteral("FILE")});
    addConnectionOptions(p);
}

// The recorder's file and choices; says on stderr whether Secret values reach the disk.
core::HistoryRecorder::Options recorderOptions(const QCommandLineParser &p, bool toStore,
                                               const kube::ResolvedConfig &config, const std::string &db)
{
    const QString context = QString::fromStdString(config.contextName);
    const std::string identity = clusterIdentityOf(config);
    core::HistoryRecorder::Options ro;
    ro.path = db;
    // The file belongs to this cluster from now on: recording another one into it is refused.
    ro.open.clusterIdentity = identity;
    ro.open.clusterLabel = config.server;
    ro.open.recordSecretValues = p.isSet(QStringLiteral("include-secret-values"));
    ro.open.recorderName = p.isSet(QStringLiteral("recorder-name"))
                             ? p.value(QStringLiteral("recorder-name")).toStdString()
                             : recorderNameFor("record");
    if (toStore) {
        // The window writes the same file: the same choices, or one would hash what the other keeps.
        ro.open.folderIsPrivate = true;
        ro.open.recordSecretValues = ro.open.recordSecretValues
                                  || Settings::recordsSecretValues(QString::fromStdString(identity));
        ro.retention.maxVersionsPerObject = Settings::historyVersionsPerObject();
    }
    // An opt-in an earlier version kept per context name is no consent for this cluster: the
    // window asks about it; here it is only mentioned.
    if (!ro.open.recordSecretValues && Settings::hadLegacySecretValuesOptIn(context))
        std::fprintf(
            stderr,
            "fieldscope: note: Secret values are recorded only as hashes: the opt-in for context \"%s\" predates "
            "per-cluster choices; confirm it for this cluster in the window's Settings (or pass --include-secret-values)\n",
            core::visibleEscapes(context.toStdString()).c_str());
    if (ro.open.recordSecretValues)
        std::fprintf(stderr, "fieldscope: Secret values are recorded into %s (--include-secret-values)\n",
                     core::visibleEscapes(core::displayHistoryLocation(db)).c_str());
    return ro;
}

// A watcher and a feed per resource of RESOURCES; nullopt when one does not resolve (the session
// said why).
std::optional<std::vector<std::unique_ptr<RecordedScope>>> recordedScopes(CliSession &session,
                                                                          const QCommandLineParser &p, bool toStore,
                                                                          const QString &resources,
                                                                          core::HistoryRecorder &recorder)
{
    std::vector<std::unique_ptr<RecordedScope>> scopes;
    for (const QString &word : resources.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const auto *r = session.resolve(word.trimmed());
        if (!r)
            return std::nullopt;
        auto s = std::make_unique<RecordedScope>();
        const std::string ns = toStore && !p.isSet(QStringLiteral("namespace")) ? std::string()
                                                                                : session.namespaceFor(p, *r);
        kube::WatchScope ws{
            *r, r->namespaced ? ns : std::string(), p.value(QStringLiteral("selector")).toStdString(), {}};
        s->feed = std::make_unique<core::HistoryFeed>(recorder,
                                                      core::WatchScope::of({r->group, r->version, r->resource},
                                                                           ws.namespace_));
        s->watcher = std::make_unique<kube::Watcher>(&session.client(), ws);
        scopes.push_back(std::move(s));
    }
    return scopes;
}

// What the watchers delivered since the heap was last given back.
struct DeliveredBytes {
    std::int64_t sinceReturn = 0;
};

// Starts every watcher; `versions` counts what the feeds stored.
void startRecording(const std::vector<std::unique_ptr<RecordedScope>> &scopes, std::int64_t &versions,
                    DeliveredBytes &delivered)
{
    for (auto &sp : scopes) {
        RecordedScope *s = sp.get();
        QObject::connect(s->watcher.get(), &kube::Watcher::batchReady,
                         [s, &versions, &delivered](const core::WatchBatch &b) {
                             const bool first = !s->feed->initialListDone();
                             for (const auto &e : b.events)
                                 delivered.sinceReturn += std::int64_t(e.json.size());
                             versions += std::int64_t(s->feed->feed(b));
                             if (first && b.initialListComplete)
                                 std::fprintf(stderr, "fieldscope: recording %s from resourceVersion %s\n",
                                              b.scope.c_str(), b.resourceVersion.c_str());
                         });
        QObject::connect(s->watcher.get(), &kube::Watcher::errorOccurred,
                         [](const QString &m) { std::fprintf(stderr, "fieldscope: %s\n", qUtf8Printable(m)); });
        s->watcher->start();
    }
}

// A recording runs for days: after kReturnHeapAfterBytes of watch data (a list, a burst), once no
// list is under way and the recorder's queue is empty, the heap they left behind goes back to the
// system, as the window does (ClusterRecording::returnMemoryIfSettled, app/gui/clusterrecording.cpp).
void returnHeapWhenSettled(QTimer &timer, const std::vector<std::unique_ptr<RecordedScope>> &scopes,
                           const core::HistoryRecorder &recorder, DeliveredBytes &delivered)
{
    QObject::connect(&timer, &QTimer::timeout, &timer, [&scopes, &recorder, &delivered] {
        if (delivered.sinceReturn < kReturnHeapAfterBytes || recorder.counters().queuedBytes > 0)
            return;
        for (const auto &s : scopes)
            if (const auto state = s->watcher->state();
                state == kube::Watcher::State::Listing || state == kube::Watcher::State::Relisting)
                return;
        delivered.sinceReturn = 0;
        QThreadPool::globalInstance()->start(returnFreedHeap); // the application waits for it at exit
    });
    timer.start(1000);
}

// The marker the window reads ("background recording on since ..."), refreshed while we run.
void keepBackgroundMarker(QTimer &heartbeat, const QString &database, const QString &resources, const QString &context)
{
    const BackgroundRecorder me{
        QCoreApplication::applicationPid(), QDateTime::currentDateTimeUtc(), {}, resources, context};
    auto beat = [database, me] {
        if (auto st = writeBackgroundMarker(database, me); !st)
            std::fprintf(stderr, "fieldscope: %s\n", st.error().describe().c_str());
    };
    beat();
    QObject::connect(&heartbeat, &QTimer::timeout, beat);
    heartbeat.start(30'000);
    std::fprintf(stderr, "fieldscope: recording %s of %s into %s\n", qUtf8Printable(resources), qUtf8Printable(context),
                 qUtf8Printable(database));
}

// Who may post audit events. Whoever can post them can name anyone as the author of any change,
// so a client certificate is required (signed by --client-ca and naming --client-name), unless
// the loudly named flag says otherwise on a loopback address.
core::Status checkWebhookClients(const QCommandLineParser &p, kube::WebhookServerOptions &server)
{
    const bool anyone = p.isSet(QStringLiteral("insecure-accept-any-webhook-client"));
    if (anyone) {
        if (!server.clientCaFile.empty() || p.isSet(QStringLiteral("client-name")))
            return core::Error::make(
                core::ErrorCategory::Config,
                "--insecure-accept-any-webhook-client drops --client-ca and --client-name: give one or the other");
        const std::string &h = server.host; // an IP address or "localhost" (parseWebhookAddress)
        if (h != "localhost" && h != "::1" && h.rfind("127.", 0) != 0)
            return core::Error::make(
                core::ErrorCategory::Config,
                "--insecure-accept-any-webhook-client listens on a loopback address only (127.0.0.1:PORT)");
        return core::success();
    }
    if (server.clientCaFile.empty())
        return core::Error::make(core::ErrorCategory::Config,
                                 "--audit-webhook needs --client-ca FILE, the CA that signed the API server's client "
                                 "certificate (anyone else could post events naming anyone)");
    for (const QString &n : p.values(QStringLiteral("client-name")))
        if (!n.trimmed().isEmpty())
            server.clientNames.push_back(n.trimmed().toStdString());
    if (server.clientNames.empty())
        server.clientNames.emplace_back(kSandboxAuditClientName);
    return core::success();
}

// The webhook of --audit-webhook, listening (before the cluster is reached: the API server's
// batches wait in its queue, and the kubeconfig exists early); nullptr without the option.
core::Result<std::unique_ptr<AuditWebhookReceiver>> startWebhook(const QCommandLineParser &p)
{
    const auto value = [&p](const char *name) { return p.value(QString::fromLatin1(name)).toStdString(); };
    if (!p.isSet(QStringLiteral("audit-webhook"))) {
        for (const char *o : {"tls-cert", "tls-key", "client-ca", "client-name", "insecure-accept-any-webhook-client",
                              "write-webhook-kubeconfig", "webhook-client-cert", "webhook-client-key"})
            if (p.isSet(QString::fromLatin1(o)))
                return core::Error::make(core::ErrorCategory::Config,
                                         "--" + std::string(o) + " goes with --audit-webhook HOST:PORT");
        return std::unique_ptr<AuditWebhookReceiver>();
    }
    AuditWebhookOptions o;
    if (auto st = parseWebhookAddress(value("audit-webhook"), o.server); !st)
        return st.error();
    o.server.certFile = value("tls-cert");
    o.server.keyFile = value("tls-key");
    if (o.server.certFile.empty() || o.server.keyFile.empty())
        return core::Error::make(core::ErrorCategory::Config,
                                 "--audit-webhook serves HTTPS only: give --tls-cert FILE and --tls-key FILE");
    o.server.clientCaFile = value("client-ca");
    if (auto st = checkWebhookClients(p, o.server); !st)
        return st.error();
    o.kubeconfigPath = value("write-webhook-kubeconfig");
    o.clientCertFile = value("webhook-client-cert");
    o.clientKeyFile = value("webhook-client-key");
    auto r = AuditWebhookReceiver::start(o);
    if (!r)
        return r.error();
    std::fprintf(stderr, "fieldscope: audit webhook listening on https://%s:%d/audit%s\n",
                 core::visibleEscapes(o.server.host).c_str(), (*r)->port(),
                 o.server.clientCaFile.empty() ? " for ANY client (--insecure-accept-any-webhook-client)"
                                               : (" (client certificates of --client-ca naming "
                                                  + core::visibleEscapes(o.server.clientNames.front()) + " only)")
                                                     .c_str());
    if (!o.kubeconfigPath.empty()) {
        std::fprintf(stderr, "fieldscope: wrote %s: start kube-apiserver with --audit-webhook-config-file=%s\n",
                     core::visibleEscapes(o.kubeconfigPath).c_str(), core::visibleEscapes(o.kubeconfigPath).c_str());
        if (!o.server.clientCaFile.empty() && o.clientCertFile.empty())
            std::fprintf(stderr,
                         "fieldscope: note: that kubeconfig has no client certificate yet (--client-ca asks for "
                         "one): add client-certificate and client-key, or pass --webhook-client-cert/-key\n");
    }
    return r;
}

// Audit events are joined from the recorder's first commit on: the store exists and is open then,
// and a second connection creating the same database at that moment could fail the recorder's
// own open. Webhook batches wait in the webhook's queue until then. `audit` receives the joiner;
// the connection must be disconnected before `audit` and `webhook` go away.
QMetaObject::Connection startAuditOnFirstCommit(core::HistoryRecorder &recorder, const std::string &db,
                                                const core::HistoryOpenOptions &open, const std::string &auditLog,
                                                AuditWebhookReceiver *webhook, std::unique_ptr<RecordAudit> &audit)
{
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection = QObject::connect(
        &recorder, &core::HistoryRecorder::committed, qApp,
        [connection, db, open, auditLog, webhook, &audit] {
            QObject::disconnect(*connection);
            auto opened = RecordAudit::open(db, open, auditLog, webhook);
            if (!opened) {
                reportError(opened.error());
                QCoreApplication::exit(1);
                return;
            }
            audit = std::move(*opened);
            audit->start();
        },
        Qt::QueuedConnection);
    return *connection;
}

// 0, or the exit code of a command line `record` cannot run (and why, on stderr).
int checkRecordUsage(const QCommandLineParser &p, bool toStore, qint64 &forMs)
{
    if (p.positionalArguments().size() > 1 || (!toStore && p.positionalArguments().size() != 1)
        || toStore == p.isSet(QStringLiteral("db")))
        return reportError(QStringLiteral(
                   "usage: fieldscope record RESOURCE[,RESOURCE...] --db FILE|URL | record [RESOURCE,...] --store"))
             + 1;
    if (p.isSet(QStringLiteral("for")) && (forMs = parseDuration(p.value(QStringLiteral("for")))) < 0)
        return reportError(QStringLiteral("malformed duration \"%1\"").arg(p.value(QStringLiteral("for")))) + 1;
    return 0;
}

// What the writer says reaches stderr (opening, and the cluster check, happen on its thread). A
// store that refuses for a reason only the user can change ends the run with 2, so a service
// (RestartPreventExitStatus=2) stops instead of retrying forever; transient failures keep the run
// going (the writer retries with backoff and marks a gap). Returns the refusal's connection.
QMetaObject::Connection reportRecorder(core::HistoryRecorder &recorder, bool &refused)
{
    QObject::connect(
        &recorder, &core::HistoryRecorder::writeFailed, qApp,
        [](const QString &m) {
            std::fprintf(stderr, "fieldscope: history recording is failing: %s\n", qUtf8Printable(m));
        },
        Qt::QueuedConnection);
    return QObject::connect(
        &recorder, &core::HistoryRecorder::storeRefused, qApp,
        [&refused](const QString &m) {
            std::fprintf(stderr, "fieldscope: not recording: %s\n", qUtf8Printable(m));
            refused = true;
            QCoreApplication::exit(2);
        },
        Qt::QueuedConnection);
}

} // namespace

int runRecord(const QStringList &args)
{
    keepHeapCompact(); // holds the watched objects for as long as it runs, as the window does
    QCommandLineParser p;
    addRecordOptions(p);
    if (int rc = 0; !parseOrHelp(p, args, &rc))
        return rc;
    const bool toStore = p.isSet(QStringLiteral("store"));
    qint64 forMs = -1;
    if (const int usage = checkRecordUsage(p, toStore, forMs); usage != 0)
        return usage;

    auto webhook = startWebhook(p);
    if (!webhook)
        return reportError(webhook.error()); // 2: a configuration the user must change
    auto session = CliSession::open(p);
    if (!session)
        return CliSession::openFailureCode();
    const kube::ResolvedConfig &config = session->connection().config;
    const QString context = QString::fromStdString(config.contextName);
    const std::string db = toStore ? historyLocationFor(context, clusterIdentityOf(config)).toStdString()
                                   : p.value(QStringLiteral("db")).toStdString();
    const QString resources = p.positionalArguments().isEmpty() ? backgroundResources()
                                                                : p.positionalArguments().constFirst();
    const core::HistoryRecorder::Options options = recorderOptions(p, toStore, config, db);
    core::HistoryRecorder recorder(options);
    bool refused = false;
    const QMetaObject::Connection refusal = reportRecorder(recorder, refused);
    auto watched = recordedScopes(*session, p, toStore, resources, recorder);
    if (!watched)
        return 1;
    const auto &scopes = *watched;
    std::unique_ptr<RecordAudit> audit;
    const std::string auditLog = p.value(QStringLiteral("audit-log")).toStdString();
    QMetaObject::Connection firstCommit;
    if (!auditLog.empty() || *webhook)
        firstCommit = startAuditOnFirstCommit(recorder, db, options.open, auditLog, webhook->get(), audit);
    std::int64_t versions = 0;
    DeliveredBytes delivered;
    startRecording(scopes, versions, delivered);
    QTimer heapReturn;
    returnHeapWhenSettled(heapReturn, scopes, recorder, delivered);
    if (forMs >= 0)
        QTimer::singleShot(forMs, QCoreApplication::instance(), [] { QCoreApplication::exit(0); });
    const QString database = QString::fromStdString(db);
    QTimer heartbeat;
    if (toStore)
        keepBackgroundMarker(heartbeat, database, resources, context);
    quitOnTerminationSignals();
    const int rc = QCoreApplication::exec();
    QObject::disconnect(firstCommit); // its lambda holds this function's locals
    QObject::disconnect(refusal);
    heartbeat.stop();
    heapReturn.stop();
    for (auto &s : scopes)
        s->watcher->stop();
    if (toStore)
        removeBackgroundMarker(database);
    if (refused)
        return 2;
    if (auto st = recorder.flush(); !st)
        return reportError(st.error());
    if (audit)
        audit->stop(); // after the last versions are stored, so the last events find them
    // A --db URL may carry a password (refused when opened, but the line names where it went).
    std::fprintf(stderr, "fieldscope: recorded %lld versions into %s\n", static_cast<long long>(versions),
                 core::visibleEscapes(core::displayHistoryLocation(db)).c_str());
    return rc;
}

int runHistory(const QStringList &args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "fieldscope history RESOURCE/NAME [--db FILE|URL]: the versions of an object and who made each change."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("RESOURCE/NAME"),
                            QStringLiteral("e.g. configmaps/demo, deployments.apps/web"));
    p.addOption({{QStringLiteral("n"), QStringLiteral("namespace")},
                 QStringLiteral("Namespace (default: any)."),
                 QStringLiteral("NAMESPACE")});
    p.addOption({QStringLiteral("db"),
                 QStringLiteral("The history database, a team's postgresql:// store, or a .jsonl export (no cluster "
                                "needed). Default: the window's store for the cluster of --context."),
                 QStringLiteral("FILE|URL")});
    addStoreChoiceOptions(p);
    p.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                 QStringLiteral("text (default) or json."),
                 QStringLiteral("FORMAT"),
                 QStringLiteral("text")});
    p.addOption({QStringLiteral("attempts"),
                 QStringLiteral("Also list the writes the server refused (409, 422, 403), from imported audit events "
                                "(fieldscope audit import), in time order among the versions.")});
    p.addOption({QStringLiteral("max-versions"),
                 QStringLiteral("List the newest N versions of each object (default %1; 0 lists all, however many "
                                "the store holds).")
                     .arg(core::kDefaultMaxListedVersions),
                 QStringLiteral("N")});
    if (int rc = 0; !parseOrHelp(p, args, &rc))
        return rc;
    core::HistoryListingOptions listing;
    listing.attempts = p.isSet(QStringLiteral("attempts"));
    std::int64_t omitted = 0;
    listing.omittedVersions = &omitted;
    if (p.isSet(QStringLiteral("max-versions"))) {
        bool ok = false;
        listing.maxVersions = p.value(QStringLiteral("max-versions")).toLongLong(&ok);
        if (!ok || listing.maxVersions < 0)
            return reportError(QStringLiteral("--max-versions takes a number, 0 or more")) + 1;
    }
    const QString target = p.positionalArguments().value(0);
    if (p.positionalArguments().size() != 1 || !target.contains(QLatin1Char('/')))
        return reportError(QStringLiteral("usage: fieldscope history RESOURCE/NAME [--db FILE|URL] [-n NAMESPACE] "
                                          "[-o text|json] [--attempts]"))
             + 1;
    auto location = chosenStore(p);
    if (!location)
        return reportError(location.error());
    auto store = openHistoryForReading(location->toStdString());
    if (!store)
        return reportError(store.error());
    core::ObjectQuery q;
    q.resource = target.section(QLatin1Char('/'), 0, 0).toStdString();
    q.name = target.section(QLatin1Char('/'), 1).toStdString();
    q.namespace_ = p.value(QStringLiteral("namespace")).toStdString();
    q.allNamespaces = !p.isSet(QStringLiteral("namespace"));
    if (p.value(QStringLiteral("output")) == QLatin1String("json")) {
        auto j = core::historyJson(**store, q, listing);
        if (!j)
            return reportError(j.error());
        std::printf("%s\n", core::safeDump(*j, 2).c_str());
        if (omitted > 0)
            std::fprintf(stderr, "fieldscope: %lld older versions not listed (--max-versions 0 lists all)\n",
                         static_cast<long long>(omitted));
        return 0;
    }
    auto t = core::historyText(**store, q, listing);
    if (!t)
        return reportError(t.error());
    std::fputs(t->c_str(), stdout);
    return 0;
}

} // namespace fieldscope::app

namespace fieldscope::app {

int runExport(const QStringList &args)
{
    QCommandLineParser p;
    p.setApplicationDescription(
        QStringLiteral("fieldscope export [--db FILE|URL] --to OUT.jsonl [RESOURCE[/NAME]] [-n NS]: write recorded "
                       "history as JSON Lines (docs/history-format.md); without RESOURCE, everything."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("RESOURCE[/NAME]"), QStringLiteral("What to export (default: everything)."));
    p.addOption({{QStringLiteral("n"), QStringLiteral("namespace")},
                 QStringLiteral("Only this namespace."),
                 QStringLiteral("NAMESPACE")});
    p.addOption({QStringLiteral("db"),
                 QStringLiteral("The history database file or postgresql:// store. Default: the window's store for "
                                "the cluster of --context."),
                 QStringLiteral("FILE|URL")});
    addStoreChoiceOptions(p);
    p.addOption({QStringLiteral("to"), QStringLiteral("The JSON Lines file to write."), QStringLiteral("OUT")});
    if (int rc = 0; !parseOrHelp(p, args, &rc))
        return rc;
    if (!p.isSet(QStringLiteral("to")) || p.positionalArguments().size() > 1)
        return reportError(QStringLiteral(
                   "usage: fieldscope export [--db FILE|URL] --to OUT.jsonl [RESOURCE[/NAME]] [-n NAMESPACE]"))
             + 1;
    auto location = chosenStore(p);
    if (!location)
        return reportError(location.error());
    auto store = core::HistoryStore::open(location->toStdString(), core::HistoryStore::OpenMode::ReadOnly);
    if (!store)
        return reportError(store.error());
    core::ObjectQuery q;
    const QString target = p.positionalArguments().value(0);
    q.resource = target.section(QLatin1Char('/'), 0, 0).toStdString();
    q.name = target.section(QLatin1Char('/'), 1).toStdString();
    q.namespace_ = p.value(QStringLiteral("namespace")).toStdString();
    q.allNamespaces = !p.isSet(QStringLiteral("namespace"));
    core::UnreadableVersions skipped;
    auto n = core::exportJsonLines(**store, q, p.value(QStringLiteral("to")).toStdString(), &skipped);
    if (!n)
        return reportError(n.error());
    std::fprintf(stderr, "fieldscope: wrote %lld versions to %s\n", static_cast<long long>(*n),
                 qUtf8Printable(p.value(QStringLiteral("to"))));
    printUnreadable(skipped, "exported");
    return 0;
}

} // namespace fieldscope::app
