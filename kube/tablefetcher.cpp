#include "kube/tablefetcher.h"

#include "kube/apierror.h"
#include "kube/parserlease.h"
#include "kube/simdjsonread.h"

#include <QLoggingCategory>
#include <QPointer>

#include <simdjson.h>

#include <algorithm>
#include <unordered_set>
#include <utility>

Q_LOGGING_CATEGORY(lcTable, "fieldscope.kube.table", QtInfoMsg)

namespace fieldscope::kube {

using core::Error;
using core::ErrorCategory;
namespace od = simdjson::ondemand;
using detail::readString;

// --- decoding (network thread) -------------------------------------------------------------------

namespace {

Error tableParseError(simdjson::error_code code, std::string_view what)
{
    return Error::make(ErrorCategory::Parse, "Table " + std::string(what) + ": " + simdjson::error_message(code),
                       std::string(what));
}

QVariant cellValue(od::value v)
{
    od::json_type t;
    if (v.type().get(t))
        return {};
    switch (t) {
    case od::json_type::string: {
        std::string_view s;
        return v.get_string().get(s) ? QVariant() : QVariant(QString::fromUtf8(s.data(), qsizetype(s.size())));
    }
    case od::json_type::number: {
        od::number_type nt;
        if (v.get_number_type().get(nt))
            return {};
        if (nt == od::number_type::signed_integer) {
            std::int64_t i;
            return v.get_int64().get(i) ? QVariant() : QVariant(qlonglong(i));
        }
        double d;
        return v.get_double().get(d) ? QVariant() : QVariant(d);
    }
    case od::json_type::boolean: {
        bool b;
        return v.get_bool().get(b) ? QVariant() : QVariant(b);
    }
    case od::json_type::null: return {};
    case od::json_type::array: { // rare in printers; show the JSON text
        od::array a;
        std::string_view raw;
        if (v.get_array().get(a) || a.raw_json().get(raw))
            return {};
        return QString::fromUtf8(raw.data(), qsizetype(raw.size()));
    }
    case od::json_type::object: {
        od::object o;
        std::string_view raw;
        if (v.get_object().get(o) || o.raw_json().get(raw))
            return {};
        return QString::fromUtf8(raw.data(), qsizetype(raw.size()));
    }
    }
    return {};
}

simdjson::error_code readColumn(od::value v, TableColumn &c)
{
    od::object o;
    if (auto err = v.get_object().get(o))
        return err;
    for (auto f : o) {
        std::string_view k, s;
        if (auto err = f.unescaped_key().get(k))
            return err;
        if (k == "priority") {
            std::int64_t p = 0;
            if (!f.value().get_int64().get(p))
                c.priority = int(p);
        } else if (std::string *target = k == "name"        ? &c.name
                                       : k == "type"        ? &c.type
                                       : k == "format"      ? &c.format
                                       : k == "description" ? &c.description
                                                            : nullptr) {
            if (!f.value().get_string().get(s))
                *target = s;
        }
    }
    return simdjson::SUCCESS;
}

// object.metadata of a row (PartialObjectMetadata with includeObject=Metadata).
simdjson::error_code readRowObject(od::value v, TableRow &r)
{
    od::object o;
    if (auto err = v.get_object().get(o))
        return err;
    od::object md;
    if (o.find_field_unordered("metadata").get_object().get(md))
        return simdjson::SUCCESS; // includeObject=None: no identity, the row is dropped
    for (auto m : md) {
        std::string_view k;
        if (auto err = m.unescaped_key().get(k))
            return err;
        std::string *target = k == "uid"             ? &r.uid
                            : k == "namespace"       ? &r.namespace_
                            : k == "name"            ? &r.name
                            : k == "resourceVersion" ? &r.resourceVersion
                                                     : nullptr;
        // A row's identity keys the cell cache: a wrong type fails the page, never files it under "".
        if (target)
            if (auto err = readString(m.value(), *target))
                return err;
    }
    return simdjson::SUCCESS;
}

simdjson::error_code readRow(od::value v, TableRow &r)
{
    od::object o;
    if (auto err = v.get_object().get(o))
        return err;
    for (auto f : o) {
        std::string_view k;
        if (auto err = f.unescaped_key().get(k))
            return err;
        if (k == "cells") {
            od::array cells;
            if (auto err = f.value().get_array().get(cells))
                return err;
            for (auto c : cells) {
                od::value cv;
                if (auto err = c.get(cv))
                    return err;
                if (std::size_t(r.cells.size()) < kMaxTableColumns) // the rest has no column to show in
                    r.cells.push_back(cellValue(cv));
            }
        } else if (k == "object") {
            od::value ov;
            if (auto err = f.value().get(ov))
                return err;
            if (auto err = readRowObject(ov, r))
                return err;
        }
    }
    return simdjson::SUCCESS;
}

simdjson::error_code readListMeta(od::value v, DecodedTable &t)
{
    od::object md;
    if (auto err = v.get_object().get(md))
        return err;
    for (auto m : md) {
        std::string_view k;
        if (auto err = m.unescaped_key().get(k))
            return err;
        if (k == "resourceVersion" || k == "continue")
            if (auto err = readString(m.value(), k == "continue" ? t.continueToken : t.resourceVersion))
                return err;
    }
    return simdjson::SUCCESS;
}

template<typename Fn>
simdjson::error_code forEachElement(od::value v, Fn fn)
{
    od::array a;
    if (auto err = v.get_array().get(a))
        return err;
    for (auto e : a) {
        od::value ev;
        if (auto err = e.get(ev))
            return err;
        if (auto err = fn(ev))
            return err;
    }
    return simdjson::SUCCESS;
}

} // namespace

core::Result<DecodedTable> decodeTable(std::string &body)
{
    body.reserve(body.size() + simdjson::SIMDJSON_PADDING);
    ParserLease lease;
    od::document doc;
    if (auto err = lease.parser().iterate(body.data(), body.size(), body.capacity()).get(doc))
        return tableParseError(err, "response");
    od::object root;
    if (auto err = doc.get_object().get(root))
        return tableParseError(err, "response");
    DecodedTable t;
    for (auto field : root) {
        std::string_view key;
        od::value v;
        if (auto err = field.unescaped_key().get(key))
            return tableParseError(err, "response");
        if (auto err = field.value().get(v))
            return tableParseError(err, "response");
        simdjson::error_code err = simdjson::SUCCESS;
        if (key == "kind") {
            std::string_view kind;
            err = v.get_string().get(kind);
            t.kind = kind;
            if (!err && kind != "Table")
                return t; // servers write kind first: stop before reading a whole foreign list
        } else if (key == "metadata") {
            err = readListMeta(v, t);
        } else if (key == "columnDefinitions") {
            err = forEachElement(v, [&](od::value c) {
                if (t.columns.size() >= kMaxTableColumns) {
                    ++t.droppedColumns;
                    return simdjson::SUCCESS;
                }
                return readColumn(c, t.columns.emplace_back());
            });
        } else if (key == "rows") {
            err = forEachElement(v, [&](od::value r) {
                TableRow row;
                const auto e = readRow(r, row);
                if (!e && !row.uid.empty())
                    t.rows.push_back(std::move(row));
                return e;
            });
        }
        if (err)
            return tableParseError(err, key);
    }
    t.isTable = t.kind == "Table";
    if (!t.isTable)
        t.rows.clear();
    return t;
}

namespace {

// The transport's answer as a decoded Table: non-2xx becomes the typed error, except 406 (the
// server cannot render Table for this resource) which is a "not a Table" value.
core::Result<DecodedTable> decodeResponse(core::Result<HttpResponse> r)
{
    if (!r.ok())
        return r.error();
    if (r->status == 406) {
        DecodedTable t;
        t.kind = "406 Not Acceptable";
        return t;
    }
    if (!isSuccess(r->status))
        return errorFromResponse(*r);
    return decodeTable(r->body);
}

} // namespace

// --- fetching (owner thread) ---------------------------------------------------------------------

TableFetcher::TableFetcher(ApiClient *client, WatchScope scope, TableFetcherOptions options, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_scope(std::move(scope))
    , m_opts(options)
    , m_refreshMs(options.refreshIntervalMs)
{
    m_tick.setSingleShot(true);
    connect(&m_tick, &QTimer::timeout, this, &TableFetcher::tick);
    m_retry.setSingleShot(true);
    connect(&m_retry, &QTimer::timeout, this, [this] { list({}); });
}

TableFetcher::~TableFetcher()
{
    stop();
}

void TableFetcher::start()
{
    if (m_state != State::Idle && m_state != State::Failed)
        return;
    list({});
}

void TableFetcher::stop()
{
    ++m_gen;
    if (m_listRequest)
        m_client->cancel(m_listRequest);
    m_listRequest = 0;
    for (const auto &[uid, id] : m_getByUid)
        m_client->cancel(id);
    m_getByUid.clear();
    m_tick.stop();
    m_retry.stop();
    if (m_state != State::Unsupported)
        m_state = State::Idle;
}

Transport::RequestId TableFetcher::fetch(std::string path, Handler handler)
{
    HttpRequest req;
    req.path = std::move(path);
    req.accept = kTableAccept;
    req.timeoutMs = 120'000;
    auto inbox = m_client->inbox();
    QPointer<TableFetcher> self(this);
    const int gen = m_gen;
    return m_client->transport().start(std::move(req), [inbox, self, gen,
                                                        handler = std::move(handler)](core::Result<HttpResponse> r) {
        // Decode here, on the network thread: only value types reach the owner.
        // Last boundary of this network-thread job: a throw becomes this request's error.
        core::Result<DecodedTable> t = core::Error::make(core::ErrorCategory::Parse,
                                                         "Table response could not be decoded");
        try {
            t = decodeResponse(std::move(r));
        } catch (const std::exception &e) {
            t = core::Error::make(core::ErrorCategory::Parse,
                                  std::string("Table response could not be decoded: ") + e.what());
        }
        inbox->post([self, gen, handler, t = std::move(t)]() mutable {
            if (self && gen == self->m_gen)
                handler(std::move(t));
        });
    });
}

void TableFetcher::list(const std::string &continueToken)
{
    const bool first = continueToken.empty();
    if (first) {
        // Everything noted until now is covered by the snapshot this list reads (RV unset).
        m_listStartSeq = m_seq;
        m_listClock.start();
        ++m_lists;
        m_state = State::Listing;
    }
    std::string path = m_scope.resource.collectionPath(m_scope.namespace_) + "?limit=" + std::to_string(m_opts.pageSize)
                     + "&includeObject=Metadata" + listQuery(m_scope);
    if (!first)
        path += "&continue=" + urlEncode(continueToken);
    m_listRequest = fetch(std::move(path),
                          [this, first](core::Result<DecodedTable> t) { onListPage(std::move(t), first); });
}

void TableFetcher::onListPage(core::Result<DecodedTable> page, bool firstPage)
{
    m_listRequest = 0;
    if (!page.ok())
        return listFailed(page.error());
    if (!page->isTable)
        return becomeUnsupported(QString::fromStdString(page->kind));
    m_backoffMs = 0;
    if (firstPage && page->columns != m_columns) {
        if (page->droppedColumns > 0)
            qCInfo(lcTable, "%s: the server's Table defines %zu columns; the first %zu are shown",
                   m_scope.describe().c_str(), page->columns.size() + page->droppedColumns, page->columns.size());
        m_columns = page->columns;
        Q_EMIT columnsChanged(m_columns);
    }
    accept(page->rows);
    if (!page->continueToken.empty())
        return list(page->continueToken);
    finishList();
}

void TableFetcher::finishList()
{
    m_lastListMs = m_listClock.elapsed();
    m_state = State::Live;
    std::erase_if(m_stale, [this](const auto &kv) { return kv.second.seq <= m_listStartSeq; });
    if (m_watchListed)
        dropUnwatchedRows();
    qCDebug(lcTable, "%s: Table listed in %lld ms, %zu stale", m_scope.describe().c_str(), m_lastListMs,
            m_stale.size());
    arm();
}

void TableFetcher::listFailed(const core::Error &e)
{
    if (e.httpStatus == 410) {
        list({}); // expired continue token (410 Gone): start again from the top
        return;
    }
    const QString why = QString::fromStdString(e.describe());
    Q_EMIT errorOccurred(why);
    if (e.httpStatus == 401 || e.httpStatus == 403 || e.httpStatus == 404) {
        m_state = State::Failed; // the watch shows this error to the user; nothing to retry
        return;
    }
    m_backoffMs = m_backoffMs == 0 ? m_opts.backoffInitialMs : std::min(m_backoffMs * 2, m_opts.backoffMaxMs);
    qCInfo(lcTable, "%s: Table list failed, retrying in %d ms: %s", m_scope.describe().c_str(), m_backoffMs,
           qUtf8Printable(why));
    m_retry.start(m_backoffMs);
}

void TableFetcher::becomeUnsupported(const QString &why)
{
    qCInfo(lcTable, "%s: no Table rendering (%s); fixed columns only", m_scope.describe().c_str(), qUtf8Printable(why));
    stop();
    m_state = State::Unsupported;
    m_stale.clear();
    m_queue.clear();
    m_cellRv.clear();
    m_watched.clear();
    Q_EMIT unsupported(why);
}

void TableFetcher::accept(std::vector<TableRow> &rows)
{
    for (const auto &r : rows) {
        m_cellRv[r.uid] = r.resourceVersion;
        if (auto it = m_stale.find(r.uid); it != m_stale.end() && it->second.resourceVersion == r.resourceVersion)
            m_stale.erase(it);
    }
    if (!rows.empty())
        Q_EMIT rowsReady(rows);
}

void TableFetcher::noteVersion(const std::string &uid, const std::string &namespace_, const std::string &name,
                               const std::string &resourceVersion)
{
    if (m_state == State::Unsupported)
        return;
    m_watched.insert(uid);
    if (m_state == State::Idle || m_state == State::Failed)
        return;
    if (auto it = m_cellRv.find(uid); it != m_cellRv.end() && it->second == resourceVersion) {
        m_stale.erase(uid);
        return;
    }
    auto [it, inserted] = m_stale.try_emplace(uid);
    it->second = {namespace_, name, resourceVersion, ++m_seq};
    if (inserted)
        m_queue.push_back(uid);
    arm();
}

void TableFetcher::noteWatchListed()
{
    if (std::exchange(m_watchListed, true) || m_state == State::Unsupported)
        return;
    dropUnwatchedRows();
}

void TableFetcher::dropUnwatchedRows()
{
    const std::size_t before = m_cellRv.size();
    std::erase_if(m_cellRv, [this](const auto &kv) { return !m_watched.count(kv.first); });
    if (m_cellRv.size() != before)
        qCDebug(lcTable, "%s: dropped %zu Table rows the watch does not hold", m_scope.describe().c_str(),
                before - m_cellRv.size());
    Q_EMIT unwatchedRowsDropped();
}

void TableFetcher::forget(const std::string &uid)
{
    m_watched.erase(uid);
    m_cellRv.erase(uid);
    m_stale.erase(uid);
    if (auto it = m_getByUid.find(uid); it != m_getByUid.end()) {
        m_client->cancel(it->second);
        m_getByUid.erase(it);
    }
}

void TableFetcher::arm()
{
    if (m_state == State::Live && !m_stale.empty() && !m_tick.isActive())
        m_tick.start(m_refreshMs);
}

bool TableFetcher::relistAllowed() const
{
    const qint64 wait = std::max<qint64>(m_opts.relistMinIntervalMs,
                                         qint64(m_opts.relistDurationFactor) * m_lastListMs);
    return !m_listClock.isValid() || m_listClock.elapsed() >= wait;
}

void TableFetcher::tick()
{
    if (m_state != State::Live || m_listRequest)
        return; // a list in progress re-arms when it ends
    if (m_stale.size() > std::size_t(m_opts.maxGetsPerTick) && relistAllowed()) {
        qCDebug(lcTable, "%s: %zu stale rows, relisting the Table", m_scope.describe().c_str(), m_stale.size());
        list({});
        return;
    }
    // The oldest stale uids first; uids with a GET in flight go to the back.
    std::size_t budget = std::size_t(std::max(0, m_opts.maxGetsPerTick - int(m_getByUid.size())));
    for (std::size_t n = m_queue.size(); n > 0 && budget > 0; --n) {
        std::string uid = std::move(m_queue.front());
        m_queue.pop_front();
        auto it = m_stale.find(uid);
        if (it == m_stale.end())
            continue; // refreshed or deleted since it was queued
        if (m_getByUid.count(uid)) {
            m_queue.push_back(std::move(uid));
            continue;
        }
        get(uid, it->second);
        m_queue.push_back(std::move(uid)); // stays queued until the answer clears it
        --budget;
    }
    if (m_queue.size() > 2 * m_stale.size() + 64) { // drop obsolete and repeated entries
        std::unordered_set<std::string> seen;
        std::erase_if(m_queue, [&](const std::string &u) { return !m_stale.count(u) || !seen.insert(u).second; });
    }
    arm();
}

void TableFetcher::get(const std::string &uid, const Stale &s)
{
    ++m_getsStarted;
    const std::uint64_t seq = s.seq;
    m_getByUid[uid] = fetch(m_scope.resource.objectPath(s.namespace_, s.name) + "?includeObject=Metadata",
                            [this, uid, seq](core::Result<DecodedTable> t) { onGet(uid, seq, std::move(t)); });
}

void TableFetcher::onGet(const std::string &uid, std::uint64_t seq, core::Result<DecodedTable> t)
{
    m_getByUid.erase(uid);
    auto it = m_stale.find(uid);
    const bool unchangedSince = it != m_stale.end() && it->second.seq == seq;
    if (!t.ok() && t.error().httpStatus != 404) {
        // Stays stale; slow down so a sick server is not hammered every second.
        m_refreshMs = std::min(m_refreshMs * 2, m_opts.maxRefreshIntervalMs);
        qCDebug(lcTable, "%s: Table GET failed: %s", m_scope.describe().c_str(), t.error().describe().c_str());
        return arm();
    }
    m_refreshMs = m_opts.refreshIntervalMs;
    // A consistent GET is at least as new as the version that made the row stale; a 404 means
    // the object is gone (its DELETED event is on the way); a non-Table answer will not improve.
    if (unchangedSince)
        m_stale.erase(it);
    if (t.ok() && t->isTable)
        accept(t->rows);
}

} // namespace fieldscope::kube
