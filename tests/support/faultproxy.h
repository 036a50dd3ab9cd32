#pragma once
// FaultProxy: a loopback TCP proxy between a client and the real apiserver that can cut every
// connection, stall existing connections (a half-open link: bytes stop, sockets stay open) and
// truncate the next server->client chunk mid-frame. TLS passes through untouched; the apiserver's
// certificate names 127.0.0.1, so clients verify it as usual. Runs on its own thread.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace fieldscope::testing {

class FaultProxy
{
public:
    explicit FaultProxy(std::uint16_t targetPort);
    ~FaultProxy();

    std::uint16_t port() const { return m_port; }
    void cutAll();                   // close every open connection now
    void setStalled(bool stalled);   // existing connections stop forwarding; new ones work
    void truncateNextServerChunk();  // forward half of the next server chunk, then close
    void setRefusing(bool refusing); // accept and close at once: the server looks down
    int connectionsAccepted() const { return m_accepted.load(); }

private:
    struct Pair {
        int client = -1, server = -1;
        bool stalled = false;
    };
    void run();
    void closePair(Pair &p);

    std::uint16_t m_target;
    std::uint16_t m_port = 0;
    int m_listen = -1;
    int m_wake[2] = {-1, -1};
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_cut{false};
    std::atomic<int> m_stallRequest{-1}; // -1 none, 0 unstall, 1 stall
    std::atomic<bool> m_truncate{false};
    std::atomic<bool> m_refusing{false};
    std::atomic<int> m_accepted{0};
    std::vector<Pair> m_pairs; // proxy thread only
    std::thread m_thread;
};

} // namespace fieldscope::testing
