#include "core/lessons/lesson.h"

#include "core/base/jsonread.h"
#include "core/lessons/lessonrequests.h"
#include "core/objects/names.h"
#include "core/yaml/yaml.h"

#include <algorithm>
#include <set>

namespace fieldscope::core {

const char *lessonVerbName(LessonVerb v)
{
    switch (v) {
    case LessonVerb::Create: return "create";
    case LessonVerb::Update: return "update";
    case LessonVerb::Apply: return "apply";
    case LessonVerb::MergePatch: return "merge-patch";
    case LessonVerb::JsonPatch: return "json-patch";
    }
    return "?";
}

const char *lessonViewName(LessonView v)
{
    switch (v) {
    case LessonView::Table: return "table";
    case LessonView::Yaml: return "yaml";
    case LessonView::Ownership: return "ownership";
    case LessonView::History: return "history";
    case LessonView::Editor: return "editor";
    }
    return "?";
}

std::string LessonTarget::describe() const
{
    return kind + " " + name;
}

bool LessonExpectation::empty() const
{
    return !succeeded && errors.empty() && values.empty() && absent.empty() && owners.empty() && conflicts.empty()
        && !events && consistent.empty();
}

std::vector<LessonTarget> Lesson::objects() const
{
    std::vector<LessonTarget> out{focus};
    auto add = [&](const LessonTarget &t) {
        if (std::find(out.begin(), out.end(), t) == out.end())
            out.push_back(t);
    };
    for (const LessonStep &s : steps) {
        add(s.focus);
        for (const LessonRequest &r : s.requests)
            add(r.target);
        if (s.students)
            add(s.students->request.target);
    }
    return out;
}

std::string expandStudent(const std::string &text, const std::string &student)
{
    static const std::string token = "{student}";
    std::string out;
    std::size_t from = 0;
    for (std::size_t at; (at = text.find(token, from)) != std::string::npos; from = at + token.size())
        out.append(text, from, at - from).append(student);
    return out.append(text, from);
}

Json expandStudent(const Json &value, const std::string &student)
{
    if (value.is_string())
        return expandStudent(value.get<std::string>(), student);
    if (value.is_array()) {
        Json out = Json::array();
        for (const Json &v : value)
            out.push_back(expandStudent(v, student));
        return out;
    }
    if (value.is_object()) {
        Json out = Json::object();
        for (auto it = value.begin(); it != value.end(); ++it)
            out[expandStudent(it.key(), student)] = expandStudent(it.value(), student);
        return out;
    }
    return value;
}

LessonRequest studentRequest(const LessonStudentTask &task, const std::string &student)
{
    LessonRequest q = task.request;
    q.manager = expandStudent(q.manager, student);
    if (!q.object.is_null())
        q.object = expandStudent(q.object, student);
    if (!q.patch.is_null())
        q.patch = expandStudent(q.patch, student);
    return q;
}

std::string expandClient(const std::string &text, int client, int write)
{
    std::string out;
    std::size_t from = 0;
    for (std::size_t at; (at = text.find('{', from)) != std::string::npos;) {
        out.append(text, from, at - from);
        if (text.compare(at, 3, "{i}") == 0)
            out += std::to_string(client);
        else if (text.compare(at, 3, "{n}") == 0)
            out += std::to_string(write);
        else {
            out += '{';
            from = at + 1;
            continue;
        }
        from = at + 3;
    }
    out.append(text, from);
    return out;
}

Json expandClient(const Json &value, int client, int write)
{
    if (value.is_string())
        return expandClient(value.get<std::string>(), client, write);
    if (value.is_array()) {
        Json out = Json::array();
        for (const Json &v : value)
            out.push_back(expandClient(v, client, write));
        return out;
    }
    if (value.is_object()) {
        Json out = Json::object();
        for (auto it = value.begin(); it != value.end(); ++it)
            out[expandClient(it.key(), client, write)] = expandClient(it.value(), client, write);
        return out;
    }
    return value;
}

namespace {

// A lesson mistake: where it is and what is wrong, in a teacher's words.
struct Mistake {
    std::string pointer;
    std::string reason;
};

// Reads typed members of the lesson document, remembering where each is so that an error can
// name the line a teacher has to fix.
class Reader
{
public:
    Reader(const YamlLineMap &lines, std::string file) : m_lines(lines), m_file(std::move(file)) {}

    int lineOf(std::string pointer) const
    {
        for (;;) {
            if (auto it = m_lines.find(pointer); it != m_lines.end())
                return it->second;
            if (pointer.empty())
                return 1;
            pointer.erase(pointer.rfind('/'));
        }
    }

    Error error(const Mistake &m) const
    {
        const std::string where = m_file + ":" + std::to_string(lineOf(m.pointer));
        return Error::make(ErrorCategory::Parse, where + ": " + m.reason, where);
    }

    // Refuses members other than `known` (a typo would otherwise be silently ignored).
    static void onlyKeys(const Json &object, const std::string &at, std::initializer_list<const char *> known)
    {
        for (auto it = object.begin(); it != object.end(); ++it) {
            if (std::none_of(known.begin(), known.end(), [&](const char *k) { return it.key() == k; })) {
                std::string list;
                for (const char *k : known)
                    list += std::string(list.empty() ? "" : ", ") + k;
                throw Mistake{at + "/" + jsonPointerEscape(it.key()),
                              "unknown key \"" + it.key() + "\" (expected one of: " + list + ")"};
            }
        }
    }

    static const Json &object(const Json &parent, const std::string &at, const char *key)
    {
        const Json &v = member(parent, at, key);
        if (!v.is_object())
            throw Mistake{at + "/" + key, std::string("\"") + key + "\" must be a mapping, not " + jsonTypeName(v)};
        return v;
    }
    static const Json &member(const Json &parent, const std::string &at, const char *key)
    {
        auto it = parent.find(key);
        if (it == parent.end())
            throw Mistake{at, std::string("\"") + key + "\" is missing"};
        return *it;
    }
    static std::string string(const Json &parent, const std::string &at, const char *key,
                              std::optional<std::string> fallback = std::nullopt)
    {
        auto it = parent.find(key);
        if (it == parent.end()) {
            if (fallback)
                return *fallback;
            throw Mistake{at, std::string("\"") + key + "\" is missing"};
        }
        if (!it->is_string())
            throw Mistake{at + "/" + key, std::string("\"") + key + "\" must be text, not " + jsonTypeName(*it)};
        return it->get<std::string>();
    }
    static int integer(const Json &parent, const std::string &at, const char *key, int fallback, int min, int max)
    {
        auto it = parent.find(key);
        if (it == parent.end())
            return fallback;
        if (!it->is_number_integer() || it->get<std::int64_t>() < min || it->get<std::int64_t>() > max)
            throw Mistake{at + "/" + key, std::string("\"") + key + "\" must be a whole number from "
                                              + std::to_string(min) + " to " + std::to_string(max)};
        return int(it->get<std::int64_t>());
    }
    static bool boolean(const Json &parent, const std::string &at, const char *key)
    {
        auto it = parent.find(key);
        if (it == parent.end())
            return false;
        if (!it->is_boolean())
            throw Mistake{at + "/" + key, std::string("\"") + key + "\" must be true or false"};
        return it->get<bool>();
    }

private:
    const YamlLineMap &m_lines;
    std::string m_file;
};

void checkPointer(const std::string &pointer, const std::string &at)
{
    if (!pointer.empty() && pointer.front() != '/')
        throw Mistake{at, "\"" + pointer + "\" is not a JSON Pointer (write it like /metadata/labels/app)"};
}

LessonTarget readTarget(const Json &v, const std::string &at)
{
    if (!v.is_object())
        throw Mistake{at, "an object reference must be a mapping with apiVersion, kind and name"};
    Reader::onlyKeys(v, at, {"apiVersion", "kind", "name"});
    LessonTarget t{Reader::string(v, at, "apiVersion"), Reader::string(v, at, "kind"), Reader::string(v, at, "name")};
    if (t.name.empty() || t.kind.empty() || t.apiVersion.empty())
        throw Mistake{at, "apiVersion, kind and name must not be empty"};
    return t;
}

// The object a manifest writes: its apiVersion, kind and metadata.name.
LessonTarget manifestTarget(const Json &m, const std::string &at)
{
    if (!m.is_object())
        throw Mistake{at, "\"object\" must be a mapping (a Kubernetes manifest)"};
    const Json &meta = Reader::object(m, at, "metadata");
    LessonTarget t{Reader::string(m, at, "apiVersion"), Reader::string(m, at, "kind"),
                   Reader::string(meta, at + "/metadata", "name")};
    if (meta.contains("namespace"))
        throw Mistake{at + "/metadata/namespace", "leave metadata.namespace out: the lesson runs in its own namespace"};
    if (t.name.find("{i}") != std::string::npos)
        throw Mistake{at + "/metadata/name", "every client writes the same object here; \"{i}\" cannot be in its name"};
    return t;
}

LessonVerb readVerb(const Json &r, const std::string &at)
{
    const std::string verb = Reader::string(r, at, "verb");
    static const std::pair<const char *, LessonVerb> verbs[] = {{"create", LessonVerb::Create},
                                                                {"update", LessonVerb::Update},
                                                                {"apply", LessonVerb::Apply},
                                                                {"merge-patch", LessonVerb::MergePatch},
                                                                {"json-patch", LessonVerb::JsonPatch}};
    for (const auto &[name, v] : verbs)
        if (verb == name)
            return v;
    throw Mistake{at + "/verb",
                  "unknown verb \"" + verb + "\" (expected create, update, apply, merge-patch or json-patch)"};
}

void readPrecondition(const Json &r, const std::string &at, int stepNumber, LessonRequest &out)
{
    auto it = r.find("precondition");
    if (it == r.end())
        return;
    const std::string here = at + "/precondition";
    if (it->is_string() && it->get<std::string>() == "none")
        return;
    if (it->is_string() && it->get<std::string>() == "resourceVersion") {
        out.precondition = LessonPrecondition::Read;
        return;
    }
    if (it->is_object()) {
        Reader::onlyKeys(*it, here, {"resourceVersionAfterStep"});
        out.precondition = LessonPrecondition::AfterStep;
        out.afterStep = Reader::integer(*it, here, "resourceVersionAfterStep", 0, 1, 1000);
        if (out.afterStep == 0)
            throw Mistake{here, "\"resourceVersionAfterStep\" is missing"};
        if (out.afterStep >= stepNumber)
            throw Mistake{here + "/resourceVersionAfterStep", "step " + std::to_string(out.afterStep)
                                                                  + " has not run yet when step "
                                                                  + std::to_string(stepNumber) + " sends this request"};
        return;
    }
    throw Mistake{here, "\"precondition\" must be none, resourceVersion, or {resourceVersionAfterStep: N}"};
}

void checkRequestShape(const Json &r, const std::string &at, LessonRequest &out)
{
    const bool manifestVerb = out.verb == LessonVerb::Create || out.verb == LessonVerb::Update
                           || out.verb == LessonVerb::Apply;
    if (manifestVerb) {
        if (r.contains("patch"))
            throw Mistake{at + "/patch", std::string("\"patch\" is for merge-patch and json-patch; ")
                                             + lessonVerbName(out.verb) + " sends \"object\""};
        out.object = Reader::member(r, at, "object");
        out.target = manifestTarget(out.object, at + "/object");
    } else {
        if (r.contains("object"))
            throw Mistake{at + "/object", R"(a patch request names its object with "target" and sends "patch")"};
        out.patch = Reader::member(r, at, "patch");
        if (out.verb == LessonVerb::JsonPatch) {
            if (!out.patch.is_array())
                throw Mistake{at + "/patch", "a JSON Patch is a list of operations ({op, path, value})"};
            for (std::size_t i = 0; i < out.patch.size(); ++i) {
                const Json &op = out.patch[i];
                const std::string opAt = at + "/patch/" + std::to_string(i);
                if (!op.is_object())
                    throw Mistake{opAt, "a JSON Patch operation is a mapping"};
                static const std::set<std::string> ops{"add", "remove", "replace", "move", "copy", "test"};
                const std::string name = Reader::string(op, opAt, "op");
                if (!ops.count(name))
                    throw Mistake{opAt + "/op", "unknown JSON Patch operation \"" + name + "\""};
                checkPointer(Reader::string(op, opAt, "path"), opAt + "/path");
                if ((name == "add" || name == "replace" || name == "test") && !op.contains("value"))
                    throw Mistake{opAt, '"' + name + R"(" needs a "value")"};
            }
        } else if (!out.patch.is_object()) {
            throw Mistake{at + "/patch", "a merge patch is a mapping"};
        }
    }
    if (out.verb != LessonVerb::Apply && r.contains("force"))
        throw Mistake{at + "/force", "\"force\" only means something for apply"};
    if (out.retry && out.verb != LessonVerb::Update)
        throw Mistake{at + "/retry", "\"retry\" is a read-modify-write loop; it works with update"};
    if (out.precondition != LessonPrecondition::None
        && (out.verb == LessonVerb::Create || out.verb == LessonVerb::Apply))
        throw Mistake{at + "/precondition",
                      std::string(lessonVerbName(out.verb)) + " takes no resourceVersion precondition"};
}

LessonRequest readRequest(const Json &r, const std::string &at, const LessonTarget &focus, int stepNumber)
{
    if (!r.is_object())
        throw Mistake{at, "a request must be a mapping"};
    Reader::onlyKeys(r, at,
                     {"verb", "clients", "repeat", "manager", "object", "patch", "target", "force", "subresource",
                      "precondition", "retry", "maxAttempts", "as"});
    LessonRequest out;
    out.verb = readVerb(r, at);
    out.clients = Reader::integer(r, at, "clients", 1, 1, 50);
    out.repeat = Reader::integer(r, at, "repeat", 1, 1, 100);
    out.manager = Reader::string(r, at, "manager", std::string("fieldscope-lesson"));
    if (out.manager.empty() || out.manager.size() > 128)
        throw Mistake{at + "/manager",
                      "\"manager\" must be 1 to 128 characters (the server records it in managedFields)"};
    out.as = Reader::string(r, at, "as", std::string());
    if (!out.as.empty() && (out.as.size() > 32 || !std::all_of(out.as.begin(), out.as.end(), [](char c) {
                                return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
                            })))
        throw Mistake{at + "/as",
                      "\"as\" names a person: 1 to 32 lowercase letters or digits (a context CONTEXT-NAME)"};
    out.force = Reader::boolean(r, at, "force");
    out.retry = Reader::boolean(r, at, "retry");
    out.maxAttempts = Reader::integer(r, at, "maxAttempts", 20, 1, 1000);
    out.subresource = Reader::string(r, at, "subresource", std::string());
    if (!out.subresource.empty() && out.subresource != "status" && out.subresource != "scale")
        throw Mistake{at + "/subresource", "\"subresource\" must be status or scale"};
    readPrecondition(r, at, stepNumber, out);
    out.target = focus;
    checkRequestShape(r, at, out);
    if (auto t = r.find("target"); t != r.end()) {
        if (out.verb != LessonVerb::MergePatch && out.verb != LessonVerb::JsonPatch)
            throw Mistake{at + "/target", R"("target" is for patches; the manifest in "object" names what it writes)"};
        out.target = readTarget(*t, at + "/target");
    }
    // What the runner cannot build is refused here, on its line, not halfway through a run.
    if (auto built = checkLessonRequest(out); !built)
        throw Mistake{at + built.error().where, built.error().message};
    return out;
}

// `owners` of one pointer: field manager names, or {manager, subresource} where the lesson is
// about which subresource a manager wrote through ("scale", "status"; "" = the main resource).
LessonOwnerExpectation readOwners(const std::string &pointer, const Json &list, const std::string &here)
{
    LessonOwnerExpectation o{pointer, {}, std::nullopt};
    if (!list.is_array())
        throw Mistake{here, "owners are a list of field manager names or {manager, subresource}"};
    std::vector<std::string> subresources;
    bool named = false;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const Json &m = list[i];
        const std::string at = here + "/" + std::to_string(i);
        if (m.is_string()) {
            o.managers.push_back(m.get<std::string>());
            subresources.emplace_back();
            continue;
        }
        if (!m.is_object())
            throw Mistake{at, "an owner is a field manager name or {manager, subresource}"};
        Reader::onlyKeys(m, at, {"manager", "subresource"});
        o.managers.push_back(Reader::string(m, at, "manager"));
        subresources.push_back(Reader::string(m, at, "subresource", std::string()));
        if (!subresources.back().empty() && subresources.back() != "status" && subresources.back() != "scale")
            throw Mistake{at + "/subresource",
                          R"("subresource" must be status or scale (or "" for the object itself))"};
        named = true;
    }
    if (named)
        o.subresources = std::move(subresources);
    return o;
}

std::vector<std::string> readPointers(const Json &e, const std::string &at, const char *key)
{
    std::vector<std::string> out;
    auto it = e.find(key);
    if (it == e.end())
        return out;
    if (!it->is_array())
        throw Mistake{at + "/" + key, std::string("\"") + key + "\" must be a list of JSON Pointers"};
    for (std::size_t i = 0; i < it->size(); ++i) {
        const std::string here = at + "/" + key + "/" + std::to_string(i);
        if (!(*it)[i].is_string())
            throw Mistake{here, "a JSON Pointer is text"};
        out.push_back((*it)[i].get<std::string>());
        checkPointer(out.back(), here);
    }
    return out;
}

// A count of a class step's expectation: a number, `all` (every student the step waits for) or,
// for a refusal, `rest` (every write the other counts leave).
int classCount(const Json &parent, const std::string &at, const std::string &key, bool restAllowed)
{
    const Json &v = parent.at(key);
    if (v.is_string() && v.get<std::string>() == "all")
        return kLessonCountAll;
    if (v.is_string() && v.get<std::string>() == "rest" && restAllowed)
        return kLessonCountRest;
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0 && v.get<std::int64_t>() <= 100000)
        return int(v.get<std::int64_t>());
    throw Mistake{at + "/" + jsonPointerEscape(key), "\"" + key + "\" must be a whole number, all"
                                                         + std::string(restAllowed ? " or rest" : "")
                                                         + " (the students' writes are counted when they arrive)"};
}

void readClassCounts(const Json &e, const std::string &at, LessonExpectation &out)
{
    if (e.contains("succeeded"))
        out.succeeded = classCount(e, at, "succeeded", false);
    if (auto it = e.find("errors"); it != e.end()) {
        if (!it->is_object())
            throw Mistake{at + "/errors", "\"errors\" maps a Status reason (Conflict, AlreadyExists) to a count"};
        for (auto r = it->begin(); r != it->end(); ++r)
            out.errors[r.key()] = classCount(*it, at + "/errors", r.key(), true);
    }
    const auto rests = std::count_if(out.errors.begin(), out.errors.end(),
                                     [](const auto &r) { return r.second == kLessonCountRest; });
    if (rests > 1)
        throw Mistake{at + "/errors", "only one refusal can count the rest of the writes"};
}

LessonExpectation readExpectation(const Json &e, const std::string &at, int requestCount, bool classStep)
{
    if (!e.is_object())
        throw Mistake{at, "\"expect\" must be a mapping"};
    Reader::onlyKeys(e, at,
                     {"succeeded", "errors", "values", "absent", "owners", "conflicts", "events", "consistent",
                      "waitSeconds"});
    LessonExpectation out;
    if (classStep)
        readClassCounts(e, at, out);
    else if (e.contains("succeeded"))
        out.succeeded = Reader::integer(e, at, "succeeded", 0, 0, requestCount);
    if (e.contains("events"))
        out.events = Reader::integer(e, at, "events", 0, 0, 100000);
    out.waitSeconds = Reader::integer(e, at, "waitSeconds", 0, 0, 300);
    if (auto it = e.find("errors"); it != e.end() && !classStep) {
        if (!it->is_object())
            throw Mistake{at + "/errors",
                          "\"errors\" maps a Status reason (AlreadyExists, Conflict, Invalid) to a count"};
        for (auto r = it->begin(); r != it->end(); ++r)
            out.errors[r.key()] = Reader::integer(*it, at + "/errors", r.key().c_str(), 0, 1, requestCount);
    }
    if (out.succeeded && !classStep) {
        int total = *out.succeeded;
        for (const auto &[reason, n] : out.errors)
            total += n;
        if (total > requestCount)
            throw Mistake{at, "the step sends " + std::to_string(requestCount) + " requests but expects "
                                  + std::to_string(total) + " answers"};
    }
    if (auto it = e.find("values"); it != e.end()) {
        if (!it->is_object())
            throw Mistake{at + "/values", "\"values\" maps a JSON Pointer to the value it has after the step"};
        for (auto v = it->begin(); v != it->end(); ++v) {
            checkPointer(v.key(), at + "/values/" + jsonPointerEscape(v.key()));
            out.values.emplace_back(v.key(), v.value());
        }
    }
    out.absent = readPointers(e, at, "absent");
    out.consistent = readPointers(e, at, "consistent");
    if (auto it = e.find("owners"); it != e.end()) {
        if (!it->is_object())
            throw Mistake{at + "/owners", "\"owners\" maps a JSON Pointer to the list of field managers that own it"};
        for (auto v = it->begin(); v != it->end(); ++v) {
            const std::string here = at + "/owners/" + jsonPointerEscape(v.key());
            checkPointer(v.key(), here);
            out.owners.push_back(readOwners(v.key(), v.value(), here));
        }
    }
    if (auto it = e.find("conflicts"); it != e.end()) {
        if (!it->is_array())
            throw Mistake{at + "/conflicts", "\"conflicts\" is a list of {field, manager}"};
        for (std::size_t i = 0; i < it->size(); ++i) {
            const std::string here = at + "/conflicts/" + std::to_string(i);
            const Json &c = (*it)[i];
            if (!c.is_object())
                throw Mistake{here, "a conflict is a mapping {field, manager}"};
            Reader::onlyKeys(c, here, {"field", "manager", "every"});
            out.conflicts.push_back({Reader::string(c, here, "field"), Reader::string(c, here, "manager"),
                                     Reader::boolean(c, here, "every")});
        }
    }
    return out;
}

LessonStudentsUntil readUntil(const Json &t, const std::string &at)
{
    const std::string until = Reader::string(t, at, "until", std::string("wrote"));
    if (until == "wrote")
        return LessonStudentsUntil::Wrote;
    if (until == "succeeded")
        return LessonStudentsUntil::Succeeded;
    throw Mistake{at + "/until", "\"until\" must be wrote (each student sent a write) or succeeded (each student's "
                                 "write went through, for a retry loop), not \""
                                     + until + "\""};
}

// `students:` of a class step: what everyone is asked to send, and how long to wait for whom.
LessonStudentTask readStudents(const Json &t, const std::string &at, const LessonTarget &focus, int stepNumber)
{
    if (!t.is_object())
        throw Mistake{at, "\"students\" must be a mapping: instruction, verb, object or patch, writes, timeoutSeconds"};
    Reader::onlyKeys(t, at,
                     {"instruction", "verb", "object", "patch", "target", "manager", "force", "precondition", "retry",
                      "writes", "until", "timeoutSeconds"});
    LessonStudentTask out;
    out.instruction = Reader::string(t, at, "instruction");
    if (out.instruction.find_first_not_of(" \t\n") == std::string::npos)
        throw Mistake{at + "/instruction",
                      "\"instruction\" is what the students read on the screen: it cannot be empty"};
    if (auto p = t.find("precondition"); p != t.end() && !p->is_string())
        throw Mistake{at + "/precondition", "students write with the resourceVersion on the screen (resourceVersion) "
                                            "or none; they cannot see an earlier step's"};
    if (auto w = t.find("writes"); w != t.end()) {
        if (w->is_string() && w->get<std::string>() == "all")
            out.writes = 0;
        else if (w->is_number_integer() && w->get<std::int64_t>() >= 1 && w->get<std::int64_t>() <= kMaxLessonStudents)
            out.writes = int(w->get<std::int64_t>());
        else
            throw Mistake{at + "/writes", "\"writes\" is all (every student) or how many students to wait for, 1 to "
                                              + std::to_string(kMaxLessonStudents)};
    }
    out.until = readUntil(t, at);
    out.timeoutSeconds = Reader::integer(t, at, "timeoutSeconds", 120, 1, kMaxStudentWaitSeconds);
    // The rest is a request as every other step sends it, without its clients and people.
    Json request = t;
    for (const char *key : {"instruction", "writes", "until", "timeoutSeconds"})
        request.erase(key);
    if (!request.contains("manager"))
        request["manager"] = "{student}";
    out.request = readRequest(request, at, focus, stepNumber);
    out.request.maxAttempts = 1000; // a retrying student stops when it succeeds or the step's time is up
    return out;
}

LessonView readView(const Json &s, const std::string &at)
{
    const std::string view = Reader::string(s, at, "view", std::string("table"));
    for (LessonView v :
         {LessonView::Table, LessonView::Yaml, LessonView::Ownership, LessonView::History, LessonView::Editor})
        if (view == lessonViewName(v))
            return v;
    throw Mistake{at + "/view", "unknown view \"" + view + "\" (expected table, yaml, ownership, history or editor)"};
}

LessonStep readStep(const Json &s, const std::string &at, const LessonTarget &lessonFocus, int stepNumber)
{
    if (!s.is_object())
        throw Mistake{at, "a step must be a mapping"};
    Reader::onlyKeys(s, at, {"title", "narrative", "view", "focus", "highlight", "requests", "students", "expect"});
    LessonStep out;
    out.title = Reader::string(s, at, "title");
    out.narrative = Reader::string(s, at, "narrative");
    out.view = readView(s, at);
    out.focus = s.contains("focus") ? readTarget(s.at("focus"), at + "/focus") : lessonFocus;
    out.highlight = Reader::string(s, at, "highlight", std::string());
    checkPointer(out.highlight, at + "/highlight");
    int requestCount = 0;
    if (auto it = s.find("requests"); it != s.end()) {
        if (!it->is_array())
            throw Mistake{at + "/requests", "\"requests\" must be a list"};
        for (std::size_t i = 0; i < it->size(); ++i) {
            out.requests.push_back(readRequest((*it)[i], at + "/requests/" + std::to_string(i), out.focus, stepNumber));
            const LessonRequest &r = out.requests.back();
            requestCount += r.clients * r.repeat;
        }
    }
    if (auto it = s.find("students"); it != s.end()) {
        if (!out.requests.empty())
            throw Mistake{at + "/students", "a step either sends its own requests or waits for the students' writes, "
                                            "not both: make two steps"};
        out.students = readStudents(*it, at + "/students", out.focus, stepNumber);
    }
    if (auto it = s.find("expect"); it != s.end())
        out.expect = readExpectation(*it, at + "/expect", requestCount, out.students.has_value());
    return out;
}

std::string baseName(const std::string &file)
{
    std::string name = file.substr(file.find_last_of('/') + 1);
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".yaml") == 0)
        name.resize(name.size() - 5);
    else if (name.size() > 4 && name.compare(name.size() - 4, 4, ".yml") == 0)
        name.resize(name.size() - 4);
    return name;
}

// `class: true` and steps with `students` go together: a lesson list shows which lessons need a
// class, and a class lesson's steps are all it waits for.
void checkClass(const Json &doc, Lesson &out)
{
    out.isClass = Reader::boolean(doc, "", "class");
    const auto studentStep = std::find_if(out.steps.begin(), out.steps.end(),
                                          [](const LessonStep &s) { return s.students.has_value(); });
    if (out.isClass && studentStep == out.steps.end())
        throw Mistake{"/class",
                      "a class lesson has at least one step with \"students\" (what everyone is asked to do)"};
    if (!out.isClass && studentStep != out.steps.end())
        throw Mistake{"/steps/" + std::to_string(studentStep - out.steps.begin()) + "/students",
                      "a step that waits for students is in a class lesson: add \"class: true\" at the top"};
}

Lesson readLesson(const Json &doc, const std::string &fileName)
{
    if (!doc.is_object())
        throw Mistake{"", "a lesson file is a mapping with title, summary, namespace, object and steps"};
    Reader::onlyKeys(doc, "", {"name", "order", "title", "summary", "namespace", "object", "class", "steps"});
    Lesson out;
    out.source = fileName;
    out.name = Reader::string(doc, "", "name", baseName(fileName));
    if (!isDnsLabel(out.name))
        throw Mistake{doc.contains("name") ? "/name" : "",
                      "the lesson name \"" + out.name
                          + "\" must be lower-case letters, digits and '-' (it is typed on the command line)"};
    out.order = Reader::integer(doc, "", "order", 0, 0, 1000);
    out.title = Reader::string(doc, "", "title");
    out.summary = Reader::string(doc, "", "summary");
    out.ns = Reader::string(doc, "", "namespace", "fs-lesson-" + out.name);
    if (!isDnsLabel(out.ns))
        throw Mistake{"/namespace",
                      "\"" + out.ns
                          + "\" is not a valid namespace name (lower-case letters, digits and '-', at most 63)"};
    if (out.ns == "default" || out.ns.rfind("kube-", 0) == 0)
        throw Mistake{"/namespace",
                      "a lesson deletes what it creates in its namespace; use one of its own, not " + out.ns};
    out.focus = readTarget(Reader::member(doc, "", "object"), "/object");
    const Json &steps = Reader::member(doc, "", "steps");
    if (!steps.is_array() || steps.empty())
        throw Mistake{"/steps", "\"steps\" must be a list with at least one step"};
    for (std::size_t i = 0; i < steps.size(); ++i)
        out.steps.push_back(readStep(steps[i], "/steps/" + std::to_string(i), out.focus, int(i) + 1));
    checkClass(doc, out);
    return out;
}

} // namespace

Result<Lesson> parseLesson(std::string_view text, const std::string &fileName)
{
    if (text.size() > kMaxLessonFileBytes)
        return Error::make(ErrorCategory::Parse, fileName + ": a lesson file is at most 1 MiB", fileName);
    YamlLineMap lines;
    auto doc = yamlToJsonWithLines(text, lines);
    if (!doc) {
        Error e = doc.error();
        e.message = fileName + (e.where.empty() ? "" : " (" + e.where + ")") + ": " + e.message;
        e.where = fileName;
        return e;
    }
    Reader reader(lines, fileName);
    try {
        return readLesson(doc->value, fileName);
    } catch (const Mistake &m) {
        return reader.error(m);
    }
}

} // namespace fieldscope::core
