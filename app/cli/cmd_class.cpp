// fieldscope class start|status|stop|report: a class on the teacher's sandbox, every student with a
// kubeconfig of their own and every write named (app/services/classroom.h, docs/lessons.md
// "Running a class"). Exit codes: 0 done, 1 the cluster or a file failed, 2 a wrong command line.
#include "app/cli/clisession.h"
#include "app/cli/commands.h"
#include "app/services/classroom.h"
#include "app/services/sandbox.h"
#include "core/audit/auditevent.h"
#include "core/base/json.h"
#include "core/base/visibletext.h"

#include <QFile>

#include <cstdio>

namespace fieldscope::app {
namespace {

using Json = core::Json;

std::string visible(const QString &s)
{
    return core::visibleEscapes(s.toStdString());
}

int usageError(const QString &message)
{
    std::fprintf(stderr, "fieldscope: %s\n", qUtf8Printable(message));
    return 2;
}

int failure(const core::Error &e)
{
    std::fprintf(stderr, "fieldscope: %s\n", core::visibleEscapes(e.message).c_str());
    // Invalid from our own checks is a wrong command line; a server's 400/413/422 is not.
    return e.category == core::ErrorCategory::Invalid && e.httpStatus == 0 ? 2 : 1;
}

void addClusterDirOption(QCommandLineParser &p)
{
    p.addHelpOption();
    p.addOption({QStringLiteral("cluster-dir"),
                 QStringLiteral("The sandbox's folder, as `scripts/fieldscope-cluster start DIR` made it (default: the "
                                "window's sandbox, %1).")
                     .arg(SandboxController::dataDir()),
                 QStringLiteral("DIR")});
}

QString clusterDir(const QCommandLineParser &p)
{
    return p.isSet(QStringLiteral("cluster-dir")) ? p.value(QStringLiteral("cluster-dir"))
                                                  : SandboxController::dataDir();
}

QString rfc3339(const QDateTime &t)
{
    return t.isValid() ? t.toUTC().toString(Qt::ISODate) : QString();
}

// -------- start

void addStartOptions(QCommandLineParser &p)
{
    p.setApplicationDescription(QStringLiteral(
        "fieldscope class start [--cluster-dir DIR] (--students NAME[,NAME...] | --roster FILE) [--listen ADDR[:PORT]] "
        "[--expires DURATION] --out DIR: a certificate, a namespace and a kubeconfig (OUT/NAME.kubeconfig) for each "
        "student, on the running sandbox."));
    addClusterDirOption(p);
    p.addOption({QStringLiteral("students"), QStringLiteral("The students' names (DNS labels), comma separated."),
                 QStringLiteral("NAME,...")});
    p.addOption({QStringLiteral("roster"), QStringLiteral("A file of students' names, one a line ('#' comments)."),
                 QStringLiteral("FILE")});
    p.addOption({QStringLiteral("listen"),
                 QStringLiteral("Also serve the API on this address (the students' kubeconfigs name it); default: "
                                "loopback only, for a class on one machine."),
                 QStringLiteral("ADDR[:PORT]")});
    p.addOption({QStringLiteral("expires"),
                 QStringLiteral("How long the students' certificates are valid (e.g. 8h, 90m, 30s; default 8h)."),
                 QStringLiteral("DURATION"), QStringLiteral("8h")});
    p.addOption({QStringLiteral("out"),
                 QStringLiteral("Where to write the students' kubeconfigs, each 0600 (a new folder is made 0700; an "
                                "existing one is left as it is)."),
                 QStringLiteral("DIR")});
}

// The names from --students or --roster; exits 2 on a bad name or roster.
core::Result<QStringList> studentNames(const QCommandLineParser &p)
{
    const bool listed = p.isSet(QStringLiteral("students")), roster = p.isSet(QStringLiteral("roster"));
    if (listed == roster)
        return core::Error::make(core::ErrorCategory::Invalid, "give either --students NAME,... or --roster FILE");
    if (roster) {
        QFile file(p.value(QStringLiteral("roster")));
        if (!file.open(QIODevice::ReadOnly))
            return core::Error::make(core::ErrorCategory::Invalid, "cannot read the roster " + visible(file.fileName())
                                                                       + ": " + file.errorString().toStdString());
        const QByteArray text = file.read(kMaxRosterBytes + 1);
        return parseRoster(text);
    }
    QStringList names;
    for (const QString &name : p.value(QStringLiteral("students")).split(QLatin1Char(','))) {
        if (auto valid = validateStudentName(name.trimmed()); !valid)
            return valid.error();
        if (names.contains(name.trimmed()))
            return core::Error::make(core::ErrorCategory::Invalid, "\"" + visible(name) + "\" is named twice");
        names.append(name.trimmed());
    }
    return names;
}

int runClassStart(const QStringList &args)
{
    QCommandLineParser p;
    addStartOptions(p);
    if (int rc = 0; !parseOrHelp(p, args, &rc))
        return rc;
    if (!p.positionalArguments().isEmpty())
        return usageError(QStringLiteral("class start takes no arguments, only options (see --help)"));
    auto names = studentNames(p);
    if (!names)
        return usageError(QString::fromStdString(names.error().message));
    const qint64 expiresMs = parseDuration(p.value(QStringLiteral("expires")));
    if (expiresMs < 1000)
        return usageError(QStringLiteral("--expires takes a duration like 8h, 90m or 30s"));
    if (p.value(QStringLiteral("out")).isEmpty())
        return usageError(QStringLiteral("--out DIR is required (where the students' kubeconfigs go)"));
    ClassStartOptions options;
    options.clusterDir = clusterDir(p);
    options.students = *names;
    options.listen = p.value(QStringLiteral("listen"));
    options.expires = std::chrono::seconds(expiresMs / 1000);
    options.outDir = p.value(QStringLiteral("out"));
    auto state = startClass(options);
    if (!state)
        return failure(state.error());
    std::printf("class started: %lld students, certificates valid until %s\n",
                static_cast<long long>(state->students.size()), qUtf8Printable(rfc3339(state->expires)));
    if (!state->listen.isEmpty())
        std::printf("students reach the API server at https://%s (it now listens on every address of this machine)\n",
                    visible(state->listen).c_str());
    for (const ClassStudent &s : state->students)
        std::printf("%s\t%s\n", visible(s.name).c_str(), visible(s.kubeconfigPath).c_str());
    return 0;
}

// -------- status

Json studentJson(const ClassStudent &s, const StudentActivity &a)
{
    Json j{{"name", s.name.toStdString()},
           {"namespace", s.ownNamespace.toStdString()},
           {"kubeconfig", s.kubeconfigPath.toStdString()},
           {"requests", a.requests},
           {"writes", a.writes},
           {"refused", a.refused},
           {"lastWrite", nullptr}};
    if (a.lastWrite.isValid())
        j["lastWrite"] = Json{{"object", a.lastObject.toStdString()}, {"time", rfc3339(a.lastWrite).toStdString()}};
    return j;
}

Json classHeaderJson(const ClassState &state)
{
    const bool expired = state.expires.isValid() && state.expires <= QDateTime::currentDateTimeUtc();
    return Json{{"clusterDir", state.clusterDir.toStdString()},
                {"running", state.running && !expired},
                {"stopped", !state.running},
                {"expired", expired},
                {"namespace", state.classNamespace.toStdString()},
                {"listen", state.listen.toStdString()},
                {"started", rfc3339(state.started).toStdString()},
                {"expires", rfc3339(state.expires).toStdString()},
                {"outDir", state.outDir.toStdString()}};
}

QString stateWord(const ClassState &state)
{
    if (!state.running)
        return QStringLiteral("stopped (every student certificate revoked)");
    if (state.expires <= QDateTime::currentDateTimeUtc())
        return QStringLiteral("expired at %1").arg(rfc3339(state.expires));
    return QStringLiteral("running, certificates valid until %1").arg(rfc3339(state.expires));
}

void printStatusText(const ClassState &state, const QList<StudentActivity> &activity)
{
    std::printf("class in %s: %s\n", visible(state.clusterDir).c_str(), qUtf8Printable(stateWord(state)));
    std::printf("namespace %s; kubeconfigs in %s; %s\n", visible(state.classNamespace).c_str(),
                visible(state.outDir).c_str(),
                state.listen.isEmpty() ? "loopback only" : ("listening on " + visible(state.listen) + " too").c_str());
    std::printf("%-24s %9s %7s %8s  %s\n", "STUDENT", "REQUESTS", "WRITES", "REFUSED", "LAST WRITE");
    for (const StudentActivity &a : activity) {
        const std::string last = a.lastWrite.isValid()
                                   ? visible(a.lastObject) + " at " + rfc3339(a.lastWrite).toStdString()
                                   : std::string("-");
        std::printf("%-24s %9lld %7lld %8lld  %s\n", visible(a.name).c_str(), static_cast<long long>(a.requests),
                    static_cast<long long>(a.writes), static_cast<long long>(a.refused), last.c_str());
    }
}

struct ClassRead {
    ClassState state;
    QList<ClassRequest> requests;
    ClassLogCoverage coverage;
};

core::Result<ClassRead> classAndRequests(const QCommandLineParser &p)
{
    auto state = readClassState(clusterDir(p));
    if (!state)
        return state.error();
    ClassLogCoverage coverage;
    auto requests = readClassRequests(*state, 1000000, &coverage);
    if (!requests)
        return requests.error();
    return ClassRead{std::move(state).value(), std::move(requests).value(), coverage};
}

// What the log could not show, one sentence each ("" when nothing is missing).
QStringList coverageWarnings(const ClassState &state, const ClassLogCoverage &coverage)
{
    QStringList out;
    if (coverage.overlongClassLines > 0)
        out << QStringLiteral("%1 audit event(s) of the class were larger than %2 bytes and are not counted "
                              "(a request with a huge body)")
                   .arg(coverage.overlongClassLines)
                   .arg(qint64(core::kMaxAuditEventBytes));
    if (coverage.startRotatedAway(state))
        out << QStringLiteral("the audit log begins at %1, after the class started: its first requests were "
                              "rotated away and are not counted")
                   .arg(rfc3339(coverage.oldestEvent));
    return out;
}

void addCoverageJson(Json &out, const ClassState &state, const ClassLogCoverage &coverage)
{
    out["overlongClassEvents"] = coverage.overlongClassLines;
    out["oldestAuditEvent"] = coverage.oldestEvent.isValid() ? Json(rfc3339(coverage.oldestEvent).toStdString())
                                                             : Json(nullptr);
    out["startRotatedAway"] = coverage.startRotatedAway(state);
}

int runClassStatus(const QStringList &args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "fieldscope class status [--cluster-dir DIR] [-o text|json]: the students, their requests and writes, the "
        "last write and the refused ones, from the API server's audit log."));
    addClusterDirOption(p);
    p.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                 QStringLiteral("text (default) or json."),
                 QStringLiteral("FORMAT"),
                 QStringLiteral("text")});
    if (int rc = 0; !parseOrHelp(p, args, &rc))
        return rc;
    const QString format = p.value(QStringLiteral("output"));
    if (format != QLatin1String("text") && format != QLatin1String("json"))
        return usageError(QStringLiteral("unknown output format \"%1\" (text, json)").arg(format.left(40)));
    auto read = classAndRequests(p);
    if (!read)
        return failure(read.error());
    const auto &[state, requests, coverage] = *read;
    const QList<StudentActivity> activity = summarizeClass(state, requests);
    if (format == QLatin1String("text")) {
        printStatusText(state, activity);
        for (const QString &warning : coverageWarnings(state, coverage))
            std::printf("warning: %s\n", qUtf8Printable(warning));
        return 0;
    }
    Json out = classHeaderJson(state);
    addCoverageJson(out, state, coverage);
    Json students = Json::array();
    for (qsizetype i = 0; i < state.students.size(); ++i)
        students.push_back(studentJson(state.students[i], activity.value(i)));
    out["students"] = std::move(students);
    std::printf("%s\n", core::toJsonText(out, 2).c_str());
    return 0;
}

// -------- stop

int runClassStop(const QStringList &args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "fieldscope class stop [--cluster-dir DIR] [--purge]: revokes every student certificate at once (the API "
        "server refuses them from then on); keeps the namespaces unless --purge."));
    addClusterDirOption(p);
    p.addOption({QStringLiteral("purge"),
                 QStringLiteral("Also delete the class's namespaces, its state and the students' kubeconfigs.")});
    if (int rc = 0; !parseOrHelp(p, args, &rc))
        return rc;
    if (!p.positionalArguments().isEmpty())
        return usageError(QStringLiteral("class stop takes no arguments, only options (see --help)"));
    const bool purge = p.isSet(QStringLiteral("purge"));
    if (auto stopped = stopClass(clusterDir(p), purge); !stopped)
        return failure(stopped.error());
    std::printf(purge
                    ? "class stopped: every student certificate is refused; its namespaces are being deleted\n"
                    : "class stopped: every student certificate is refused; namespaces kept (--purge deletes them)\n");
    return 0;
}

// -------- report

Json requestJson(const ClassRequest &r)
{
    return Json{{"time", rfc3339(r.time).toStdString()},
                {"verb", r.verb.toStdString()},
                {"resource", r.resource.toStdString()},
                {"namespace", r.namespaceName.toStdString()},
                {"name", r.name.toStdString()},
                {"subresource", r.subresource.toStdString()},
                {"code", r.code},
                {"refused", r.refused()},
                {"resourceVersion", r.resourceVersion.toStdString()},
                {"fieldManager", r.fieldManager.toStdString()},
                {"reason", r.reason.toStdString()}};
}

Json reportJson(const ClassState &state, const QList<ClassRequest> &requests)
{
    Json out{{"class", classHeaderJson(state)}};
    Json students = Json::array();
    for (const ClassStudent &s : state.students) {
        Json writes = Json::array(), refused = Json::array();
        for (const ClassRequest &r : requests) {
            if (r.student != s.name || !r.isWrite())
                continue;
            writes.push_back(requestJson(r));
            if (r.refused())
                refused.push_back(requestJson(r));
        }
        students.push_back(Json{
            {"name", s.name.toStdString()}, {"writes", std::move(writes)}, {"refused", std::move(refused)}});
    }
    out["students"] = std::move(students);
    return out;
}

// Everything from the log is escaped, control characters shown as escapes: the report is opened
// in a browser, and students chose those names and messages.
QString html(const QString &s)
{
    return core::visibleText(s).toHtmlEscaped();
}

QString reportHtml(const ClassState &state, const QList<ClassRequest> &requests, const QStringList &warnings)
{
    QString out = QStringLiteral(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
        "<title>Fieldscope class report</title>\n<style>body{font-family:sans-serif;margin:2em}"
        "table{border-collapse:collapse;margin-bottom:2em}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left;"
        "vertical-align:top}tr.refused td{background:#fde8e8}code{font-family:monospace}</style></head><body>\n");
    out += QStringLiteral("<h1>Class report</h1>\n<p>Sandbox <code>%1</code>, namespace <code>%2</code>, started %3, "
                          "certificates valid until %4; %5.</p>\n")
               .arg(html(state.clusterDir), html(state.classNamespace), html(rfc3339(state.started)),
                    html(rfc3339(state.expires)), html(stateWord(state)));
    for (const QString &warning : warnings)
        out += QStringLiteral("<p><strong>Warning:</strong> %1.</p>\n").arg(html(warning));
    const QList<StudentActivity> activity = summarizeClass(state, requests);
    for (qsizetype i = 0; i < state.students.size(); ++i) {
        const ClassStudent &s = state.students[i];
        out += QStringLiteral("<h2>%1</h2>\n<p>%2 requests, %3 writes, %4 refused.</p>\n")
                   .arg(html(s.name))
                   .arg(activity.value(i).requests)
                   .arg(activity.value(i).writes)
                   .arg(activity.value(i).refused);
        out += QStringLiteral("<table><tr><th>Time (UTC)</th><th>Verb</th><th>Object</th><th>HTTP</th>"
                              "<th>Version or refusal</th></tr>\n");
        for (const ClassRequest &r : requests) {
            if (r.student != s.name || !r.isWrite())
                continue;
            const QString object = (r.namespaceName.isEmpty() ? QString() : r.namespaceName + QLatin1Char('/'))
                                 + r.resource + (r.subresource.isEmpty() ? QString() : QLatin1Char('/') + r.subresource)
                                 + QLatin1Char('/') + r.name;
            out += QStringLiteral("<tr%1><td>%2</td><td>%3</td><td><code>%4</code></td><td>%5</td><td>%6</td></tr>\n")
                       .arg(r.refused() ? QStringLiteral(" class=\"refused\"") : QString(), html(rfc3339(r.time)),
                            html(r.verb), html(object), QString::number(r.code),
                            html(r.refused() ? r.reason
                                 : r.resourceVersion.isEmpty()
                                     ? QString()
                                     : QStringLiteral("resourceVersion ") + r.resourceVersion));
        }
        out += QStringLiteral("</table>\n");
    }
    out += QStringLiteral("</body></html>\n");
    return out;
}

int runClassReport(const QStringList &args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "fieldscope class report [--cluster-dir DIR] -o json|html: each student's writes and refused writes with "
        "their times, from the API server's audit log, for the teacher to keep."));
    addClusterDirOption(p);
    p.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                 QStringLiteral("json or html."),
                 QStringLiteral("FORMAT")});
    if (int rc = 0; !parseOrHelp(p, args, &rc))
        return rc;
    const QString format = p.value(QStringLiteral("output"));
    if (format != QLatin1String("json") && format != QLatin1String("html"))
        return usageError(QStringLiteral("class report needs -o json or -o html"));
    auto read = classAndRequests(p);
    if (!read)
        return failure(read.error());
    const auto &[state, requests, coverage] = *read;
    if (format == QLatin1String("json")) {
        Json out = reportJson(state, requests);
        addCoverageJson(out["class"], state, coverage);
        std::printf("%s\n", core::toJsonText(out, 2).c_str());
    } else {
        std::fputs(reportHtml(state, requests, coverageWarnings(state, coverage)).toUtf8().constData(), stdout);
    }
    return 0;
}

// Every option of the class commands, for --help (and so `fieldscope completion` offers them).
QString classHelp()
{
    QCommandLineParser p;
    addStartOptions(p);
    p.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                 QStringLiteral("status: text or json; report: json or html."),
                 QStringLiteral("FORMAT")});
    p.addOption({QStringLiteral("purge"), QStringLiteral("stop: also delete the class's namespaces and state.")});
    QString help = p.helpText();
    help = help.mid(help.indexOf(QStringLiteral("Options:")));
    return QStringLiteral(
               "Usage: fieldscope class start [--cluster-dir DIR] (--students NAME[,NAME...] | --roster FILE) "
               "[--listen ADDR[:PORT]] [--expires DURATION] --out DIR\n"
               "       fieldscope class status [--cluster-dir DIR] [-o text|json]\n"
               "       fieldscope class stop [--cluster-dir DIR] [--purge]\n"
               "       fieldscope class report [--cluster-dir DIR] -o json|html\n"
               "A class on the sandbox: every student gets a kubeconfig of their own and every write is named "
               "(docs/lessons.md, \"Running a class\").\n\n")
         + help;
}

} // namespace

int runClass(const QStringList &args)
{
    const QString sub = args.value(1);
    QStringList rest = args.mid(1);
    if (!rest.isEmpty())
        rest[0] = args.value(0) + QLatin1Char(' ') + sub;
    if (sub == QLatin1String("start"))
        return runClassStart(rest);
    if (sub == QLatin1String("status"))
        return runClassStatus(rest);
    if (sub == QLatin1String("stop"))
        return runClassStop(rest);
    if (sub == QLatin1String("report"))
        return runClassReport(rest);
    if (sub == QLatin1String("--help") || sub == QLatin1String("-h") || sub.isEmpty()) {
        std::fputs(qUtf8Printable(classHelp()), sub.isEmpty() ? stderr : stdout);
        return sub.isEmpty() ? 2 : 0;
    }
    return usageError(QStringLiteral("unknown class command \"%1\" (start, status, stop, report)").arg(sub.left(40)));
}

} // namespace fieldscope::app
