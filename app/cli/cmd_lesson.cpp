// fieldscope lesson list | check FILE... | run NAME: teaching lessons from the command line, for
// rehearsal before a class and for tests. Names, flags and JSON fields are interfaces.
#include "app/cli/clisession.h"
#include "app/cli/commands.h"
#include "app/cli/lessonclass.h"
#include "app/services/lessoncatalog.h"
#include "app/services/sandbox.h"
#include "core/base/visibletext.h"
#include "core/objects/names.h"
#include "lessons/lessonrunner.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <cstdio>
#include <optional>

namespace fieldscope::app {
namespace {

using core::Json;

std::string visible(const std::string &s)
{
    return core::visibleEscapes(s);
}

void print(const std::string &s)
{
    std::fputs(s.c_str(), stdout);
}

QStringList lessonDirs(const QCommandLineParser &p)
{
    return p.values(QStringLiteral("lessons"));
}

void addLessonDirOption(QCommandLineParser &p)
{
    p.addOption({QStringLiteral("lessons"),
                 QStringLiteral("Also load lessons from DIR (repeatable; a lesson named like another replaces it)."),
                 QStringLiteral("DIR")});
}

bool parseArgs(QCommandLineParser &p, const QStringList &args, int *rc)
{
    p.addHelpOption();
    return parseOrHelp(p, args, rc);
}

int runLessonList(const QStringList &args)
{
    QCommandLineParser p;
    p.setApplicationDescription(
        QStringLiteral("fieldscope lesson list: the lessons there are, one a line, name first."));
    addLessonDirOption(p);
    p.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                 QStringLiteral("text (default) or json."),
                 QStringLiteral("FORMAT"),
                 QStringLiteral("text")});
    int rc = 0;
    if (!parseArgs(p, args, &rc))
        return rc;
    const LessonCatalog catalog = loadLessons(lessonDirs(p));
    for (const std::string &e : catalog.errors)
        std::fprintf(stderr, "fieldscope: skipped %s\n", visible(e).c_str());
    if (p.value(QStringLiteral("output")) == QLatin1String("json")) {
        Json all = Json::array();
        for (const core::Lesson &l : catalog.lessons)
            all.push_back({{"name", l.name},
                           {"title", l.title},
                           {"summary", l.summary},
                           {"namespace", l.ns},
                           {"steps", l.steps.size()},
                           {"class", l.isClass},
                           {"source", l.source}});
        print(core::toJsonText(all, 2) + "\n");
        return 0;
    }
    std::size_t width = 0;
    for (const core::Lesson &l : catalog.lessons)
        width = std::max(width, l.name.size());
    for (const core::Lesson &l : catalog.lessons)
        print(l.name + std::string(width - l.name.size() + 2, ' ') + visible(l.title) + "  ("
              + std::to_string(l.steps.size()) + " steps" + (l.isClass ? ", class: needs students" : "") + ")\n");
    return 0;
}

int runLessonCheck(const QStringList &args)
{
    QCommandLineParser p;
    p.setApplicationDescription(
        QStringLiteral("fieldscope lesson check FILE...: is each lesson file correct? Mistakes are named with "
                       "their line."));
    p.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("Lesson files (YAML)."), QStringLiteral("FILE..."));
    int rc = 0;
    if (!parseArgs(p, args, &rc))
        return rc;
    if (p.positionalArguments().isEmpty())
        return reportError(QStringLiteral("usage: fieldscope lesson check FILE...")) + 1;
    int worst = 0;
    for (const QString &file : p.positionalArguments()) {
        auto lesson = readLessonFile(file);
        if (!lesson) {
            std::fprintf(stderr, "%s\n", visible(lesson.error().message).c_str());
            worst = 2;
            continue;
        }
        print(visible(file.toStdString()) + ": ok, " + (lesson->isClass ? "class lesson" : "lesson") + " \""
              + lesson->name + "\" with " + std::to_string(lesson->steps.size()) + " steps in namespace "
              + (lesson->isClass ? std::string("of the class") : lesson->ns) + "\n");
    }
    return worst;
}

std::string ownerText(const std::vector<core::LessonOwner> &owners)
{
    std::string out;
    for (const core::LessonOwner &o : owners)
        out += (out.empty() ? "" : ", ") + visible(o.manager) + " (" + o.operation
             + (o.subresource.empty() ? "" : "/" + o.subresource) + ")";
    return out.empty() ? std::string("nobody") : out;
}

void printStepText(const core::Lesson &lesson, const core::LessonStepReport &r)
{
    print("\nStep " + std::to_string(r.index + 1) + "/" + std::to_string(lesson.steps.size()) + ": " + visible(r.title)
          + "\n");
    for (const core::LessonCall &c : r.calls) {
        char head[64];
        std::snprintf(head, sizeof head, "  %6lldms  ", static_cast<long long>(c.answeredMs));
        std::string who = r.students.empty() ? "client " + std::to_string(c.client) : visible(c.student);
        who.resize(std::max<std::size_t>(who.size(), 9), ' ');
        std::string line = head + who + " " + c.method + " " + visible(c.path) + "  ";
        line += c.status ? std::to_string(c.status) : std::string("no answer");
        if (!c.reason.empty())
            line += " " + visible(c.reason);
        if (!c.ok() && !c.message.empty())
            line += ": " + visible(c.message);
        print(line + "\n");
    }
    std::string summary = "  succeeded " + std::to_string(r.succeeded);
    for (const auto &[reason, n] : r.errors)
        summary += ", " + visible(reason) + " x" + std::to_string(n);
    const bool wrote = std::any_of(r.calls.begin(), r.calls.end(), [](const core::LessonCall &c) { return c.isWrite; });
    if (r.winner && wrote)
        summary += "; winner: " + visible(r.clientName(*r.winner));
    if (r.last && !r.winner && wrote)
        summary += "; the object shows " + visible(r.clientName(*r.last)) + "'s write";
    print(summary + "\n");
    for (const auto &[pointer, owners] : r.owners)
        print("  owners of " + visible(pointer) + ": " + ownerText(owners) + "\n");
    print("  watch: " + std::to_string(r.events.size()) + (r.events.size() == 1 ? " event\n" : " events\n"));
    if (r.passed())
        print("  as the lesson says\n");
    for (const std::string &m : r.mismatches)
        print("  NOT AS THE LESSON SAYS: " + visible(m) + "\n");
}

Json stepJson(const core::LessonStepReport &r)
{
    Json calls = Json::array();
    for (const core::LessonCall &c : r.calls) {
        Json conflicts = Json::array();
        for (const core::FieldConflict &f : c.conflicts)
            conflicts.push_back({{"field", f.path}, {"manager", f.manager}, {"subresource", f.subresource}});
        calls.push_back({{"client", c.client},
                         {"write", c.write},
                         {"attempt", c.attempt},
                         {"isWrite", c.isWrite},
                         {"method", c.method},
                         {"path", c.path},
                         {"status", c.status},
                         {"reason", c.reason},
                         {"message", c.message},
                         {"resourceVersion", c.resourceVersion},
                         {"sentMs", c.sentMs},
                         {"answeredMs", c.answeredMs},
                         {"conflicts", conflicts}});
        if (!r.students.empty())
            calls.back()["student"] = c.student;
    }
    Json owners = Json::object();
    for (const auto &[pointer, list] : r.owners) {
        Json o = Json::array();
        for (const core::LessonOwner &x : list)
            o.push_back({{"manager", x.manager}, {"operation", x.operation}, {"subresource", x.subresource}});
        owners[pointer] = o;
    }
    Json errors = Json::object();
    for (const auto &[reason, n] : r.errors)
        errors[reason] = n;
    Json step{{"step", r.index + 1},
              {"title", r.title},
              {"passed", r.passed()},
              {"succeeded", r.succeeded},
              {"errors", errors},
              {"winner", r.winner ? Json(*r.winner) : Json()},
              {"last", r.last ? Json(*r.last) : Json()},
              {"requests", calls},
              {"owners", owners},
              {"events", r.events.size()},
              {"mismatches", r.mismatches}};
    if (!r.students.empty()) { // a class step: who the numbers are, and what they were asked
        step["students"] = r.students;
        step["awaited"] = r.awaited;
        step["instruction"] = r.instruction;
        step["resourceVersionShown"] = r.shownResourceVersion;
        step["winnerStudent"] = r.winner ? Json(r.clientName(*r.winner)) : Json();
        step["lastStudent"] = r.last ? Json(r.clientName(*r.last)) : Json();
    }
    return step;
}

// The cluster directory a class lesson's class is on (--cluster-dir, default the sandbox's).
QString clusterDir(const QCommandLineParser &p)
{
    return p.isSet(QStringLiteral("cluster-dir")) ? p.value(QStringLiteral("cluster-dir"))
                                                  : SandboxController::dataDir();
}

// The sandbox's kubeconfig when the user named no cluster: lessons are for the sandbox first.
QString sandboxKubeconfig(const QCommandLineParser &p)
{
    if (p.isSet(QStringLiteral("kubeconfig")) || p.isSet(QStringLiteral("context")))
        return {};
    const QString path = clusterDir(p) + QStringLiteral("/kubeconfig");
    return QFileInfo::exists(path) ? path : QString();
}

// A lesson may write without --yes only to the sandbox, or to the cluster directory named with
// --cluster-dir (a class's, as the class commands take it), through that directory's own
// kubeconfig: DIR/kubeconfig exactly, not any file under DIR (--cluster-dir ~ would otherwise
// admit ~/.kube/config and every context in it).
bool isSandbox(const kube::ResolvedConfig &c, const QCommandLineParser &p)
{
    const QString file = QFileInfo(QString::fromStdString(c.sourceFile)).canonicalFilePath();
    if (file.isEmpty())
        return false;
    if (p.isSet(QStringLiteral("cluster-dir")))
        return file == QFileInfo(clusterDir(p) + QStringLiteral("/kubeconfig")).canonicalFilePath();
    const QString dir = QDir(clusterDir(p)).canonicalPath();
    return !dir.isEmpty() && file.startsWith(dir + QLatin1Char('/'))
        && c.contextName == SandboxController::contextName().toStdString();
}

void addLessonRunOptions(QCommandLineParser &p)
{
    p.setApplicationDescription(QStringLiteral(
        "fieldscope lesson run NAME: runs a lesson headless against a cluster (the sandbox when no --context or --kubeconfig "
        "is given) and prints each step's requests and outcomes. Exits 1 when an outcome differs from the lesson's."));
    p.addPositionalArgument(QStringLiteral("NAME"),
                            QStringLiteral("A name from `fieldscope lesson list`, or a lesson file."));
    addConnectionOptions(p);
    addLessonDirOption(p);
    p.addOption({QStringLiteral("namespace"), QStringLiteral("Run in NAMESPACE instead of the lesson's own."),
                 QStringLiteral("NAMESPACE")});
    p.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                 QStringLiteral("text (default) or json."),
                 QStringLiteral("FORMAT"),
                 QStringLiteral("text")});
    p.addOption({QStringLiteral("yes"),
                 QStringLiteral("Run on a cluster that is not the sandbox (the lesson creates and deletes objects).")});
    p.addOption({QStringLiteral("keep"),
                 QStringLiteral("Leave the lesson's namespace and objects for a look afterwards.")});
    p.addOption({QStringLiteral("simulate-students"),
                 QStringLiteral("A class lesson without a class: start a class of N simulated students on the cluster "
                                "directory, each writing on its own connection, and stop it (purged) at the end."),
                 QStringLiteral("N")});
    p.addOption({QStringLiteral("cluster-dir"),
                 QStringLiteral("The cluster directory of the class (default: the sandbox's)."),
                 QStringLiteral("DIR")});
}

// What a class step asks everyone, printed before the run waits for it (on stderr with -o json).
void printPrompt(const lessons::StudentPrompt &a, std::size_t steps, bool simulated, bool json)
{
    std::string instruction; // line by line, each escaped: the lesson file's text, shown as written
    for (std::size_t from = 0; from < a.instruction.size();) {
        const std::size_t nl = std::min(a.instruction.find('\n', from), a.instruction.size());
        instruction += "  " + visible(a.instruction.substr(from, nl - from)) + "\n";
        from = nl + 1;
    }
    const std::string text = "\n" + lessons::promptHeading(a, steps, simulated) + "\n" + instruction + "  "
                           + lessons::promptObject(a) + "\n";
    std::fputs(text.c_str(), json ? stderr : stdout);
    std::fflush(json ? stderr : stdout);
}

// The class a class lesson runs with; nullptr after reporting why (exit code in *rc). Any other
// lesson refuses --simulate-students.
std::unique_ptr<LessonClass> lessonClass(const QCommandLineParser &p, const core::Lesson &lesson, int *rc)
{
    const bool simulate = p.isSet(QStringLiteral("simulate-students"));
    if (!lesson.isClass) {
        if (simulate)
            *rc = reportError(QStringLiteral("lesson %1 is not a class lesson: it has no students to simulate")
                                  .arg(QString::fromStdString(lesson.name)))
                + 1;
        return nullptr;
    }
    if (simulate && p.isSet(QStringLiteral("keep"))) {
        *rc = reportError(QStringLiteral("--keep cannot be used with --simulate-students: the simulated class and "
                                         "its namespace are purged when the lesson ends, so nothing would be kept"))
            + 1;
        return nullptr;
    }
    bool ok = !simulate;
    const int n = simulate ? p.value(QStringLiteral("simulate-students")).toInt(&ok) : 0;
    if (!ok || n < 0 || n > kMaxSimulatedStudents || (simulate && n == 0)) {
        *rc = reportError(QStringLiteral("--simulate-students takes a number of students from 1 to %1")
                              .arg(kMaxSimulatedStudents))
            + 1;
        return nullptr;
    }
    auto opened = LessonClass::open(clusterDir(p), n);
    if (!opened) {
        *rc = reportError(opened.error());
        return nullptr;
    }
    return std::move(*opened);
}

// NAME as a lesson file or a catalog name, in the namespace --namespace asks for; nullopt after
// reporting why, with the exit code in *rc.
std::optional<core::Lesson> lessonToRun(const QCommandLineParser &p, const QString &nameArg, int *rc)
{
    std::optional<core::Lesson> lesson;
    if (QFileInfo(nameArg).isFile()) {
        auto l = readLessonFile(nameArg);
        if (!l) {
            *rc = reportError(l.error());
            return std::nullopt;
        }
        lesson = std::move(*l);
    } else {
        const LessonCatalog catalog = loadLessons(lessonDirs(p));
        const core::Lesson *l = catalog.find(nameArg.toStdString());
        if (!l) {
            *rc = reportError(QStringLiteral("no lesson named \"%1\" (see fieldscope lesson list)").arg(nameArg)) + 1;
            return std::nullopt;
        }
        lesson = *l;
    }
    if (p.isSet(QStringLiteral("namespace"))) {
        lesson->ns = p.value(QStringLiteral("namespace")).toStdString();
        if (!core::isDnsLabel(lesson->ns)) {
            *rc =
                reportError(QStringLiteral("--namespace must be a DNS label (a-z, 0-9 and '-', at most 63), not \"%1\"")
                                .arg(QString::fromStdString(core::visibleEscapes(lesson->ns)).left(80)))
                + 1;
            return std::nullopt;
        }
        if (lesson->ns == "default" || lesson->ns.rfind("kube-", 0) == 0) {
            *rc =
                reportError(QStringLiteral("a lesson deletes what it creates; run it in a namespace of its own, not %1")
                                .arg(QString::fromStdString(lesson->ns)))
                + 1;
            return std::nullopt;
        }
    }
    return lesson;
}

// A lesson creates, rewrites and deletes objects: on anything but the sandbox only with --yes.
bool mayRunOn(const kube::ResolvedConfig &config, const core::Lesson &lesson, const QCommandLineParser &p)
{
    if (isSandbox(config, p) || p.isSet(QStringLiteral("yes")))
        return true;
    std::string objects;
    for (const core::LessonTarget &t : lesson.objects())
        objects += (objects.empty() ? "" : ", ") + t.describe();
    std::fprintf(
        stderr,
        "fieldscope: %s is not the sandbox. The lesson would create namespace %s and delete and rewrite %s in it "
        "(on %s).\nRe-run with --yes to go ahead.\n",
        visible(config.contextName.empty() ? std::string("this cluster") : "context " + config.contextName).c_str(),
        lesson.ns.c_str(), visible(objects).c_str(), visible(config.server).c_str());
    return false;
}

// Runs every step, printing each as text or collecting it into `steps`; returns whether all passed.
bool runSteps(lessons::LessonRunner &runner, const core::Lesson &lesson, bool json, Json &steps)
{
    bool passed = true;
    for (std::size_t i = 0; i < lesson.steps.size(); ++i) {
        const core::LessonStepReport r = runner.runStep(i);
        passed = passed && r.passed();
        if (json)
            steps.push_back(stepJson(r));
        else
            printStepText(lesson, r);
        std::fflush(stdout);
    }
    return passed;
}

int runLessonRun(const QStringList &args)
{
    QCommandLineParser p;
    addLessonRunOptions(p);
    int rc = 0;
    if (!parseArgs(p, args, &rc))
        return rc;
    const QString format = p.value(QStringLiteral("output"));
    if (format != QLatin1String("text") && format != QLatin1String("json"))
        return reportError(QStringLiteral("unknown output format \"%1\" (text, json)").arg(format)) + 1;
    if (p.positionalArguments().size() != 1)
        return reportError(
                   QStringLiteral("usage: fieldscope lesson run NAME [--context C] [--namespace NS] [-o text|json]"))
             + 1;
    const std::optional<core::Lesson> lesson = lessonToRun(p, p.positionalArguments().constFirst(), &rc);
    if (!lesson)
        return rc;
    // A class lesson's class first: starting one may restart the API server the session talks to.
    rc = 0;
    std::unique_ptr<LessonClass> theClass = lessonClass(p, *lesson, &rc);
    if (rc != 0)
        return rc;

    auto session = CliSession::open(p, sandboxKubeconfig(p));
    if (!session)
        return CliSession::openFailureCode();
    const kube::ResolvedConfig &config = session->connection().config;
    if (!mayRunOn(config, *lesson, p))
        return 2;
    lessons::LessonRunner runner(session->connection().transport->config(),
                                 lessons::LessonRunner::resolverFor(session->discovery()), *lesson);
    runner.setPeople(lessonPeople(config));
    const bool json = format == QLatin1String("json");
    if (theClass) {
        theClass->attach(runner);
        runner.setStudentPrompt([&, simulated = theClass->simulated()](const lessons::StudentPrompt &a) {
            printPrompt(a, lesson->steps.size(), simulated, json);
        });
    }
    if (!json)
        print("Lesson " + lesson->name + ": " + visible(lesson->title) + "\nNamespace " + runner.ns() + " on "
              + visible(config.contextName.empty() ? config.server : config.contextName) + "\n");
    if (auto reset = runner.reset(); !reset)
        return reportError(reset.error());
    Json steps = Json::array();
    const bool passed = runSteps(runner, *lesson, json, steps);
    if (!p.isSet(QStringLiteral("keep")))
        if (auto removed = runner.removeNamespace(); !removed)
            std::fprintf(stderr, "fieldscope: could not remove namespace %s: %s\n", runner.ns().c_str(),
                         removed.error().describe().c_str());
    const bool simulated = theClass && theClass->simulated();
    if (theClass)
        if (auto stopped = theClass->close(); !stopped)
            std::fprintf(stderr, "fieldscope: could not stop the simulated class: %s\n",
                         stopped.error().describe().c_str());
    if (json)
        print(core::toJsonText(Json{{"lesson", lesson->name},
                                    {"title", lesson->title},
                                    {"namespace", runner.ns()},
                                    {"context", config.contextName},
                                    {"class", lesson->isClass},
                                    {"students", theClass ? Json(theClass->state().students.size()) : Json()},
                                    {"simulated", simulated},
                                    {"passed", passed},
                                    {"steps", steps}},
                               2)
              + "\n");
    else
        print(passed ? "\nEvery step went as the lesson says.\n" : "\nSome steps did not go as the lesson says.\n");
    return passed ? 0 : 1;
}

} // namespace

int runLesson(const QStringList &args)
{
    const QString sub = args.value(1);
    QStringList rest = args.mid(1);
    if (!rest.isEmpty())
        rest[0] = args.value(0) + QLatin1Char(' ') + sub;
    if (sub == QLatin1String("list"))
        return runLessonList(rest);
    if (sub == QLatin1String("check"))
        return runLessonCheck(rest);
    if (sub == QLatin1String("run"))
        return runLessonRun(rest);
    if (sub == QLatin1String("--help") || sub == QLatin1String("-h") || sub.isEmpty()) {
        std::fputs("Usage: fieldscope lesson list [--lessons DIR] [-o text|json]\n"
                   "       fieldscope lesson check FILE...\n"
                   "       fieldscope lesson run NAME [--context C] [--namespace NS] [-o text|json] [--yes] [--keep]\n"
                   "                             [--simulate-students N] [--cluster-dir DIR]\n"
                   "Teaching lessons that replay Kubernetes' concurrency experiments (docs/lessons.md).\n",
                   sub.isEmpty() ? stderr : stdout);
        return sub.isEmpty() ? 2 : 0;
    }
    return reportError(QStringLiteral("unknown lesson command \"%1\" (list, check, run)").arg(sub)) + 1;
}

} // namespace fieldscope::app
