#include "transcriptserver.h"

#include <QFile>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace fieldscope::testing {

namespace {

bool iequals(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

std::string percentDecode(std::string_view s)
{
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size()) {
            const std::string hex(s.substr(i + 1, 2));
            out += char(std::strtol(hex.c_str(), nullptr, 16));
            i += 2;
        } else if (s[i] == '+') {
            out += ' ';
        } else {
            out += s[i];
        }
    }
    return out;
}

const char *reasonFor(int status)
{
    switch (status) {
    case 200: return "OK";
    case 304: return "Not Modified";
    case 404: return "Not Found";
    case 410: return "Gone";
    case 422: return "Unprocessable Entity";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "Status";
    }
}

} // namespace

// --- TranscriptReply ---------------------------------------------------------------------------

TranscriptReply TranscriptReply::parse(std::string_view text)
{
    TranscriptReply r;
    std::vector<std::string_view> lines;
    for (std::size_t start = 0; start <= text.size();) {
        const auto nl = text.find('\n', start);
        if (nl == std::string_view::npos) {
            if (start < text.size())
                lines.push_back(text.substr(start));
            break;
        }
        lines.push_back(text.substr(start, nl - start));
        start = nl + 1;
    }
    std::size_t i = 0;
    while (i < lines.size() && (lines[i].empty() || lines[i].front() == '#'))
        ++i; // leading comments say where the transcript came from
    if (i == lines.size()) {
        std::fprintf(stderr, "transcript without a status line\n");
        std::abort();
    }
    {
        // HTTP/1.1 200 OK
        const std::string_view status = lines[i++];
        const auto sp = status.find(' ');
        const auto sp2 = status.find(' ', sp + 1);
        r.status = std::atoi(std::string(status.substr(sp + 1, sp2 - sp - 1)).c_str());
        r.reasonPhrase = sp2 == std::string_view::npos ? reasonFor(r.status)
                                                       : std::string(trimmed(status.substr(sp2 + 1)));
    }
    for (; i < lines.size() && !trimmed(lines[i]).empty(); ++i) {
        const std::string_view h = lines[i];
        const auto colon = h.find(':');
        const std::string name(trimmed(h.substr(0, colon)));
        const std::string value(trimmed(h.substr(colon + 1)));
        if (iequals(name, "Transfer-Encoding")) {
            r.chunked = iequals(value, "chunked");
            continue;
        }
        if (iequals(name, "Content-Length"))
            continue; // computed when sending
        r.headers.emplace_back(name, value);
    }
    ++i; // the blank line
    if (!r.chunked) {
        // The rest, verbatim, newlines included (Go's JSON encoder ends bodies with "\n").
        for (; i < lines.size(); ++i) {
            r.body.append(lines[i]);
            r.body += '\n';
        }
        return r;
    }
    int delay = 0;
    bool split = false;
    int together = 0; // lines still to append to the last piece
    for (; i < lines.size(); ++i) {
        const std::string_view l = lines[i];
        if (l.starts_with("#delay ")) {
            delay += std::atoi(std::string(l.substr(7)).c_str());
        } else if (l == "#split") {
            split = true;
        } else if (l == "#together") {
            together = 2;
        } else if (l.starts_with("#partial ")) {
            r.pieces.push_back({delay, std::string(l.substr(9))});
            delay = 0;
        } else if (l.starts_with("#end ")) {
            const std::string_view how = trimmed(l.substr(5));
            r.end = how == "close" ? End::Close : how == "hang" ? End::Hang : End::Finish;
        } else if (l.empty() || l.front() == '#') {
            continue;
        } else {
            std::string line(l);
            line += '\n';
            if (together > 0) {
                if (together-- == 2)
                    r.pieces.push_back({delay, std::move(line)});
                else
                    r.pieces.back().bytes += line;
            } else if (split) {
                const std::size_t half = line.size() / 2;
                r.pieces.push_back({delay, line.substr(0, half)});
                r.pieces.push_back({30, line.substr(half)});
                split = false;
            } else {
                r.pieces.push_back({delay, std::move(line)});
            }
            delay = 0;
        }
    }
    return r;
}

TranscriptReply TranscriptReply::fromFile(const QString &relativePath)
{
    QFile f(QStringLiteral(FIELDSCOPE_TEST_DATA "/transcripts/") + relativePath);
    if (!f.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "cannot open transcript %s\n", qPrintable(f.fileName()));
        std::abort();
    }
    const QByteArray bytes = f.readAll();
    return parse(std::string_view(bytes.constData(), std::size_t(bytes.size())));
}

TranscriptReply TranscriptReply::json(int status, std::string body)
{
    TranscriptReply r;
    r.status = status;
    r.reasonPhrase = reasonFor(status);
    r.headers.emplace_back("Content-Type", "application/json");
    r.body = std::move(body);
    if (!r.body.empty() && r.body.back() != '\n')
        r.body += '\n';
    return r;
}

TranscriptReply &TranscriptReply::header(std::string name, std::string value)
{
    headers.emplace_back(std::move(name), std::move(value));
    return *this;
}

TranscriptReply TranscriptReply::stream(std::vector<std::string> lines, End end)
{
    TranscriptReply r;
    r.headers.emplace_back("Content-Type", "application/json");
    r.chunked = true;
    for (auto &l : lines)
        r.pieces.push_back({0, std::move(l) + "\n"});
    r.end = end;
    return r;
}

// --- RecordedRequest ---------------------------------------------------------------------------

std::optional<std::string> RecordedRequest::header(std::string_view name) const
{
    for (const auto &[k, v] : headers)
        if (iequals(k, name))
            return v;
    return std::nullopt;
}

std::vector<std::string> RecordedRequest::headerValues(std::string_view name) const
{
    std::vector<std::string> out;
    for (const auto &[k, v] : headers)
        if (iequals(k, name))
            out.push_back(v);
    return out;
}

std::optional<std::string> RecordedRequest::queryValue(std::string_view key) const
{
    std::string_view q = query;
    while (!q.empty()) {
        const auto amp = q.find('&');
        const std::string_view pair = q.substr(0, amp);
        const auto eq = pair.find('=');
        if (percentDecode(pair.substr(0, eq)) == key)
            return eq == std::string_view::npos ? std::string() : percentDecode(pair.substr(eq + 1));
        if (amp == std::string_view::npos)
            break;
        q.remove_prefix(amp + 1);
    }
    return std::nullopt;
}

// --- Rule --------------------------------------------------------------------------------------

TranscriptServer::Rule &TranscriptServer::Rule::method(std::string m)
{
    return where([m = std::move(m)](const RecordedRequest &r) { return r.method == m; });
}

TranscriptServer::Rule &TranscriptServer::Rule::exactPath()
{
    return where([this](const RecordedRequest &r) { return r.path == m_prefix; });
}

TranscriptServer::Rule &TranscriptServer::Rule::query(std::string key, std::string value)
{
    return where([key = std::move(key), value = std::move(value)](const RecordedRequest &r) {
        return r.queryValue(key) == value;
    });
}

TranscriptServer::Rule &TranscriptServer::Rule::hasQuery(std::string key)
{
    return where([key = std::move(key)](const RecordedRequest &r) { return r.queryValue(key).has_value(); });
}

TranscriptServer::Rule &TranscriptServer::Rule::lacksQuery(std::string key)
{
    return where([key = std::move(key)](const RecordedRequest &r) { return !r.queryValue(key).has_value(); });
}

TranscriptServer::Rule &TranscriptServer::Rule::where(std::function<bool(const RecordedRequest &)> predicate)
{
    std::lock_guard lock(*m_mutex);
    m_predicates.push_back(std::move(predicate));
    return *this;
}

TranscriptServer::Rule &TranscriptServer::Rule::reply(TranscriptReply r)
{
    std::lock_guard lock(*m_mutex);
    m_replies.push_back(std::move(r));
    return *this;
}

TranscriptServer::Rule &TranscriptServer::Rule::replyWith(std::function<TranscriptReply(const RecordedRequest &)> make)
{
    std::lock_guard lock(*m_mutex);
    m_make = std::make_shared<const std::function<TranscriptReply(const RecordedRequest &)>>(std::move(make));
    return *this;
}

TranscriptServer::Rule &TranscriptServer::Rule::repeatLast()
{
    std::lock_guard lock(*m_mutex);
    m_repeatLast = true;
    return *this;
}

bool TranscriptServer::Rule::matches(const RecordedRequest &r) const
{
    if ((m_replies.empty() && !m_make) || !r.path.starts_with(m_prefix))
        return false;
    return std::all_of(m_predicates.begin(), m_predicates.end(), [&](const auto &p) { return p(r); });
}

// --- TranscriptServer --------------------------------------------------------------------------

TranscriptServer::TranscriptServer()
{
    m_clock.start();
    m_listen = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(m_listen, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    if (::bind(m_listen, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 || ::listen(m_listen, 64) != 0
        || ::pipe(m_wake) != 0) {
        std::fprintf(stderr, "TranscriptServer: cannot listen on 127.0.0.1\n");
        std::abort();
    }
    socklen_t len = sizeof a;
    ::getsockname(m_listen, reinterpret_cast<sockaddr *>(&a), &len);
    m_port = ntohs(a.sin_port);
    m_acceptThread = std::thread([this] { acceptLoop(); });
}

TranscriptServer::~TranscriptServer()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
        for (int fd : m_fds)
            ::shutdown(fd, SHUT_RDWR); // unblocks recv() in connection threads
    }
    m_cv.notify_all();
    (void)!::write(m_wake[1], "x", 1);
    m_acceptThread.join();
    for (auto &t : m_connections)
        t.join();
    ::close(m_listen);
    ::close(m_wake[0]);
    ::close(m_wake[1]);
}

TranscriptServer::Rule &TranscriptServer::on(std::string pathPrefix)
{
    std::lock_guard lock(m_mutex);
    auto rule = std::make_unique<Rule>();
    rule->m_prefix = std::move(pathPrefix);
    rule->m_mutex = &m_mutex;
    m_rules.push_back(std::move(rule));
    return *m_rules.back();
}

std::vector<RecordedRequest> TranscriptServer::requests() const
{
    std::lock_guard lock(m_mutex);
    return m_requests;
}

std::vector<RecordedRequest> TranscriptServer::requests(std::string_view pathPrefix) const
{
    std::lock_guard lock(m_mutex);
    std::vector<RecordedRequest> out;
    std::copy_if(m_requests.begin(), m_requests.end(), std::back_inserter(out),
                 [&](const RecordedRequest &r) { return r.path.starts_with(pathPrefix); });
    return out;
}

int TranscriptServer::count(const std::function<bool(const RecordedRequest &)> &predicate) const
{
    std::lock_guard lock(m_mutex);
    return int(std::count_if(m_requests.begin(), m_requests.end(), predicate));
}

std::vector<RecordedRequest> TranscriptServer::unmatched() const
{
    std::lock_guard lock(m_mutex);
    std::vector<RecordedRequest> out;
    std::copy_if(m_requests.begin(), m_requests.end(), std::back_inserter(out),
                 [](const RecordedRequest &r) { return r.rule < 0; });
    return out;
}

void TranscriptServer::releaseHangs()
{
    {
        std::lock_guard lock(m_mutex);
        ++m_hangGeneration;
    }
    m_cv.notify_all();
}

void TranscriptServer::acceptLoop()
{
    while (true) {
        pollfd fds[2] = {{m_listen, POLLIN, 0}, {m_wake[0], POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0)
            continue;
        if (fds[1].revents)
            return;
        const int fd = ::accept(m_listen, nullptr, nullptr);
        if (fd < 0)
            continue;
        std::lock_guard lock(m_mutex);
        if (m_stop) {
            ::close(fd);
            return;
        }
        m_fds.push_back(fd);
        m_connections.emplace_back([this, fd] { serve(fd); });
    }
}

bool TranscriptServer::pause(int ms)
{
    std::unique_lock lock(m_mutex);
    return !m_cv.wait_for(lock, std::chrono::milliseconds(ms), [this] { return m_stop; });
}

bool TranscriptServer::waitWhileHung(std::uint64_t generation)
{
    std::unique_lock lock(m_mutex);
    m_cv.wait(lock, [&] { return m_stop || m_hangGeneration != generation; });
    return !m_stop;
}

bool TranscriptServer::sendAll(int fd, std::string_view bytes)
{
    while (!bytes.empty()) {
        // MSG_NOSIGNAL: a client that went away must not kill the test with SIGPIPE.
        const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
        if (n <= 0)
            return false;
        bytes.remove_prefix(std::size_t(n));
    }
    return true;
}

TranscriptReply TranscriptServer::answer(RecordedRequest &request)
{
    std::unique_lock lock(m_mutex);
    request.atMs = m_clock.elapsed();
    TranscriptReply reply;
    for (std::size_t i = 0; i < m_rules.size(); ++i) {
        Rule &rule = *m_rules[i];
        if (!rule.matches(request))
            continue;
        request.rule = int(i);
        if (rule.m_make) {
            m_requests.push_back(request);
            const auto make = rule.m_make;
            lock.unlock();
            return (*make)(request);
        }
        reply = rule.m_replies.front();
        if (rule.m_replies.size() > 1 || !rule.m_repeatLast)
            rule.m_replies.pop_front();
        m_requests.push_back(request);
        return reply;
    }
    m_requests.push_back(request);
    return TranscriptReply::json(404, R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                                      R"("message":"no transcript for this request","reason":"NotFound","code":404})");
}

void TranscriptServer::serve(int fd)
{
    std::string buffer;
    char chunk[16384];
    auto finish = [&] {
        std::lock_guard lock(m_mutex);
        std::erase(m_fds, fd);
        ::close(fd);
    };
    while (true) {
        // Read one request head (and its Content-Length body) from the keep-alive connection.
        std::size_t headEnd;
        while ((headEnd = buffer.find("\r\n\r\n")) == std::string::npos) {
            const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
            if (n <= 0)
                return finish();
            buffer.append(chunk, std::size_t(n));
        }
        RecordedRequest req;
        const std::string head = buffer.substr(0, headEnd);
        buffer.erase(0, headEnd + 4);
        std::size_t lineEnd = head.find("\r\n");
        const std::string requestLine = head.substr(0, lineEnd);
        const auto sp = requestLine.find(' ');
        const auto sp2 = requestLine.find(' ', sp + 1);
        req.method = requestLine.substr(0, sp);
        req.target = requestLine.substr(sp + 1, sp2 - sp - 1);
        const auto q = req.target.find('?');
        req.path = req.target.substr(0, q);
        req.query = q == std::string::npos ? std::string() : req.target.substr(q + 1);
        std::size_t contentLength = 0;
        while (lineEnd != std::string::npos) {
            const std::size_t start = lineEnd + 2;
            lineEnd = head.find("\r\n", start);
            const std::string_view line = std::string_view(head).substr(start, lineEnd == std::string::npos
                                                                                   ? std::string::npos
                                                                                   : lineEnd - start);
            const auto colon = line.find(':');
            if (colon == std::string_view::npos)
                continue;
            req.headers.emplace_back(std::string(trimmed(line.substr(0, colon))),
                                     std::string(trimmed(line.substr(colon + 1))));
            if (iequals(req.headers.back().first, "Content-Length"))
                contentLength = std::size_t(std::atoll(req.headers.back().second.c_str()));
        }
        while (buffer.size() < contentLength) {
            const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
            if (n <= 0)
                return finish();
            buffer.append(chunk, std::size_t(n));
        }
        req.body = buffer.substr(0, contentLength);
        buffer.erase(0, contentLength);

        std::uint64_t hangGeneration;
        {
            std::lock_guard lock(m_mutex);
            hangGeneration = m_hangGeneration;
        }
        const TranscriptReply reply = answer(req);
        std::string out = "HTTP/1.1 " + std::to_string(reply.status) + " " + reply.reasonPhrase + "\r\n";
        for (const auto &[k, v] : reply.headers)
            out += k + ": " + v + "\r\n";
        if (reply.chunked)
            out += "Transfer-Encoding: chunked\r\n";
        else if (reply.status != 304)
            out += "Content-Length: " + std::to_string(reply.body.size()) + "\r\n";
        if (!reply.chunked && reply.end == TranscriptReply::End::Close)
            out += "Connection: close\r\n";
        out += "\r\n";
        if (!reply.chunked) {
            const bool large = reply.body.size() > (1u << 20); // a benchmark's list: not copied once more
            if (!large)
                out += reply.body;
            if (!sendAll(fd, out) || (large && !sendAll(fd, reply.body)) || reply.end == TranscriptReply::End::Close)
                return finish();
            continue;
        }
        if (!sendAll(fd, out))
            return finish();
        for (const auto &piece : reply.pieces) {
            if (piece.delayMs > 0 && !pause(piece.delayMs))
                return finish();
            char size[32];
            std::snprintf(size, sizeof size, "%zx\r\n", piece.bytes.size());
            if (!sendAll(fd, std::string(size) + piece.bytes + "\r\n"))
                return finish();
        }
        switch (reply.end) {
        case TranscriptReply::End::Finish:
            if (!sendAll(fd, "0\r\n\r\n"))
                return finish();
            break;
        case TranscriptReply::End::Close:
            return finish(); // mid-stream: no terminating chunk, the client sees a truncated body
        case TranscriptReply::End::Hang: waitWhileHung(hangGeneration); return finish();
        }
    }
}

} // namespace fieldscope::testing
