#pragma once
// TranscriptServer: a plain HTTP/1.1 server on 127.0.0.1 that replays kube-apiservers' answers
// (tests/data/transcripts: recorded from real servers, or written after them) to the real
// kube::Transport, for unit tests of what the integration cluster cannot be made to show on
// demand (a stream cut mid-line, APF 429, ERROR events, older servers' discovery).
// It is a fake of the wire, not of the client: libcurl, chunked framing, keep-alive and socket
// closes are all real.
//
// Threads: one accept thread plus one thread per connection, all owned and joined by the server.
// m_mutex guards m_rules (and the replies they hand out), m_requests and m_fds; m_cv wakes
// delays and hung streams on releaseHangs() and destruction. Every public method is thread-safe.
//
// Transcript files (tests/data/transcripts/*.http) hold one response as it was on the wire:
//   # comment lines before the status line
//   HTTP/1.1 200 OK
//   Content-Type: application/json
//   Transfer-Encoding: chunked
//   <blank line>
//   body
// A fixed body is sent verbatim with Content-Length. A chunked body is sent one line (with its
// "\n") per chunk, and may use directives on lines of their own:
//   #delay MS        wait before sending the next line
//   #split           send the next line as two chunks, the second 30 ms later
//   #together        send the next two lines as one chunk
//   #partial TEXT    send TEXT without a newline (a frame cut by a dropped connection)
//   #end finish|close|hang   terminating chunk (default) | close the socket | keep it open
#include <QElapsedTimer>
#include <QString>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace fieldscope::testing {

struct TranscriptReply {
    enum class End { Finish, Close, Hang };
    struct Piece {
        int delayMs = 0;
        std::string bytes;
    };

    int status = 200;
    std::string reasonPhrase = "OK";
    std::vector<std::pair<std::string, std::string>> headers; // in order; repeated names allowed
    std::string body;                                         // fixed body (Content-Length)
    bool chunked = false;                                     // Transfer-Encoding: chunked, sent as `pieces`
    std::vector<Piece> pieces;
    End end = End::Finish;

    static TranscriptReply parse(std::string_view text);
    // Path relative to tests/data/transcripts; aborts the test binary when the file is missing.
    static TranscriptReply fromFile(const QString &relativePath);
    static TranscriptReply json(int status, std::string body);
    TranscriptReply &header(std::string name, std::string value);
    // Chunked watch stream built in code: one line per event.
    static TranscriptReply stream(std::vector<std::string> lines, End end);
};

struct RecordedRequest {
    std::string method;
    std::string target; // path?query as sent
    std::string path;
    std::string query;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    qint64 atMs = 0; // when the request head was complete, ms since the server started
    int rule = -1;   // index of the rule that answered, -1 when nothing matched (404)

    std::optional<std::string> header(std::string_view name) const; // first, case-insensitive
    std::vector<std::string> headerValues(std::string_view name) const;
    std::optional<std::string> queryValue(std::string_view key) const; // percent-decoded
};

class TranscriptServer
{
public:
    // Answers requests whose path starts with a prefix and whose query satisfies predicates.
    // Each matching request takes the next reply; an exhausted rule stops matching unless
    // repeatLast() was called. Rules are tried in the order they were added.
    class Rule
    {
    public:
        Rule &method(std::string m);
        Rule &exactPath(); // the path must equal the prefix ("/api" must not answer "/apis")
        Rule &query(std::string key, std::string value); // present with exactly this value
        Rule &hasQuery(std::string key);
        Rule &lacksQuery(std::string key);
        Rule &where(std::function<bool(const RecordedRequest &)> predicate);
        Rule &reply(TranscriptReply r);
        Rule &replyFile(const QString &relativePath) { return reply(TranscriptReply::fromFile(relativePath)); }
        // Every matching request is answered by `make`, called on the connection's thread without
        // the server's lock (benchmarks build list pages from the request's limit and continue).
        Rule &replyWith(std::function<TranscriptReply(const RecordedRequest &)> make);
        Rule &repeatLast();

    private:
        friend class TranscriptServer;
        bool matches(const RecordedRequest &r) const;
        std::string m_prefix;
        std::vector<std::function<bool(const RecordedRequest &)>> m_predicates;
        std::deque<TranscriptReply> m_replies;
        std::shared_ptr<const std::function<TranscriptReply(const RecordedRequest &)>> m_make;
        bool m_repeatLast = false;
        std::mutex *m_mutex = nullptr; // the server's
    };

    TranscriptServer();
    ~TranscriptServer();
    TranscriptServer(const TranscriptServer &) = delete;
    TranscriptServer &operator=(const TranscriptServer &) = delete;

    std::uint16_t port() const { return m_port; }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }

    // The returned reference stays valid for the server's lifetime; its builder methods take the
    // server's mutex, so rules may be added or extended while requests are being served.
    Rule &on(std::string pathPrefix);

    std::vector<RecordedRequest> requests() const;
    std::vector<RecordedRequest> requests(std::string_view pathPrefix) const;
    int count(const std::function<bool(const RecordedRequest &)> &predicate) const;
    std::vector<RecordedRequest> unmatched() const;
    // Ends every hung stream (closing its socket), as a dying load balancer would.
    void releaseHangs();

private:
    void acceptLoop();
    void serve(int fd);
    // Waits up to ms; false when the server is stopping.
    bool pause(int ms);
    // Blocks a hung stream until releaseHangs() or destruction; false when stopping.
    bool waitWhileHung(std::uint64_t generation);
    bool sendAll(int fd, std::string_view bytes);
    TranscriptReply answer(RecordedRequest &request);

    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    std::deque<std::unique_ptr<Rule>> m_rules;
    std::vector<RecordedRequest> m_requests;
    std::vector<int> m_fds;
    std::vector<std::thread> m_connections;
    std::uint64_t m_hangGeneration = 0;
    bool m_stop = false;
    int m_listen = -1;
    int m_wake[2] = {-1, -1};
    std::uint16_t m_port = 0;
    QElapsedTimer m_clock;
    std::thread m_acceptThread;
};

} // namespace fieldscope::testing
