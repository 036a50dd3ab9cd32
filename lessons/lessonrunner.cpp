#include "lessons/lessonrunner.h"

#include "core/base/boundary.h"
#include "core/base/jsonread.h"
#include "core/base/visibletext.h"
#include "core/lessons/lessonreport.h"
#include "core/lessons/lessonrequests.h"
#include "core/objects/names.h"
#include "core/ownership/ownershiptree.h"
#include "kube/apierror.h"
#include "kube/writes.h"
#include "lessons/eventcollector.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <latch>
#include <mutex>
#include <set>
#include <thread>

namespace fieldscope::lessons {

using namespace kube;
using core::Error;
using core::ErrorCategory;
using core::Json;
using core::Result;
using Clock = std::chrono::steady_clock;
using core::LessonCall;
using core::LessonEvent;
using core::LessonOwner;
using core::LessonStepReport;

namespace {

Error cancelledError()
{
    return Error::make(ErrorCategory::Cancelled, "the lesson was stopped");
}

// One request, waited for. Non-2xx answers come back as responses (the caller reads their Status).
// With `stop`, the wait ends (and the request is cancelled) within 50 ms of the stop being set.
Result<HttpResponse> sendAndWait(Transport &transport, HttpRequest request, const std::atomic<bool> *stop = nullptr)
{
    if (stop && stop->load())
        return cancelledError();
    auto promise = std::make_shared<std::promise<Result<HttpResponse>>>();
    auto future = promise->get_future();
    const auto id = transport.start(std::move(request),
                                    [promise](Result<HttpResponse> r) { promise->set_value(std::move(r)); });
    while (stop && future.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
        if (stop->load()) {
            transport.cancel(id);
            return cancelledError();
        }
    }
    return future.get();
}

// Sleeps between polls; false (at once) when the runner was stopped.
bool pauseUnlessStopped(const std::atomic<bool> &stop, std::chrono::milliseconds total)
{
    const auto until = Clock::now() + total;
    while (Clock::now() < until) {
        if (stop.load())
            return false;
        std::this_thread::sleep_for(std::min<Clock::duration>(std::chrono::milliseconds(50), until - Clock::now()));
    }
    return !stop.load();
}

Json parsedBody(const HttpResponse &r)
{
    auto j = core::parseJson(r.body);
    return j.ok() ? std::move(*j) : Json();
}

std::string resourceVersionOf(const Json &object)
{
    return core::stringAt(object, "/metadata/resourceVersion").value_or(std::string());
}

// The label every namespace a lesson creates carries: what a runner may adopt and delete.
constexpr const char *kManagedByLabel = "app.kubernetes.io/managed-by";
constexpr const char *kManagedByValue = "fieldscope-lesson";

bool carriesLessonLabel(const Json &ns)
{
    return core::stringAt(ns, std::string("/metadata/labels/") + "app.kubernetes.io~1managed-by") == kManagedByValue;
}

} // namespace

struct LessonRunner::Impl {
    std::atomic<bool> stop{false}; // set by LessonRunner::stop() from any thread
    bool madeNamespace = false;    // reset() created the namespace (201), so removeNamespace() may delete it
    core::Status ensureNamespace(const std::string &ns);
    core::Status classNamespaceExists(const std::string &ns);
    core::Status deleteObjects(const core::Lesson &lesson, const std::string &ns);
    TransportConfig config;
    ResolveKind resolve;
    ResolvePerson people;
    std::map<std::string, TransportConfig> personConfigs;
    std::unique_ptr<Transport> transport; // the runner's own reads, deletes and watches
    // resourceVersion of each object after each step, for resourceVersionAfterStep.
    std::vector<std::map<std::string, std::string>> versionsAfterStep;
    Clock::time_point stepStart;
    // {winner} and {last} of the latest step that sent writes: a step that only looks refers to them.
    std::optional<int> winner, last;

    const ResourceInfo &resource(const core::LessonTarget &t) const
    {
        const ResourceInfo *r = resolve(t.apiVersion, t.kind);
        if (!r)
            throw Error::make(ErrorCategory::NotFound,
                              "the server has no resource for " + t.kind + " in " + t.apiVersion);
        return *r;
    }

    static std::string key(const core::LessonTarget &t) { return t.apiVersion + "/" + t.kind + "/" + t.name; }

    // GET; null when the object does not exist.
    Result<Json> read(Transport &via, const core::LessonTarget &t, const std::string &ns)
    {
        auto r = sendAndWait(via, getRequest(resource(t), ns, t.name), &stop);
        if (!r)
            return r.error();
        if (r->status == 404)
            return Json();
        if (!isSuccess(r->status))
            return errorFromResponse(*r, "GET " + t.describe());
        return parsedBody(*r);
    }

    std::int64_t sinceStart() const
    {
        return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - stepStart).count();
    }

    // Sends one request and records it; `body` receives a 2xx answer's object.
    LessonCall perform(Transport &via, HttpRequest request, LessonCall call, Json *body = nullptr)
    {
        call.method = request.method;
        call.path = request.path.substr(0, request.path.find('?'));
        call.sentMs = sinceStart();
        auto r = sendAndWait(via, std::move(request), &stop);
        call.answeredMs = sinceStart();
        if (!r) {
            call.message = r.error().describe();
            return call;
        }
        call.status = r->status;
        if (isSuccess(r->status)) {
            Json object = parsedBody(*r);
            call.resourceVersion = resourceVersionOf(object);
            if (body)
                *body = std::move(object);
        } else {
            const Error e = errorFromResponse(*r);
            call.reason = e.reason.empty() ? std::string(core::categoryName(e.category)) : e.reason;
            call.message = e.message;
            call.conflicts = e.conflicts;
        }
        return call;
    }

    // The request one client sends for one write (core/lessons/lessonrequests.h). `read` is the object
    // the client read (for preconditions and read-modify-write), null when it did not read.
    Result<HttpRequest> buildWrite(const core::LessonRequest &q, int client, int write, const Json &read,
                                   const std::string &rv, const std::string &ns)
    {
        const ResourceInfo &r = resource(q.target);
        auto built = core::buildLessonWrite(q, {r.collectionPath(ns), r.objectPath(ns, q.target.name, q.subresource)},
                                            client, write, read, rv);
        if (!built)
            return built.error();
        HttpRequest req;
        req.method = std::move(built->method);
        req.path = std::move(built->path);
        req.contentType = std::move(built->contentType);
        req.body = std::move(built->body);
        return req;
    }

    // Everything one client does for a request: `repeat` writes, each retried when asked.
    std::vector<LessonCall> runClient(Transport &via, const core::LessonRequest &q, int client, const Json &sharedRead,
                                      const std::string &sharedRv, const std::string &ns)
    {
        std::vector<LessonCall> calls;
        for (int write = 1; write <= q.repeat; ++write) {
            for (int attempt = 1; attempt <= (q.retry ? q.maxAttempts : 1); ++attempt) {
                Json read = sharedRead;
                std::string rv = sharedRv;
                if (q.retry) { // read-modify-write: a fresh read for every attempt
                    read = Json();
                    calls.push_back(perform(via, getRequest(resource(q.target), ns, q.target.name),
                                            {client, write, attempt, false}, &read));
                    rv = resourceVersionOf(read);
                }
                auto request = buildWrite(q, client, write, read, rv, ns);
                if (!request) { // nothing is sent; the step reports why
                    LessonCall failed{client, write, attempt, true};
                    failed.unbuilt = true;
                    failed.message = "the request could not be built: " + request.error().describe();
                    calls.push_back(std::move(failed));
                    break;
                }
                calls.push_back(perform(via, std::move(*request), {client, write, attempt, true}));
                const LessonCall &c = calls.back();
                if (c.ok() || !q.retry || c.status != 409)
                    break;
            }
        }
        return calls;
    }

    // One concurrent client: its connection and what it sends (a student's own request).
    struct ClientPlan {
        const TransportConfig *config;
        core::LessonRequest request;
        std::string student; // a class step's simulated student
    };

    // The concurrent part of a request: all its clients on the lesson's (or a person's) connection.
    std::vector<LessonCall> runRequest(const core::LessonRequest &q, const Json &sharedRead,
                                       const std::string &sharedRv, const std::string &ns)
    {
        const TransportConfig &as = q.as.empty() ? config : personConfig(q.as);
        return runClients(std::vector<ClientPlan>(std::size_t(q.clients), ClientPlan{&as, q, {}}), sharedRead, sharedRv,
                          ns);
    }

    // One Transport (thread and connection) per client, all released at once.
    std::vector<LessonCall> runClients(const std::vector<ClientPlan> &plans, const Json &sharedRead,
                                       const std::string &sharedRv, const std::string &ns)
    {
        const int n = int(plans.size());
        std::vector<std::unique_ptr<Transport>> clients;
        for (const ClientPlan &plan : plans) {
            clients.push_back(std::make_unique<Transport>(*plan.config));
            HttpRequest warm; // opens the connection (TCP, TLS, auth) before the race starts
            warm.path = "/version";
            (void)sendAndWait(*clients.back(), warm, &stop);
        }
        std::vector<std::vector<LessonCall>> perClient(static_cast<std::size_t>(n));
        std::latch start(n + 1);
        std::vector<std::thread> threads;
        threads.reserve(std::size_t(n));
        for (int i = 0; i < n; ++i) {
            threads.emplace_back([&, i] {
                start.arrive_and_wait();
                const auto at = std::size_t(i);
                // The client thread's last boundary: a typed Error (no resource for the kind) and
                // any other exception (core/base/boundary.h) end this client's writes, not the process.
                const core::Status st = core::guarded("lesson client " + std::to_string(i + 1), [&] {
                    try {
                        perClient[at] = runClient(*clients[at], plans[at].request, i + 1, sharedRead, sharedRv, ns);
                    } catch (const Error &e) {
                        LessonCall failed{i + 1, 1, 1, true};
                        failed.message = e.describe();
                        perClient[at].push_back(failed);
                    }
                });
                if (!st) {
                    LessonCall failed{i + 1, 1, 1, true};
                    failed.message = st.error().describe();
                    perClient[at].push_back(failed);
                }
                for (LessonCall &c : perClient[at])
                    c.student = plans[at].student;
            });
        }
        start.arrive_and_wait();
        for (std::thread &t : threads)
            t.join();
        std::vector<LessonCall> out;
        for (auto &c : perClient)
            out.insert(out.end(), c.begin(), c.end());
        return out;
    }

    // The connection of a person (LessonRequest::as); throws when there is none.
    const TransportConfig &personConfig(const std::string &person)
    {
        if (auto it = personConfigs.find(person); it != personConfigs.end())
            return it->second;
        if (!people)
            throw Error::make(ErrorCategory::Config,
                              "this lesson sends requests as " + person + ", and this connection has no other people");
        auto resolved = people(person);
        if (!resolved)
            throw resolved.error();
        return personConfigs.emplace(person, std::move(*resolved)).first->second;
    }

    // Class steps (lessons/studentwrites.h).
    bool classNamespace = false;
    std::vector<SimulatedStudent> simulated;
    std::shared_ptr<StudentWriteSource> source;
    std::function<void(const StudentPrompt &)> prompt;
    std::string studentShortfall; // why the step's wait for students ended early ("" when it did not)
    std::vector<LessonCall> askStudents(const core::LessonStep &step, std::size_t index, LessonStepReport &report,
                                        const std::string &ns);
    std::vector<LessonCall> observeStudents(const core::LessonStudentTask &task, const LessonStepReport &report,
                                            const std::string &ns, std::chrono::system_clock::time_point since);

    std::string versionToWatchFrom(const ResourceInfo &focus, const Json &before, const std::string &ns);
    std::vector<LessonCall> sendRequests(const core::LessonStep &step, const std::string &ns);
    void awaitOutcome(const core::LessonStep &step, bool wrote, LessonStepReport &report, const std::string &ns);
    void rememberVersions(const core::Lesson &lesson, const core::LessonStep &step, std::size_t index,
                          const Json &focusObject, const std::string &ns);
    void runStep(const core::Lesson &lesson, std::size_t index, LessonStepReport &report, const std::string &ns);
};

void LessonRunner::setPeople(ResolvePerson people)
{
    m_impl->people = std::move(people);
}

void LessonRunner::setClassNamespace(std::string ns)
{
    m_ns = std::move(ns);
    m_impl->classNamespace = true;
}

void LessonRunner::setSimulatedStudents(std::vector<SimulatedStudent> students)
{
    m_impl->simulated = std::move(students);
}

void LessonRunner::setStudentWrites(std::shared_ptr<StudentWriteSource> source)
{
    m_impl->source = std::move(source);
}

void LessonRunner::setStudentPrompt(std::function<void(const StudentPrompt &)> prompt)
{
    m_impl->prompt = std::move(prompt);
}

LessonRunner::LessonRunner(TransportConfig config, ResolveKind resolve, core::Lesson lesson, std::string ns)
    : m_lesson(std::move(lesson)), m_ns(ns.empty() ? m_lesson.ns : std::move(ns)), m_impl(std::make_unique<Impl>())
{
    m_impl->config = std::move(config);
    m_impl->resolve = std::move(resolve);
    m_impl->transport = std::make_unique<Transport>(m_impl->config);
}

LessonRunner::~LessonRunner() = default;

LessonRunner::ResolveKind LessonRunner::resolverFor(DiscoverySnapshot snapshot)
{
    auto kept = std::make_shared<const DiscoverySnapshot>(std::move(snapshot));
    return [kept](const std::string &apiVersion, const std::string &kind) { return kept->findKind(apiVersion, kind); };
}

void LessonRunner::stop()
{
    m_impl->stop.store(true);
}

bool LessonRunner::isStopped() const
{
    return m_impl->stop.load();
}

// Creates the lesson's namespace, or adopts one a lesson made (its label); waits for one being
// deleted (by an earlier removeNamespace: it refuses new objects).
core::Status LessonRunner::Impl::ensureNamespace(const std::string &ns)
{
    Transport &t = *transport;
    // A namespace being deleted (by an earlier removeNamespace) refuses new objects: wait.
    const auto deadline = Clock::now() + std::chrono::seconds(120);
    for (;;) {
        const Json wanted{{"apiVersion", "v1"},
                          {"kind", "Namespace"},
                          {"metadata", {{"name", ns}, {"labels", {{kManagedByLabel, kManagedByValue}}}}}};
        HttpRequest create;
        create.method = "POST";
        create.path = "/api/v1/namespaces?fieldManager=fieldscope-lesson";
        create.contentType = "application/json";
        create.body = core::toJsonText(wanted);
        auto r = sendAndWait(t, create, &stop);
        if (!r)
            return r.error();
        if (isSuccess(r->status)) {
            madeNamespace = true;
            break;
        }
        if (r->status != 409)
            return errorFromResponse(*r, "create namespace " + ns);
        HttpRequest get;
        get.path = "/api/v1/namespaces/" + ns;
        auto existing = sendAndWait(t, get, &stop);
        if (!existing && existing.error().category == ErrorCategory::Cancelled)
            return existing.error();
        if (existing && isSuccess(existing->status)) {
            const Json body = parsedBody(*existing);
            // One being deleted is waited for (then the lesson makes its own). One someone
            // else made is never adopted: the lesson would delete the objects it names there,
            // and the whole namespace at the end.
            if (core::stringAt(body, "/status/phase") != "Terminating") {
                if (!carriesLessonLabel(body))
                    return Error::make(ErrorCategory::Config,
                                       "namespace " + ns + " exists and was not made by a lesson (it has no label "
                                           + kManagedByLabel + "=" + kManagedByValue
                                           + "); run the lesson in a namespace of its own (--namespace)");
                break;
            }
        }
        if (Clock::now() > deadline)
            return Error::make(ErrorCategory::Server, "namespace " + ns + " is still being deleted after 120 s");
        if (!pauseUnlessStopped(stop, std::chrono::milliseconds(500)))
            return cancelledError();
    }
    return core::success();
}

// A class's namespace is the class's: a lesson uses it as it is.
core::Status LessonRunner::Impl::classNamespaceExists(const std::string &ns)
{
    HttpRequest get;
    get.path = "/api/v1/namespaces/" + ns;
    auto existing = sendAndWait(*transport, get, &stop);
    if (!existing)
        return existing.error();
    if (existing->status == 404)
        return Error::make(ErrorCategory::Config,
                           "the class namespace " + ns
                               + " does not exist: start the class first (fieldscope class start)");
    if (!isSuccess(existing->status))
        return errorFromResponse(*existing, "read namespace " + ns);
    return core::success();
}

// Deletes every object the lesson writes and waits until each is gone.
core::Status LessonRunner::Impl::deleteObjects(const core::Lesson &lesson, const std::string &ns)
{
    Transport &t = *transport;
    for (const core::LessonTarget &object : lesson.objects()) {
        const ResourceInfo &r = resource(object);
        auto d = sendAndWait(t, deleteRequest(r, ns, object.name, {}, PropagationPolicy::Background), &stop);
        if (!d)
            return d.error();
        if (!isSuccess(d->status) && d->status != 404)
            return errorFromResponse(*d, "delete " + object.describe());
        const auto deadline = Clock::now() + std::chrono::seconds(60);
        for (;;) {
            auto now = read(t, object, ns);
            if (!now)
                return now.error();
            if (now->is_null())
                break;
            if (Clock::now() > deadline)
                return Error::make(ErrorCategory::Server,
                                   object.describe() + " is still there 60 s after it was deleted");
            if (!pauseUnlessStopped(stop, std::chrono::milliseconds(200)))
                return cancelledError();
        }
    }
    return core::success();
}

core::Status LessonRunner::reset()
{
    m_impl->versionsAfterStep.clear();
    m_impl->winner.reset();
    m_impl->last.reset();
    m_impl->madeNamespace = false; // this reset's answer decides
    // The namespace goes into request paths; a lesson file or a window may name anything.
    if (!core::isDnsLabel(m_ns))
        return Error::make(ErrorCategory::Config, "a lesson's namespace must be a DNS label (a-z, 0-9 and '-'), not \""
                                                      + core::visibleEscapes(m_ns) + "\"");
    try {
        if (auto st = m_impl->classNamespace ? m_impl->classNamespaceExists(m_ns) : m_impl->ensureNamespace(m_ns); !st)
            return st;
        return m_impl->deleteObjects(m_lesson, m_ns);
    } catch (const Error &e) {
        return e;
    } catch (...) {
        return core::currentExceptionError("resetting the lesson");
    }
}

core::Status LessonRunner::removeNamespace()
{
    if (m_impl->classNamespace) { // the class's namespace stays; the lesson's objects go
        try {
            return m_impl->deleteObjects(m_lesson, m_ns);
        } catch (const Error &e) {
            return e;
        } catch (...) {
            return core::currentExceptionError("removing the lesson's objects");
        }
    }
    // Only a namespace this runner made, or one a lesson made (its label): never one a lesson
    // was merely pointed at.
    if (!m_impl->madeNamespace) {
        HttpRequest get;
        get.path = "/api/v1/namespaces/" + m_ns;
        auto existing = sendAndWait(*m_impl->transport, get);
        if (!existing)
            return existing.error();
        if (existing->status == 404)
            return core::success();
        if (!isSuccess(existing->status))
            return errorFromResponse(*existing, "read namespace " + m_ns);
        if (!carriesLessonLabel(parsedBody(*existing)))
            return Error::make(ErrorCategory::Config, "namespace " + m_ns + " was not made by a lesson: not deleted");
    }
    HttpRequest del;
    del.method = "DELETE";
    del.path = "/api/v1/namespaces/" + m_ns;
    auto r = sendAndWait(*m_impl->transport, del);
    if (!r)
        return r.error();
    if (!isSuccess(r->status) && r->status != 404)
        return errorFromResponse(*r, "delete namespace " + m_ns);
    return core::success();
}

// Where the step's watch starts: the object's version before the writes, or the collection's
// current version when the object does not exist yet.
std::string LessonRunner::Impl::versionToWatchFrom(const ResourceInfo &focus, const Json &before, const std::string &ns)
{
    std::string fromVersion = resourceVersionOf(before);
    if (fromVersion.empty()) {
        HttpRequest list;
        list.path = focus.collectionPath(ns) + "?limit=1";
        auto l = sendAndWait(*transport, list, &stop);
        if (l && isSuccess(l->status))
            fromVersion = resourceVersionOf(parsedBody(*l));
    }
    return fromVersion;
}

// Every request of the step, each with its clients racing; the calls in order of their answers.
std::vector<LessonCall> LessonRunner::Impl::sendRequests(const core::LessonStep &step, const std::string &ns)
{
    std::vector<LessonCall> out;
    for (const core::LessonRequest &q : step.requests) {
        Json sharedRead;
        std::string sharedRv;
        if (q.precondition == core::LessonPrecondition::Read && !q.retry) {
            auto r = read(*transport, q.target, ns);
            if (!r)
                throw r.error();
            sharedRead = *r;
            sharedRv = resourceVersionOf(sharedRead);
        } else if (q.precondition == core::LessonPrecondition::AfterStep) {
            const auto s = std::size_t(q.afterStep - 1);
            if (s < versionsAfterStep.size())
                sharedRv = versionsAfterStep[s][key(q.target)];
        }
        if (q.verb != core::LessonVerb::Update)
            sharedRead = Json(); // only an update sends the object it read
        auto calls = runRequest(q, sharedRead, sharedRv, ns);
        out.insert(out.end(), calls.begin(), calls.end());
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const LessonCall &a, const LessonCall &b) { return a.answeredMs < b.answeredMs; });
    return out;
}

// A class step: tells the students (through the caller's prompt) and gets their writes, from
// the simulated students it drives itself or from what the source observed of real ones.
std::vector<LessonCall> LessonRunner::Impl::askStudents(const core::LessonStep &step, std::size_t index,
                                                        LessonStepReport &report, const std::string &ns)
{
    const core::LessonStudentTask &task = *step.students;
    std::vector<std::string> roster;
    for (const SimulatedStudent &s : simulated)
        roster.push_back(s.name);
    if (roster.empty() && source)
        roster = source->students();
    else if (roster.empty())
        throw Error::make(ErrorCategory::Config,
                          "this step waits for students' writes and there is no class: start one (fieldscope class "
                          "start --students NAME,...) and run the lesson with it, or rehearse it with simulated "
                          "students (fieldscope lesson run NAME --simulate-students N)");
    if (roster.empty())
        throw Error::make(ErrorCategory::Config, "this step waits for students' writes and the class has no students");
    report.students = roster;
    report.awaited = task.writes == 0 ? int(roster.size()) : std::min(task.writes, int(roster.size()));
    report.instruction = task.instruction;
    const core::LessonRequest &q = task.request;
    auto shown = read(*transport, q.target, ns);
    if (!shown)
        throw shown.error();
    report.shownResourceVersion = resourceVersionOf(*shown);
    // The step's writes count from before the prompt: a student may write while it is still on
    // its way (a slow terminal, the window's dialog), and that write is theirs.
    const auto since = std::chrono::system_clock::now();
    if (prompt)
        prompt(StudentPrompt{index, task.instruction, q.target.describe(), ns, report.shownResourceVersion,
                             report.awaited, task.timeoutSeconds});
    std::vector<LessonCall> calls;
    if (simulated.empty()) {
        calls = observeStudents(task, report, ns, since);
    } else { // every simulated student does what the screen says, all at once
        const bool onScreen = q.precondition == core::LessonPrecondition::Read && !q.retry;
        const Json sharedRead = onScreen && q.verb == core::LessonVerb::Update ? *shown : Json();
        std::vector<ClientPlan> plans;
        for (const SimulatedStudent &s : simulated)
            plans.push_back({&s.config, core::studentRequest(task, s.name), s.name});
        calls = runClients(plans, sharedRead, onScreen ? report.shownResourceVersion : std::string(), ns);
        std::stable_sort(calls.begin(), calls.end(),
                         [](const LessonCall &a, const LessonCall &b) { return a.answeredMs < b.answeredMs; });
    }
    if (const int done = studentsDone(calls, task.until); done < report.awaited && studentShortfall.empty())
        studentShortfall = "waited for " + std::to_string(report.awaited) + " students to "
                         + (task.until == core::LessonStudentsUntil::Wrote ? "write to " : "succeed in writing ")
                         + q.target.describe() + "; " + std::to_string(done) + " did";
    return calls;
}

// Real students: their writes to the step's object from the source, until enough arrived or the
// step's time is up.
std::vector<LessonCall> LessonRunner::Impl::observeStudents(const core::LessonStudentTask &task,
                                                            const LessonStepReport &report, const std::string &ns,
                                                            std::chrono::system_clock::time_point since)
{
    const auto deadline = Clock::now() + std::chrono::seconds(task.timeoutSeconds);
    const StudentObject object{resource(task.request.target).resource, ns, task.request.target.name};
    const bool everyWrite = task.request.retry || task.until == core::LessonStudentsUntil::Succeeded;
    std::vector<LessonCall> calls;
    std::string unread;
    for (;;) {
        if (auto writes = source->writesSince(since)) {
            calls = studentCalls(*writes, report.students, object, everyWrite, since);
            unread.clear();
        } else {
            unread = writes.error().describe();
        }
        const int done = studentsDone(calls, task.until);
        if (done >= report.awaited)
            return calls;
        if (Clock::now() >= deadline) {
            studentShortfall = "waited " + std::to_string(task.timeoutSeconds) + " s for "
                             + std::to_string(report.awaited) + " students' writes to " + task.request.target.describe()
                             + "; " + std::to_string(done) + " arrived"
                             + (unread.empty() ? std::string()
                                               : " (the class's writes could not be read: " + unread + ")");
            return calls;
        }
        if (!pauseUnlessStopped(stop, std::chrono::seconds(1)))
            throw cancelledError();
    }
}

// Controllers write on their own time: reads the object until the claim holds or the step's wait
// is over, filling the object, its last writer and the owners the step looks at.
void LessonRunner::Impl::awaitOutcome(const core::LessonStep &step, bool wrote, LessonStepReport &report,
                                      const std::string &ns)
{
    const auto deadline = Clock::now() + std::chrono::seconds(step.expect.waitSeconds);
    for (;;) {
        auto after = read(*transport, step.focus, ns);
        if (!after)
            throw after.error();
        report.object = *after;
        report.last = core::lastWriter(report, wrote, last);
        report.owners.clear();
        for (const core::LessonOwnerExpectation &o : step.expect.owners)
            report.owners[o.pointer];
        if (auto tree = core::OwnershipTree::build(report.object); tree.ok()) {
            for (const core::LessonOwnerExpectation &o : step.expect.owners)
                report.owners[o.pointer] = core::ownersAt(*tree, o.pointer);
            if (auto owners = core::ownersAt(*tree, step.highlight); !step.highlight.empty() && !owners.empty())
                report.owners.emplace(step.highlight, std::move(owners));
        }
        report.mismatches.clear();
        core::checkExpectation(step.expect, report, false);
        if (report.passed() || Clock::now() >= deadline)
            return;
        if (!pauseUnlessStopped(stop, std::chrono::milliseconds(500)))
            throw cancelledError();
    }
}

// The resourceVersion of every lesson object after step `index`, for later steps' preconditions.
void LessonRunner::Impl::rememberVersions(const core::Lesson &lesson, const core::LessonStep &step, std::size_t index,
                                          const Json &focusObject, const std::string &ns)
{
    if (versionsAfterStep.size() <= index)
        versionsAfterStep.resize(index + 1);
    for (const core::LessonTarget &object : lesson.objects()) {
        auto now = object == step.focus ? Result<Json>(focusObject) : read(*transport, object, ns);
        if (now.ok())
            versionsAfterStep[index][key(object)] = resourceVersionOf(*now);
    }
}

void LessonRunner::Impl::runStep(const core::Lesson &lesson, std::size_t index, LessonStepReport &report,
                                 const std::string &ns)
{
    const core::LessonStep &step = lesson.steps[index];
    stepStart = Clock::now();
    const ResourceInfo &focus = resource(step.focus);
    auto before = read(*transport, step.focus, ns);
    if (!before)
        throw before.error();
    EventCollector watch(*transport, focus, ns, step.focus.name, versionToWatchFrom(focus, *before, ns));

    studentShortfall.clear();
    report.calls = step.students ? askStudents(step, index, report, ns) : sendRequests(step, ns);
    const bool wrote = core::tallyWrites(report, winner);
    awaitOutcome(step, wrote, report, ns);

    // The events of this step's writes: wait until the watch delivered the last one.
    const std::string rvAfter = resourceVersionOf(report.object);
    const bool changed = !rvAfter.empty() && rvAfter != resourceVersionOf(*before);
    report.events = watch.until(changed ? rvAfter : std::string(),
                                changed ? std::chrono::seconds(10) : std::chrono::milliseconds(300), stop);
    report.mismatches.clear();
    core::checkExpectation(step.expect, report, true);
    if (!studentShortfall.empty())
        report.mismatches.push_back(studentShortfall);
    // Whatever the lesson expects, a request it could not send is not the step it describes.
    if (auto c = std::find_if(report.calls.begin(), report.calls.end(), [](const LessonCall &c) { return c.unbuilt; });
        c != report.calls.end())
        report.mismatches.push_back(c->message);

    if (wrote) {
        winner = report.winner;
        last = report.last;
    }
    rememberVersions(lesson, step, index, report.object, ns);
}

LessonStepReport LessonRunner::runStep(std::size_t index)
{
    LessonStepReport report;
    report.index = index;
    if (index >= m_lesson.steps.size()) {
        report.mismatches.push_back("the lesson has no step " + std::to_string(index + 1));
        return report;
    }
    report.title = m_lesson.steps[index].title;
    try {
        m_impl->runStep(m_lesson, index, report, m_ns);
    } catch (const Error &e) {
        report.mismatches.push_back("the step could not run: " + e.describe());
    } catch (...) { // the command line runs steps on its main thread: nothing may escape
        report.mismatches.push_back("the step could not run: "
                                    + core::currentExceptionError("step " + std::to_string(index + 1)).describe());
    }
    return report;
}

} // namespace fieldscope::lessons
