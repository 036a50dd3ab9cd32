#pragma once
// Timing helpers of the GUI benchmarks (bench_table, bench_window): milliseconds, the calling
// thread's CPU time, resident memory, and the event loop's stalls.
#include <QElapsedTimer>

#include <algorithm>
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
