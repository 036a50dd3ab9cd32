// bench_json: the DOM at 100,000 keys and every hostile input core/ reads.
//
// Part 1: a ConfigMap with 100,000 data keys (and managedFields owning every one) parsed, shown as
// YAML, blamed and diffed. Peers in the same run: the same parse with nlohmann::ordered_json (the
// DOM before this change; at 40,000 keys, where blame took 5.3 s; 100,000 takes minutes) and
// python3's json and yaml (C loader/dumper) modules on the same text.
//
// Part 2: each hostile input in a forked child, reporting the child's CPU time and peak resident
// memory (getrusage of that child alone), against the budget of 1 s CPU and 256 MB.
//
// Plain executable printing figures; not part of ctest.
#include "core/base/json.h"
#include "core/diff/objectdiff.h"
#include "core/diff/yamldiff.h"
#include "core/history/historyexport.h"
#include "core/ownership/blame.h"
#include "core/ownership/fieldsv1.h"
#include "core/ownership/ownershiptree.h"
#include "core/yaml/yaml.h"

#include <QElapsedTimer>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

using namespace fieldscope;
using core::Json;

namespace {

double bestMs(int runs, const std::function<void()> &work)
{
    double best = 1e300;
    for (int r = 0; r < runs; ++r) {
        QElapsedTimer t;
        t.start();
        work();
        best = std::min(best, double(t.nsecsElapsed()) / 1e6);
    }
    return best;
}

// A ConfigMap with `keys` data entries of ~20 bytes, every one owned by an Apply manager.
std::string configMapText(int keys, const std::string &changedKey = {})
{
    std::string data, owned;
    for (int i = 0; i < keys; ++i) {
        const std::string k = "key-" + std::to_string(i);
        data += (i ? "," : "")
              + ("\"" + k + "\":\"value-" + std::to_string(i) + (k == changedKey ? "-changed" : "") + "\"");
        owned += (i ? "," : "") + ("\"f:" + k + "\":{}");
    }
    return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big","namespace":"prod","managedFields":[)"
           R"({"manager":"kubectl","operation":"Apply","apiVersion":"v1","time":"2026-11-24T10:00:00Z","fieldsType":"FieldsV1",)"
           R"("fieldsV1":{"f:data":{)"
         + owned + "}}}]},\"data\":{" + data + "}}";
}

void writeFile(const std::string &path, const std::string &text)
{
    std::ofstream(path, std::ios::binary) << text;
}

// Runs python3 on `script` (which prints one number, ms) against FILE; -1 when unavailable.
double pythonMs(const std::string &script, const std::string &file)
{
    const std::string cmd = "python3 -c '" + script + "' " + file + " 2>/dev/null";
    FILE *p = popen(cmd.c_str(), "r");
    if (!p)
        return -1;
    double ms = -1;
    if (std::fscanf(p, "%lf", &ms) != 1)
        ms = -1;
    pclose(p);
    return ms;
}

void part1()
{
    const int keys = 100'000;
    const std::string text = configMapText(keys);
    const std::string changed = configMapText(keys, "key-50000");
    std::printf("Part 1: ConfigMap with %d data keys, %zu bytes of JSON (best of 3)\n", keys, text.size());

    Json object, object2;
    const double parse = bestMs(3, [&] { object = core::parseJson(text).value(); });
    object2 = core::parseJson(changed).value();
    std::printf("  parse JSON (core::Json, indexed)            %9.1f ms\n", parse);

    const double before40k = bestMs(1, [&] {
        auto j = nlohmann::ordered_json::parse(configMapText(40'000));
        (void)j;
    });
    const double now40k = bestMs(3, [&] { (void)core::parseJson(configMapText(40'000)); });
    std::printf("  parse JSON, 40,000 keys: ordered_json (before) %9.1f ms, core::Json %7.1f ms: %.0fx\n", before40k,
                now40k, before40k / now40k);
    const double plain = bestMs(3, [&] {
        auto j = nlohmann::json::parse(text);
        (void)j;
    });
    std::printf("  parse JSON, nlohmann::json (std::map, key order lost) %9.1f ms\n", plain);

    std::string yaml;
    const double render = bestMs(3, [&] { yaml = core::jsonToYaml(object); });
    const double annotated = bestMs(3, [&] { (void)core::jsonToAnnotatedYaml(object); });
    std::printf("  render YAML / with line pointers           %9.1f / %.1f ms (%zu bytes)\n", render, annotated,
                yaml.size());
    const double yamlParse = bestMs(3, [&] { (void)core::yamlToJson(yaml).value(); });
    std::printf("  parse that YAML                            %9.1f ms\n", yamlParse);

    std::size_t blameBytes = 0;
    const double blame = bestMs(3, [&] {
        auto tree = core::OwnershipTree::build(object).value();
        blameBytes = core::blameText(object, tree, 1'795'000'000).size();
    });
    std::printf("  blame (ownership tree + gutter text)       %9.1f ms (%zu bytes)\n", blame, blameBytes);
    const double blameCli = bestMs(3, [&] {
        auto o = core::parseJson(text).value();
        auto tree = core::OwnershipTree::build(o).value();
        (void)core::blameText(o, tree, 1'795'000'000);
    });
    std::printf("  `fieldscope blame` work: parse + blame     %9.1f ms\n", blameCli);

    std::size_t changes = 0;
    const double diff = bestMs(3, [&] { changes = core::diffObjects(object, object2).size(); });
    std::size_t rows = 0;
    const double ydiff = bestMs(3, [&] {
        core::YamlDiffOptions o;
        o.contextLines = 3;
        rows = core::diffYaml(object, object2, o).rows.size();
    });
    std::printf("  diff (field changes / YAML side by side)   %9.1f / %.1f ms (%zu change, %zu rows)\n", diff, ydiff,
                changes, rows);

    const std::string jsonFile = "/tmp/bench_json_100k.json", yamlFile = "/tmp/bench_json_100k.yaml";
    writeFile(jsonFile, text);
    writeFile(yamlFile, yaml);
    const std::string timed = "import sys,time,json,yaml;d=open(sys.argv[1]).read();";
    const double pyJson = pythonMs(timed + "t=time.perf_counter();json.loads(d);print((time.perf_counter()-t)*1000)",
                                   jsonFile);
    const double pyYaml = pythonMs(
        timed + "t=time.perf_counter();yaml.load(d,Loader=yaml.CSafeLoader);print((time.perf_counter()-t)*1000)",
        yamlFile);
    const double pyDump =
        pythonMs(timed
                     + "o=json.loads(d);t=time.perf_counter();yaml.dump(o,Dumper=yaml.CSafeDumper,sort_keys=False);"
                       "print((time.perf_counter()-t)*1000)",
                 jsonFile);
    std::printf("  peers, python3: json.loads %.1f ms; yaml CSafeLoader %.1f ms; yaml CSafeDumper %.1f ms\n", pyJson,
                pyYaml, pyDump);
    std::remove(jsonFile.c_str());
    std::remove(yamlFile.c_str());
}

struct Hostile {
    const char *name;
    std::function<std::string()> make;                   // the input (built before the clock starts)
    std::function<std::string(const std::string &)> run; // returns the outcome for the table
};

// Forks; the child builds the input, measures its own CPU and memory before and after the work.
void runHostile(const Hostile &h)
{
    int fds[2];
    if (pipe(fds) != 0)
        return;
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        const std::string input = h.make();
        rusage before{};
        getrusage(RUSAGE_SELF, &before);
        QElapsedTimer t;
        t.start();
        const std::string outcome = h.run(input);
        const double wall = double(t.nsecsElapsed()) / 1e6;
        rusage after{};
        getrusage(RUSAGE_SELF, &after);
        auto cpu = [](const rusage &r) {
            return double(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e3
                 + double(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e3;
        };
        char line[512];
        std::snprintf(line, sizeof line, "%-52s %8.1f %8.1f %7.1f %7.1f  %s\n", h.name, cpu(after) - cpu(before), wall,
                      double(before.ru_maxrss) * 1024 / 1e6, double(after.ru_maxrss) * 1024 / 1e6,
                      outcome.substr(0, 70).c_str());
        (void)!write(fds[1], line, std::strlen(line));
        _exit(0);
    }
    close(fds[1]);
    char buf[1024];
    const ssize_t n = read(fds[0], buf, sizeof buf - 1);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (n > 0) {
        buf[n] = '\0';
        std::fputs(buf, stdout);
    } else {
        std::printf("%-52s CRASHED (status %d)\n", h.name, status);
    }
}

std::string outcome(const core::Error &e)
{
    return "refused: " + e.message;
}

template<class R>
std::string describe(const R &r)
{
    return r ? std::string("accepted") : outcome(r.error());
}

void part2()
{
    std::printf("\nPart 2: hostile inputs, one child process each (budget: 1,000 ms CPU, 256 MB)\n");
    std::printf("%-52s %8s %8s %7s %7s  %s\n", "", "CPU ms", "wall ms", "MB in", "MB max", "outcome");
    const std::string kib4(4096, 'x');
    std::vector<Hostile> cases = {
        {"YAML billion laughs: 4 KiB x 10^6 via 6 anchors",
         [&] {
             std::string s = "a: &a \"" + kib4 + "\"\n";
             char prev = 'a';
             for (char c = 'b'; c <= 'g'; ++c, ++prev) {
                 s += std::string(1, c) + ": &" + c + " [";
                 for (int i = 0; i < 10; ++i)
                     s += std::string(i ? ", *" : "*") + prev;
                 s += "]\n";
             }
             return s;
         },
         [](const std::string &in) { return describe(core::yamlToJson(in)); }},
        {"YAML 4 KiB scalar aliased 10^6 times, flat (4 MB)",
         [&] {
             std::string s = "a: &a \"" + kib4 + "\"\nb: [";
             for (int i = 0; i < 1'000'000; ++i)
                 s += i ? ",*a" : "*a";
             return s + "]\n";
         },
         [](const std::string &in) { return describe(core::yamlToJson(in)); }},
        {"YAML nested 100,000 flow sequences deep",
         [] { return std::string(100'000, '[') + std::string(100'000, ']'); },
         [](const std::string &in) { return describe(core::yamlToJson(in)); }},
        {"YAML input of tiny mappings, at the byte limit (node limit)",
         [] {
             std::string s;
             while (s.size() < core::YamlLimits{}.maxBytes - 16)
                 s += "- {a: 1}\n";
             return s;
         },
         [](const std::string &in) { return describe(core::yamlToJson(in)); }},
        {"YAML flow sequence at the node limit",
         [] {
             std::string s = "[";
             for (std::size_t i = 0; i + 1 < core::YamlLimits{}.maxNodes; ++i)
                 s += i ? ",1" : "1";
             return s + "]";
         },
         [](const std::string &in) { return describe(core::yamlToJson(in)); }},
        {"YAML plain scalar of digits at the byte limit (std::regex case)",
         [] { return "a: " + std::string(core::YamlLimits{}.maxBytes - 8, '7') + "\n"; },
         [](const std::string &in) { return describe(core::yamlToJson(in)); }},
        {"YAML at the byte limit, invalid UTF-8 in the last byte",
         [] { return "a: " + std::string(core::YamlLimits{}.maxBytes - 5, 'x') + "\xff"; },
         [](const std::string &in) { return describe(core::yamlToJson(in)); }},
        {"JSON nested 10,000,000 arrays deep (20 MB)",
         // NOLINTNEXTLINE(bugprone-string-constructor): 20 MB of brackets on purpose, the depth-limit case
         [] { return std::string(10'000'000, '[') + std::string(10'000'000, ']'); },
         [](const std::string &in) { return describe(core::parseJson(in)); }},
        {"JSON object with 1,000,000 keys (23 MB)",
         [] {
             std::string s = "{";
             for (int i = 0; i < 1'000'000; ++i)
                 s += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":1";
             return s + "}";
         },
         [](const std::string &in) {
             auto r = core::parseJson(in);
             return r ? "accepted, " + std::to_string(r->size()) + " keys" : outcome(r.error());
         }},
        {"FieldsV1 nested 100,000 deep",
         [] {
             std::string s;
             for (int i = 0; i < 100'000; ++i)
                 s += "{\"f:a\":";
             return s + "{}" + std::string(100'000, '}');
         },
         [](const std::string &in) { return describe(core::FieldSet::fromFieldsV1Text(in)); }},
        {"history .jsonl line of 64 MiB + 1 without a newline",
         [] {
             return std::string(R"({"format":"fieldscope-history","formatVersion":1})") + "\n"
                  + std::string((64u << 20) + 1, ' ');
         },
         [](const std::string &in) { return describe(core::readJsonLinesText(in)); }},
        {"history .jsonl, 10,000 lines of wrongly typed members",
         [] {
             std::string s = std::string(R"({"format":"fieldscope-history","formatVersion":1})") + "\n";
             for (int i = 0; i < 10'000; ++i)
                 s +=
                     R"({"type":"version","scope":"s","uid":"u","resourceVersion":"1","eventType":"ADDED","observedAt":"2026-07-20T09:14:03Z","object":{}})"
                     "\n";
             return s + R"({"type":"gap","scope":7})" + "\n";
         },
         [](const std::string &in) { return describe(core::readJsonLinesText(in)); }},
        {"YAML diff of two unrelated 100,000-line texts",
         [] {
             std::string s;
             for (int i = 0; i < 100'000; ++i)
                 s += "k" + std::to_string(i) + ": " + std::to_string(i % 7) + "\n";
             return s;
         },
         [](const std::string &in) {
             std::string other = in;
             for (std::size_t i = 0; i < other.size(); ++i)
                 if (other[i] >= '0' && other[i] <= '6' && other[i - 1] == ' ')
                     other[i] = char('0' + (other[i] - '0' + 3) % 7); // every 7th line still equal
             const auto d = core::diffYamlText(in, other, 3);
             return "diffed: " + std::to_string(d.changedLines) + " changed, " + std::to_string(d.rows.size())
                  + " rows";
         }},
        {"diff of a 100,000-value set list (finalizers)",
         [] {
             std::string s = R"({"metadata":{"finalizers":[)";
             for (int i = 0; i < 100'000; ++i)
                 s += (i ? ",\"f" : "\"f") + std::to_string(i) + "\"";
             return s + "]}}";
         },
         [](const std::string &in) {
             const Json a = core::parseJson(in).value();
             Json b = a;
             b["metadata"]["finalizers"].push_back("new");
             return "diffed: " + std::to_string(core::diffObjects(a, b).size()) + " change";
         }},
    };
    for (const auto &h : cases)
        runHostile(h);
}

} // namespace

int main()
{
    part1();
    part2();
    return 0;
}
