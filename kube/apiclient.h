#pragma once
// ApiClient: the Qt-facing side of the transport. Lives on the thread that created it (usually
// the GUI thread, or the CLI's main thread). Results are delivered there through the event loop,
// never synchronously, and dropped when the ApiClient or the request's context object is gone.
#include "core/base/result.h"
#include "kube/http.h"
#include "kube/transport.h"

#include <QObject>
#include <QPointer>

#include <functional>
#include <memory>
#include <mutex>
#include <unordered_set>

namespace fieldscope::kube {

class ApiClient : public QObject
{
    Q_OBJECT
public:
    using Callback = std::function<void(core::Result<HttpResponse>)>;
    using RequestId = Transport::RequestId;

    explicit ApiClient(std::shared_ptr<Transport> transport, QObject *parent = nullptr);
    ~ApiClient() override;

    // Sends the request; `done` runs on this object's thread with the response, or a typed
    // error for transport failures and for non-2xx statuses (see apierror.h).
    RequestId send(HttpRequest request, QObject *context, Callback done);
    void cancel(RequestId id);

    Transport &transport() { return *m_transport; }

    // Posts `fn` to this object's thread if it is still alive; safe from any thread. Used by the
    // watch layer whose parsing runs on the network thread.
    struct Inbox {
        std::mutex mutex; // guards owner
        ApiClient *owner = nullptr;
        bool post(std::function<void()> fn);
    };
    std::shared_ptr<Inbox> inbox() const { return m_inbox; }

private:
    std::shared_ptr<Transport> m_transport;
    std::shared_ptr<Inbox> m_inbox;
    std::unordered_set<RequestId> m_inFlight; // GUI-thread only
};

} // namespace fieldscope::kube
