#pragma once
// What every cluster-facing subcommand shares: --context/--kubeconfig, connecting, discovery and
// resolving a user-typed resource name. Command-line only (runs its own event loop).
#include "core/history/historyexport.h"
#include "kube/apiclient.h"
#include "kube/connection.h"
#include "kube/discovery.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fieldscope::app {

void addConnectionOptions(QCommandLineParser &parser);

class CliSession
{
public:
    // Connects and runs discovery; on failure prints the typed error and returns nullopt.
    static std::unique_ptr<CliSession> open(const QCommandLineParser &parser);
    // The same, with the kubeconfig to use when the parser names none ("" = the usual search).
    static std::unique_ptr<CliSession> open(const QCommandLineParser &parser, const QString &defaultKubeconfig);
    // The exit code for the last failed open(): 2 for kubeconfig/usage problems, 1 otherwise.
    static int openFailureCode() { return s_openFailureCode; }

    kube::ApiClient &client() { return *m_client; }
    const kube::Connection &connection() const { return m_connection; }
    // Every resource type the server serves: waits for discovery to finish.
    const kube::DiscoverySnapshot &discovery() const;
    // Resolves RESOURCE (plural, singular, short name, kind, NAME.GROUP); prints an error if unknown.
    // Waits only until no group still to answer could change the answer (configmaps: the core
    // group), so a command does not wait for thousands of groups. The pointer lives as long as
    // the session.
    const kube::ResourceInfo *resolve(const QString &word) const;
    // The resource a manifest's apiVersion and kind name (a cached snapshot without it is asked
    // again); null if none. The pointer lives as long as the session.
    const kube::ResourceInfo *findKind(const std::string &apiVersion, const std::string &kind) const;
    // The server's gitVersion, asked of the server when discovery came from the cache (a cluster
    // may have been upgraded since).
    std::string serverVersion();
    // -n NS, else -A (all), else the context's namespace.
    std::string namespaceFor(const QCommandLineParser &parser, const kube::ResourceInfo &r) const;

    // Runs one request to completion (command line only). The answer's Warning headers (a
    // deprecated API, a policy's warn action, a field the server dropped) go to stderr as
    // "Warning: TEXT", each text once per run, as kubectl prints them.
    core::Result<kube::HttpResponse> call(kube::HttpRequest request);
    void reportWarnings(const std::vector<std::string> &warnings);

    CliSession() = default;
    ~CliSession();
    CliSession(const CliSession &) = delete;
    CliSession &operator=(const CliSession &) = delete;

private:
    // Runs the event loop until `done`, discovery ends or fails.
    void waitForDiscovery(const std::function<bool()> &done) const;

    static inline int s_openFailureCode = 1;
    kube::Connection m_connection;
    std::unique_ptr<kube::ApiClient> m_client;
    std::unique_ptr<kube::Discovery> m_discovery;
    mutable QString m_discoveryFailure;                // the last discovery run's failure (set by its signal)
    mutable std::deque<kube::ResourceInfo> m_resolved; // what resolve() handed out
    std::vector<std::string> m_warned;                 // Warning texts already printed
};

// Parses `args` (the parser has its help option); false when the caller should return *rc: a usage
// error (printed, 2) or --help (printed, 0).
bool parseOrHelp(QCommandLineParser &parser, const QStringList &args, int *rc);
// Prints "fieldscope: <category> (HTTP n Reason): message" to stderr; returns the exit code.
int reportError(const core::Error &e);
int reportError(const QString &message);
// "fieldscope: N versions not <verb>: their stored rows cannot be read" and the first few, escaped.
void printUnreadable(const core::UnreadableVersions &skipped, const char *verb);
// A store to read: a history database, a team's postgresql:// store, or a JSON Lines export
// (docs/history-format.md) imported into a throw-away store, so every query works the same way.
core::Result<std::unique_ptr<core::HistoryStore>> openHistoryForReading(const std::string &location);
// Makes SIGINT/SIGTERM end the event loop normally (exit code 0), so commands flush what they
// hold instead of dying mid-write. Call after the QCoreApplication exists.
void quitOnTerminationSignals();
// "10s", "2m", "1h30m", "500ms" -> milliseconds; -1 when malformed.
qint64 parseDuration(const QString &text);

} // namespace fieldscope::app
