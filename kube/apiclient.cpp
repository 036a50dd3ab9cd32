#include "kube/apiclient.h"

#include "kube/apierror.h"

namespace fieldscope::kube {

bool ApiClient::Inbox::post(std::function<void()> fn)
{
    std::lock_guard lock(mutex);
    if (!owner)
        return false;
    // Holding the mutex keeps ~ApiClient from completing while the event is posted.
    QMetaObject::invokeMethod(owner, std::move(fn), Qt::QueuedConnection);
    return true;
}

ApiClient::ApiClient(std::shared_ptr<Transport> transport, QObject *parent)
    : QObject(parent), m_transport(std::move(transport)), m_inbox(std::make_shared<Inbox>())
{
    m_inbox->owner = this;
}

ApiClient::~ApiClient()
{
    {
        std::lock_guard lock(m_inbox->mutex);
        m_inbox->owner = nullptr;
    }
    for (RequestId id : m_inFlight)
        m_transport->cancel(id);
}

ApiClient::RequestId ApiClient::send(HttpRequest request, QObject *context, Callback done)
{
    QPointer<QObject> ctx(context);
    const bool hasContext = context != nullptr;
    auto inbox = m_inbox;
    auto idHolder = std::make_shared<RequestId>(0);
    const std::string what = request.method + " " + request.path;
    const RequestId id = m_transport->start(std::move(request), [inbox, ctx, hasContext, done = std::move(done),
                                                                 idHolder, what](core::Result<HttpResponse> r) mutable {
        if (r.ok() && !isSuccess(r->status))
            r = core::Result<HttpResponse>(errorFromResponse(*r, what));
        inbox->post([inbox, ctx, hasContext, done = std::move(done), r = std::move(r), idHolder]() mutable {
            if (inbox->owner)
                inbox->owner->m_inFlight.erase(*idHolder);
            if (hasContext && !ctx)
                return; // the requester is gone: drop the result
            done(std::move(r));
        });
    });
    *idHolder = id;
    m_inFlight.insert(id);
    return id;
}

void ApiClient::cancel(RequestId id)
{
    m_inFlight.erase(id);
    m_transport->cancel(id);
}

} // namespace fieldscope::kube
