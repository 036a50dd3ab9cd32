#pragma once
// Timing helpers of the GUI benchmarks (bench_table, bench_window): milliseconds, the calling
// thread's CPU time, resident memory, and the event loop's stalls.
#include <QElapsedTimer>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

namespace fieldscope::bench {

inline double ms(const QElapsedTimer &t)
{
    return double(t.nsecsElapsed()) / 1e6;
}

// CPU time this thread has used, in ms: a stall with little of it was the machine running
// something else (other processes on a shared box), not work of ours.
inline double threadCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

// A field of /proc/self/status in kB ("VmRSS:", "RssFile:"), 0 when absent.
inline long statusKb(const std::string &field)
{
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind(field, 0) == 0)
            return std::stol(line.substr(field.size()));
    return 0;
}

inline long rssKb()
{
    return statusKb("VmRSS:");
}

// /proc's "kB" are KiB: megabytes (10^6 bytes, as the JSON's size is printed) of a kB figure.
inline double kbToMb(long kb)
{
    return double(kb) * 1024.0 / 1e6;
}

// Resident kB by kind of mapping, from /proc/self/smaps: malloc's main heap, its per-thread
// arenas (read-write mappings that start at a 64 MiB boundary), thread stacks (8 MiB mappings), other
// anonymous memory (large blocks malloc maps one by one, Qt's own), and mapped files.
struct ResidentKinds {
    long heap = 0, arenas = 0, stacks = 0, otherAnon = 0, files = 0;
};

inline ResidentKinds residentKinds()
{
    ResidentKinds r;
    std::ifstream f("/proc/self/smaps");
    std::string line;
    long *kind = nullptr;
    while (std::getline(f, line)) {
        unsigned long lo = 0, hi = 0;
        char perms[5] = {};
        char path[512] = {};
        if (std::sscanf(line.c_str(), "%lx-%lx %4s %*s %*s %*s %511s", &lo, &hi, perms, path) >= 3
            && line.find('-') < line.find(' ')) {
            const std::string p = path;
            const unsigned long size = hi - lo;
            if (p == "[heap]")
                kind = &r.heap;
            else if (!p.empty() && p[0] == '/')
                kind = &r.files;
            else if (lo % (64ul << 20) == 0) // (adjacent full arenas merge into one mapping)
                kind = &r.arenas;
            else if (size >= (8ul << 20) - 8192 && size <= (8ul << 20) + 8192)
                kind = &r.stacks;
            else
                kind = &r.otherAnon;
            continue;
        }
        if (kind && line.rfind("Rss:", 0) == 0)
            *kind += std::stol(line.substr(4));
    }
    return r;
}

// Gaps between heartbeats of a 1 ms timer: the event loop's stalls, with the GUI thread's CPU
// time in each.
struct StallMeter {
    QElapsedTimer beat, since;
    double cpuAtBeat = 0, longest = 0, longestCpu = 0, mostCpu = 0, mostCpuWall = 0;
    double mostCpuAtMs = 0; // when that gap ended, ms after start()
    std::vector<double> gaps;
    void start()
    {
        beat.start();
        since.start();
        cpuAtBeat = threadCpuMs();
        gaps.clear();
        longest = longestCpu = mostCpu = mostCpuWall = 0;
    }
    void heartbeat()
    {
        const double cpu = threadCpuMs() - cpuAtBeat;
        gaps.push_back(ms(beat));
        if (gaps.back() > longest) {
            longest = gaps.back();
            longestCpu = cpu;
        }
        if (cpu > mostCpu) {
            mostCpu = cpu;
            mostCpuWall = gaps.back();
            mostCpuAtMs = ms(since);
        }
        cpuAtBeat += cpu;
        beat.restart();
    }
    double p99()
    {
        std::sort(gaps.begin(), gaps.end());
        return gaps.empty() ? 0 : gaps[gaps.size() * 99 / 100];
    }
};

} // namespace fieldscope::bench
