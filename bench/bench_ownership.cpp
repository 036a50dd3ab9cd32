// bench_ownership: building the per-field ownership tree (FieldsV1 decoded and joined with the
// object's values) of a typical Deployment and of a 1.5 MiB ConfigMap with 12,000 owned
// fields. The peer in the same run is parsing the same object's JSON text (nlohmann), the least
// any tool that reads the object does: the ratio says what the ownership join costs on top.
// Plain executable printing figures; not part of ctest.
#include "bigobject.h"
#include "core/base/json.h"
#include "core/ownership/ownershiptree.h"
#include "core/yaml/yaml.h"

#include <QElapsedTimer>
#include <QFile>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

using namespace fieldscope;

namespace {

// Median of ROUNDS timings of RUNS calls each, in ms per call.
double medianMs(int rounds, int runs, const std::function<void()> &work)
{
    std::vector<double> ms;
    for (int r = 0; r < rounds; ++r) {
        QElapsedTimer t;
        t.start();
        for (int i = 0; i < runs; ++i)
            work();
        ms.push_back(double(t.nsecsElapsed()) / 1e6 / runs);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

void measure(const char *what, const core::Json &object, int rounds, int runs)
{
    const std::string text = object.dump();
    std::size_t nodes = 0;
    const double tree = medianMs(rounds, runs, [&] {
        auto t = core::OwnershipTree::build(object);
        if (!t)
            std::fprintf(stderr, "build failed: %s\n", t.error().describe().c_str());
        else
            nodes = t->nodeCount();
    });
    const double parse = medianMs(rounds, runs, [&] { (void)core::parseJson(text); });
    std::printf("%-34s %9zu bytes %6zu nodes: tree %8.3f ms, parse JSON %8.3f ms, tree/parse %.2fx\n", what,
                text.size(), nodes, tree, parse, tree / parse);
}

} // namespace

int main()
{
    QFile f(QStringLiteral(FIELDSCOPE_BENCH_DEPLOYMENT));
    if (!f.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "cannot read %s\n", FIELDSCOPE_BENCH_DEPLOYMENT);
        return 1;
    }
    const QByteArray yaml = f.readAll();
    auto deployment = core::yamlToJson(std::string_view(yaml.constData(), std::size_t(yaml.size())));
    if (!deployment) {
        std::fprintf(stderr, "%s\n", deployment.error().describe().c_str());
        return 1;
    }
    std::printf("bench_ownership: median of 7 rounds\n");
    measure("Deployment (tests' fixture)", deployment->value, 7, 1000);
    measure("ConfigMap, 1.5 MiB, 12,000 owned", testing::bigConfigMapWithOwners(6000, 220), 7, 5);
    return 0;
}
