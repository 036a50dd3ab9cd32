#include "faultproxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace fieldscope::testing {

FaultProxy::FaultProxy(std::uint16_t targetPort) : m_target(targetPort)
{
    m_listen = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(m_listen, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    if (::bind(m_listen, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 || ::listen(m_listen, 64) != 0)
        throw std::runtime_error("FaultProxy: cannot listen");
    socklen_t len = sizeof a;
    ::getsockname(m_listen, reinterpret_cast<sockaddr *>(&a), &len);
    m_port = ntohs(a.sin_port);
    if (::pipe(m_wake) != 0)
        throw std::runtime_error("FaultProxy: pipe");
    m_thread = std::thread([this] { run(); });
}

FaultProxy::~FaultProxy()
{
    m_stop = true;
    (void)!::write(m_wake[1], "x", 1);
    m_thread.join();
    for (auto &p : m_pairs)
        closePair(p);
    ::close(m_listen);
    ::close(m_wake[0]);
    ::close(m_wake[1]);
}

void FaultProxy::cutAll()
{
    m_cut = true;
    (void)!::write(m_wake[1], "x", 1);
}

void FaultProxy::setStalled(bool stalled)
{
    m_stallRequest = stalled ? 1 : 0;
    (void)!::write(m_wake[1], "x", 1);
}

void FaultProxy::setRefusing(bool refusing)
{
    m_refusing = refusing;
}

void FaultProxy::truncateNextServerChunk()
{
    m_truncate = true;
}

void FaultProxy::closePair(Pair &p)
{
    if (p.client >= 0)
        ::close(p.client);
    if (p.server >= 0)
        ::close(p.server);
    p.client = p.server = -1;
}

void FaultProxy::run()
{
    char buf[65536];
    while (!m_stop) {
        if (m_cut.exchange(false)) {
            for (auto &p : m_pairs)
                closePair(p);
        }
        if (const int s = m_stallRequest.exchange(-1); s >= 0)
            for (auto &p : m_pairs)
                p.stalled = s == 1;
        std::erase_if(m_pairs, [](const Pair &p) { return p.client < 0; });

        std::vector<pollfd> fds;
        fds.push_back({m_listen, POLLIN, 0});
        fds.push_back({m_wake[0], POLLIN, 0});
        for (const auto &p : m_pairs) {
            // A stalled pair is not read at all: the kernel buffers fill and the peer sees silence.
            const short ev = p.stalled ? 0 : POLLIN;
            fds.push_back({p.client, ev, 0});
            fds.push_back({p.server, ev, 0});
        }
        if (::poll(fds.data(), fds.size(), 200) <= 0)
            continue;
        if (fds[1].revents & POLLIN) {
            char drain[64];
            (void)!::read(m_wake[0], drain, sizeof drain);
        }
        if (fds[0].revents & POLLIN) {
            const int c = ::accept(m_listen, nullptr, nullptr);
            if (c >= 0 && m_refusing) {
                ::close(c);
            } else if (c >= 0) {
                const int s = ::socket(AF_INET, SOCK_STREAM, 0);
                sockaddr_in a{};
                a.sin_family = AF_INET;
                a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
                a.sin_port = htons(m_target);
                if (::connect(s, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0) {
                    int one = 1;
                    ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    ::setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    m_pairs.push_back({c, s, false});
                    ++m_accepted;
                } else {
                    ::close(c);
                    ::close(s);
                }
            }
        }
        for (std::size_t i = 0; i + 2 < fds.size() + 0 && i / 2 < m_pairs.size(); i += 2) {
            Pair &p = m_pairs[i / 2];
            const pollfd &cf = fds[2 + i], &sf = fds[3 + i];
            if (p.client < 0)
                continue;
            auto pump = [&](int from, int to, bool serverToClient) {
                const ssize_t n = ::read(from, buf, sizeof buf);
                if (n <= 0)
                    return false;
                ssize_t len = n;
                if (serverToClient && m_truncate.exchange(false)) {
                    // Half a chunk, then the connection dies: the client holds a partial frame.
                    len = n / 2;
                    (void)!::write(to, buf, std::size_t(len));
                    return false;
                }
                ssize_t off = 0;
                while (off < len) {
                    const ssize_t w = ::write(to, buf + off, std::size_t(len - off));
                    if (w <= 0)
                        return false;
                    off += w;
                }
                return true;
            };
            bool alive = true;
            if (cf.revents & (POLLIN | POLLHUP | POLLERR))
                alive = pump(p.client, p.server, false);
            if (alive && (sf.revents & (POLLIN | POLLHUP | POLLERR)))
                alive = pump(p.server, p.client, true);
            if (!alive)
                closePair(p);
        }
    }
}

} // namespace fieldscope::testing
