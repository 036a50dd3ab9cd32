// core/base/boundary.h: what a worker or a thread we own throws becomes a core::Error on the reading
// side, never std::terminate. Each case runs the throw on a real worker thread.
#include "core/base/boundary.h"
#include "core/base/json.h"

#include <QTest>
#include <QThread>
#include <QtConcurrent/QtConcurrentRun>

#include <new>
#include <stdexcept>
#include <thread>

using namespace fieldscope::core;

namespace {

// The nlohmann exception a lesson file used to end the process with: operator[] on a string.
int throwTypeError()
{
    Json j = "not-a-mapping";
    j["metadata"]["resourceVersion"] = "1";
    return 0;
}

template<typename F>
auto finished(F work)
{
    auto future = QtConcurrent::run(std::move(work));
    // Not waitForFinished(): it rethrows the worker's exception, as result() does. The window
    // reads a future from its QFutureWatcher's finished() signal.
    while (!future.isFinished())
        QThread::msleep(1);
    return future;
}

} // namespace

class TestBoundary : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void aWorkersExceptionBecomesAnErrorNamingIt_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("expected");
        QTest::newRow("bad_alloc") << 0 << QStringLiteral("history load failed: out of memory");
        QTest::newRow("nlohmann type_error")
            << 1 << QStringLiteral("history load failed: [json.exception.type_error.305]");
        QTest::newRow("runtime_error") << 2 << QStringLiteral("history load failed: the disk said no");
        QTest::newRow("int") << 3 << QStringLiteral("history load failed: unknown exception");
    }
    void aWorkersExceptionBecomesAnErrorNamingIt()
    {
        QFETCH(int, kind);
        QFETCH(QString, expected);
        auto future = finished([kind]() -> int {
            switch (kind) {
            case 0: throw std::bad_alloc();
            case 1: return throwTypeError();
            case 2: throw std::runtime_error("the disk said no");
            default: throw 42;
            }
        });
        const Result<int> r = takeResult(future, "history load");
        QVERIFY(!r.ok());
        QVERIFY2(QString::fromStdString(r.error().message).startsWith(expected), r.error().message.c_str());
    }

    void aWorkersValueAndItsOwnErrorPassThrough()
    {
        QCOMPARE(takeResult(finished([] { return 7; }), "count").value(), 7);
        auto failing = finished([]() -> Result<std::string> {
            return Error::make(ErrorCategory::NotFound, "no such object");
        });
        const Result<std::string> r = takeResult(failing, "read"); // not nested: Result<Result<...>>
        QVERIFY(!r.ok());
        QCOMPARE(r.error().category, ErrorCategory::NotFound);
        QCOMPARE(r.error().message, std::string("no such object"));
    }

    // A member future a destructor waits for: reading it must leave it waitable (a taken future's
    // waitForFinished() never returned, and every window hung on quit).
    void readResultLeavesTheFutureWaitable()
    {
        auto future = finished([] { return std::string("contexts"); });
        QCOMPARE(readResult(future, "reading kubeconfig").value(), std::string("contexts"));
        QVERIFY(future.isValid());
        future.waitForFinished();
        QCOMPARE(readResult(future, "again").value(), std::string("contexts"));
        auto failing = finished([]() -> int { throw std::runtime_error("unreadable"); });
        QVERIFY(!readResult(failing, "reading kubeconfig").ok());
        QVERIFY(failing.isValid());
    }

    void aCancelledFutureWithoutAResultIsCancelled()
    {
        QFutureInterface<int> promise;
        promise.reportStarted();
        promise.cancel();
        promise.reportFinished();
        const Result<int> r = takeResult(promise.future(), "prepare");
        QVERIFY(!r.ok());
        QCOMPARE(r.error().category, ErrorCategory::Cancelled);
    }

    void aThreadBodyThatThrowsEndsWithAnError_data() { aWorkersExceptionBecomesAnErrorNamingIt_data(); }
    void aThreadBodyThatThrowsEndsWithAnError()
    {
        QFETCH(int, kind);
        QFETCH(QString, expected);
        Status outcome = success();
        // A std::thread whose function throws is std::terminate: guarded() is its last line.
        std::thread t([&] {
            outcome = guarded("history load", [kind] {
                switch (kind) {
                case 0: throw std::bad_alloc();
                case 1: (void)throwTypeError(); return;
                case 2: throw std::runtime_error("the disk said no");
                default: throw 42;
                }
            });
        });
        t.join();
        QVERIFY(!outcome.ok());
        QVERIFY2(QString::fromStdString(outcome.error().message).startsWith(expected), outcome.error().message.c_str());
    }

    void guardedPassesValuesAndResultsThrough()
    {
        QCOMPARE(guarded("x", [] { return 3; }).value(), 3);
        const Result<int> r = guarded("x", []() -> Result<int> { return Error::make(ErrorCategory::Io, "disk"); });
        QCOMPARE(r.error().message, std::string("disk"));
        QVERIFY(guarded("x", [] {}).ok());
    }
};

QTEST_GUILESS_MAIN(TestBoundary)
#include "tst_boundary.moc"
