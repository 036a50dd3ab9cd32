#include "core/audit/auditimport.h"

#include <zlib.h>

#include <algorithm>
#include <limits>
#include <memory>

namespace fieldscope::core {
std::optional<AuditObjectKey> auditJoinableObject(const AuditEvent &e)
{
    if (!e.hasObjectRef || !e.isWrite() || e.objectRef.name.empty() || e.objectRef.resource.empty())
        return std::nullopt;
    return AuditObjectKey{e.objectRef.apiGroup, e.objectRef.resource, e.objectRef.namespace_, e.objectRef.name};
}

AuditJoinLimits AuditImporter::importLimits()
{
    AuditJoinLimits limits;
    limits.holdMs = std::numeric_limits<std::int64_t>::max() / 4;
    return limits;
}

AuditImporter::AuditImporter(HistoryStore &store, AuditJoinLimits limits) : m_store(store), m_joiner(limits) {}

Result<RecordedScopes> RecordedScopes::of(HistoryStore &store)
{
    auto ids = store.scopeIds();
    if (!ids)
        return ids.error();
    RecordedScopes out;
    for (const auto &id : *ids) {
        // "<resource>.<version>[.<group>]/<namespace>": resources and versions hold no dots.
        const auto slash = id.rfind('/');
        const std::string gvr = id.substr(0, slash);
        Scope s;
        s.namespace_ = slash == std::string::npos ? std::string() : id.substr(slash + 1);
        const auto dot1 = gvr.find('.');
        const auto dot2 = dot1 == std::string::npos ? std::string::npos : gvr.find('.', dot1 + 1);
        s.resource = gvr.substr(0, dot1);
        s.group = dot2 == std::string::npos ? std::string() : gvr.substr(dot2 + 1);
        out.scopes.push_back(std::move(s));
    }
    return out;
}

bool RecordedScopes::covers(const AuditObjectKey &object) const
{
    return std::any_of(scopes.begin(), scopes.end(), [&](const Scope &s) {
        return s.resource == object.resource && s.group == object.group
            && (s.namespace_.empty() || s.namespace_ == object.namespace_);
    });
}

void AuditImporter::collect(AuditJoinOutput out)
{
    for (auto &j : out.joins)
        keepJoinEmission(m_joins, std::move(j));
    for (auto &a : out.attempts)
        if (m_scopes && m_scopes->covers(a.object))
            m_attempts.push_back(std::move(a));
}

// Offers every recorded version of the object (each incarnation, in order) to the joiner, each
// with its predecessor so the joiner knows which managedFields entries moved.
Status AuditImporter::loadObject(const AuditObjectKey &key)
{
    if (!m_loaded.insert(auditObjectMapKey(key)).second)
        return success();
    ObjectQuery q;
    q.resource = key.resource;
    q.namespace_ = key.namespace_;
    q.name = key.name;
    auto objects = m_store.findObjects(q);
    if (!objects)
        return objects.error();
    for (const auto &o : *objects) {
        if (!(auditObjectKeyOf(o) == key))
            continue;
        auto infos = m_store.versions(o.id);
        if (!infos)
            return infos.error();
        std::vector<AuditVersion> batch;
        Json previous;
        bool havePrevious = false;
        std::size_t at = 0;
        Status failed = success();
        auto visit = [&](std::int64_t seq, const Json &object) {
            while (at < infos->size() && (*infos)[at].seq != seq)
                ++at;
            if (at == infos->size())
                return false;
            const VersionInfo &info = (*infos)[at];
            auto v = auditVersionOf(object, havePrevious ? &previous : nullptr, info.eventType, key.group, key.resource,
                                    info.observedAtMs);
            if (!v) {
                failed = v.error();
                return false;
            }
            batch.push_back(std::move(*v));
            previous = object;
            havePrevious = true;
            return true;
        };
        // A version whose stored row cannot be read joins nothing; the others of the object do.
        auto unreadable = [&](std::int64_t seq, const std::string &why) {
            if (m_report.problems.size() < kMaxAuditProblems)
                m_report.problems.push_back(key.toString() + " version " + std::to_string(seq) + ": " + why);
            havePrevious = false;
            return true;
        };
        auto st = m_store.forEachVersion(o.id, visit, unreadable);
        if (!st)
            return st;
        if (!failed)
            return failed;
        ++m_report.objects;
        m_report.versions += std::int64_t(batch.size());
        collect(m_joiner.addVersions(batch, 0));
    }
    return success();
}

Status AuditImporter::add(const std::vector<AuditEvent> &events)
{
    if (!m_scopes) {
        auto scopes = RecordedScopes::of(m_store);
        if (!scopes)
            return scopes.error();
        m_scopes = std::move(*scopes);
    }
    for (const auto &e : events)
        if (auto key = auditJoinableObject(e))
            if (auto st = loadObject(*key); !st)
                return st;
    m_report.events += std::int64_t(events.size());
    collect(m_joiner.addEvents(events, 0));
    return success();
}

void AuditImporter::noteDecode(const AuditDecodeResult &decoded, const std::string &source)
{
    m_report.skipped += decoded.skipped;
    for (const auto &p : decoded.problems)
        if (m_report.problems.size() < kMaxAuditProblems)
            m_report.problems.push_back(source + ": " + p);
}

Result<AuditImportReport> AuditImporter::finish()
{
    collect(m_joiner.expire(std::numeric_limits<std::int64_t>::max() / 2));
    std::vector<AuditJoin> joins;
    joins.reserve(m_joins.size());
    for (auto &[key, j] : m_joins) {
        switch (j.match) {
        case AuditMatch::Exact: ++m_report.exact; break;
        case AuditMatch::Probable: ++m_report.probable; break;
        case AuditMatch::Ambiguous: ++m_report.ambiguous; break;
        case AuditMatch::Contested: ++m_report.exact; break; // the joiner emits none: the store contests
        }
        joins.push_back(std::move(j));
    }
    m_joins.clear();
    m_report.attempts = std::int64_t(m_attempts.size());
    m_report.unmatched = m_joiner.stats().unmatched;
    m_report.duplicates = m_joiner.stats().duplicates;
    auto stored = m_store.writeAudit(joins, m_attempts);
    if (!stored)
        return stored.error();
    m_report.storedJoins = stored->joins;
    m_report.storedAttempts = stored->attempts;
    return m_report;
}

Status readAuditLogFile(const std::string &path, const std::function<Status(AuditDecodeResult &)> &onChunk)
{
    // gzread reads a file that is not gzip as it is, so one reader serves both.
    std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), &gzclose);
    if (!file)
        return Error::make(ErrorCategory::Io, "cannot open audit log " + path);
    constexpr unsigned kChunk = 1u << 20;
    gzbuffer(file.get(), kChunk);
    std::string buffer(kChunk, '\0');
    AuditLineDecoder decoder;
    for (;;) {
        const int n = gzread(file.get(), buffer.data(), kChunk);
        if (n < 0) {
            int code = 0;
            const char *message = gzerror(file.get(), &code);
            return Error::make(ErrorCategory::Io,
                               "cannot read audit log " + path + ": " + (message ? message : "read error"));
        }
        AuditDecodeResult chunk;
        if (n == 0)
            decoder.finish(chunk);
        else
            decoder.feed(std::string_view(buffer.data(), std::size_t(n)), chunk);
        if (auto st = onChunk(chunk); !st)
            return st;
        if (n == 0)
            break;
    }
    // A gzip member cut short reads as end of file with Z_BUF_ERROR set: the file is incomplete.
    int code = Z_OK;
    gzerror(file.get(), &code);
    if (code != Z_OK)
        return Error::make(ErrorCategory::Io, "audit log " + path + " ends in the middle of its compressed data");
    return success();
}

Status importAuditLogFile(const std::string &path, AuditImporter &importer)
{
    return readAuditLogFile(path, [&](AuditDecodeResult &chunk) -> Status {
        importer.noteDecode(chunk, path);
        return importer.add(chunk.events);
    });
}

} // namespace fieldscope::core
