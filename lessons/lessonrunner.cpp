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

// A watch on one object's events, collected while a step runs.
class EventCollector
{
public:
    EventCollector(Transport &transport, const ResourceInfo &r, const std::string &ns, const std::string &name,
                   const std::string &fromResourceVersion)
        : m_transport(transport)
    {
        HttpRequest req;
        req.path = r.collectionPath(ns) + "?watch=1&allowWatchBookmarks=false&timeoutSeconds=600&fieldSelector="
                 + urlEncode("metadata.name=" + name)
                 + (fromResourceVersion.empty() ? "" : "&resourceVersion=" + fromResourceVersion);
        req.streaming = true;
        req.isWatchStart = true;
        auto state = m_state;
        m_id = transport.start(
            std::move(req),
            [state](Result<HttpResponse> r) {
                std::lock_guard lock(state->mutex);
                state->ended = true;
                if (r.ok() && !isSuccess(r->status))
                    state->error = errorFromResponse(*r, "watch").describe();
            },
            [state](const HttpResponse &, std::string_view bytes) {
                std::lock_guard lock(state->mutex);
                state->buffer.append(bytes);
                for (std::size_t nl; (nl = state->buffer.find('\n')) != std::string::npos;) {
                    auto event = core::parseJson(std::string_view(state->buffer).substr(0, nl));
                    state->buffer.erase(0, nl + 1);
                    const auto type = event ? core::stringAt(*event, "/type") : std::nullopt;
                    if (!type)
                        continue;
                    const auto object = event->find("object"); // an object: stringAt found its "type"
                    LessonEvent e{*type, {}, object != event->end() ? *object : Json()};
                    e.resourceVersion = resourceVersionOf(e.object);
                    state->events.push_back(std::move(e));
                }
                return true;
            });
    }
    ~EventCollector() { m_transport.cancel(m_id); }

    // Waits until the event for `resourceVersion` arrived (the watch caught up), at most `limit`.
    std::vector<LessonEvent> until(const std::string &resourceVersion, std::chrono::milliseconds limit,
                                   const std::atomic<bool> &stop)
    {
        const auto deadline = Clock::now() + limit;
        for (;;) {
            {
                std::lock_guard lock(m_state->mutex);
                const bool caughtUp = std::any_of(m_state->events.begin(), m_state->events.end(),
                                                  [&](const LessonEvent &e) {
                                                      return e.resourceVersion == resourceVersion;
                                                  });
                if (caughtUp || m_state->ended || Clock::now() > deadline || stop.load())
                    return m_state->events;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }

private:
    struct State {
        std::mutex mutex;
        std::string buffer;
        std::vector<LessonEvent> events;
        bool ended = false;
        std::string error;
    };
    Transport &m_transport;
    std::shared_ptr<State> m_state = std::make_shared<State>();
    Transport::RequestId m_id = 0;
};

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

    // The concurrent part: one Transport (thread and connection) per client, all released at once.
    std::vector<LessonCall> runRequest(const core::LessonRequest &q, const Json &sharedRead,
                                       const std::string &sharedRv, const std::string &ns)
    {
        std::vector<std::unique_ptr<Transport>> clients;
        const TransportConfig &as = q.as.empty() ? config : personConfig(q.as);
        for (int i = 0; i < q.clients; ++i) {
            clients.push_back(std::make_unique<Transport>(as));
            HttpRequest warm; // opens the connection (TCP, TLS, auth) before the race starts
            warm.path = "/version";
            (void)sendAndWait(*clients.back(), warm, &stop);
        }
        std::vector<std::vector<LessonCall>> perClient(std::size_t(q.clients));
        std::latch start(q.clients + 1);
        std::vector<std::thread> threads;
        threads.reserve(std::size_t(q.clients));
        for (int i = 0; i < q.clients; ++i) {
            threads.emplace_back([&, i] {
                start.arrive_and_wait();
                // The client thread's last boundary: a typed Error (no resource for the kind) and
                // any other exception (core/base/boundary.h) end this client's writes, not the process.
                const core::Status st = core::guarded("lesson client " + std::to_string(i + 1), [&] {
                    try {
                        perClient[std::size_t(i)] = runClient(*clients[std::size_t(i)], q, i + 1, sharedRead, sharedRv,
                                                              ns);
                    } catch (const Error &e) {
                        LessonCall failed{i + 1, 1, 1, true};
                        failed.message = e.describe();
                        perClient[std::size_t(i)].push_back(failed);
                    }
                });
                if (!st) {
                    LessonCall failed{i + 1, 1, 1, true};
                    failed.message = st.error().describe();
                    perClient[std::size_t(i)].push_back(failed);
                }
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

core::Status LessonRunner::reset()
{
    Transport &t = *m_impl->transport;
    const std::atomic<bool> &stop = m_impl->stop;
    m_impl->versionsAfterStep.clear();
    m_impl->winner.reset();
    m_impl->last.reset();
    m_impl->madeNamespace = false; // this reset's answer decides
    // The namespace goes into request paths; a lesson file or a window may name anything.
    if (!core::isDnsLabel(m_ns))
        return Error::make(ErrorCategory::Config, "a lesson's namespace must be a DNS label (a-z, 0-9 and '-'), not \""
                                                      + core::visibleEscapes(m_ns) + "\"");
    try {
        if (auto st = m_impl->ensureNamespace(m_ns); !st)
            return st;
        for (const core::LessonTarget &object : m_lesson.objects()) {
            const ResourceInfo &r = m_impl->resource(object);
            auto d = sendAndWait(t, deleteRequest(r, m_ns, object.name, {}, PropagationPolicy::Background), &stop);
            if (!d)
                return d.error();
            if (!isSuccess(d->status) && d->status != 404)
                return errorFromResponse(*d, "delete " + object.describe());
            const auto deadline2 = Clock::now() + std::chrono::seconds(60);
            for (;;) {
                auto now = m_impl->read(t, object, m_ns);
                if (!now)
                    return now.error();
                if (now->is_null())
                    break;
                if (Clock::now() > deadline2)
                    return Error::make(ErrorCategory::Server,
                                       object.describe() + " is still there 60 s after it was deleted");
                if (!pauseUnlessStopped(stop, std::chrono::milliseconds(200)))
                    return cancelledError();
            }
        }
    } catch (const Error &e) {
        return e;
    } catch (...) {
        return core::currentExceptionError("resetting the lesson");
    }
    return core::success();
}

core::Status LessonRunner::removeNamespace()
{
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

    report.calls = sendRequests(step, ns);
    const bool wrote = core::tallyWrites(report, winner);
    awaitOutcome(step, wrote, report, ns);

    // The events of this step's writes: wait until the watch delivered the last one.
    const std::string rvAfter = resourceVersionOf(report.object);
    const bool changed = !rvAfter.empty() && rvAfter != resourceVersionOf(*before);
    report.events = watch.until(changed ? rvAfter : std::string(),
                                changed ? std::chrono::seconds(10) : std::chrono::milliseconds(300), stop);
    report.mismatches.clear();
    core::checkExpectation(step.expect, report, true);
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
