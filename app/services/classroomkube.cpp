// The class's namespaces and RBAC, made with the sandbox admin's kubeconfig (see classroom.h).
#include "app/services/classroom_p.h"
#include "app/services/classroomkube_p.h"
#include "kube/apierror.h"
#include "kube/transport.h"

#include <QDeadlineTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QThread>

#include <future>

namespace fieldscope::app::classroom_detail {

namespace {

constexpr auto kRbacGroup = "rbac.authorization.k8s.io";
// Labels every object a class makes, so a teacher (and --purge) can tell them apart.
const QJsonObject kClassLabels{{QStringLiteral("app.kubernetes.io/managed-by"), QStringLiteral("fieldscope-class")}};

// What a student may do in the class namespace: the built-in `edit` ClusterRole's namespaced
// workload resources, without Secrets (RBAC only adds, so `edit` minus Secrets is a list).
QJsonArray classNamespaceRules()
{
    const QJsonArray verbs{QStringLiteral("get"),    QStringLiteral("list"),
                           QStringLiteral("watch"),  QStringLiteral("create"),
                           QStringLiteral("update"), QStringLiteral("patch"),
                           QStringLiteral("delete"), QStringLiteral("deletecollection")};
    const auto rule = [&](const QString &group, const QStringList &resources) {
        return QJsonObject{{QStringLiteral("apiGroups"), QJsonArray{group}},
                           {QStringLiteral("resources"), QJsonArray::fromStringList(resources)},
                           {QStringLiteral("verbs"), verbs}};
    };
    return QJsonArray{
        rule(QString(),
             {QStringLiteral("configmaps"), QStringLiteral("pods"), QStringLiteral("pods/log"),
              QStringLiteral("services"), QStringLiteral("endpoints"), QStringLiteral("persistentvolumeclaims"),
              QStringLiteral("serviceaccounts"), QStringLiteral("events"), QStringLiteral("replicationcontrollers")}),
        rule(QStringLiteral("apps"),
             {QStringLiteral("deployments"), QStringLiteral("deployments/scale"), QStringLiteral("replicasets"),
              QStringLiteral("replicasets/scale"), QStringLiteral("statefulsets"), QStringLiteral("statefulsets/scale"),
              QStringLiteral("daemonsets")}),
        rule(QStringLiteral("batch"), {QStringLiteral("jobs"), QStringLiteral("cronjobs")}),
        rule(QStringLiteral("autoscaling"), {QStringLiteral("horizontalpodautoscalers")}),
        rule(QStringLiteral("networking.k8s.io"), {QStringLiteral("ingresses"), QStringLiteral("networkpolicies")}),
        rule(QStringLiteral("policy"), {QStringLiteral("poddisruptionbudgets")}),
        rule(QStringLiteral("coordination.k8s.io"), {QStringLiteral("leases")}),
        rule(QStringLiteral("discovery.k8s.io"), {QStringLiteral("endpointslices")}),
        rule(QStringLiteral("events.k8s.io"), {QStringLiteral("events")}),
    };
}

QJsonObject metadata(const QString &name, const QString &ns = {})
{
    QJsonObject m{{QStringLiteral("name"), name}, {QStringLiteral("labels"), kClassLabels}};
    if (!ns.isEmpty())
        m.insert(QStringLiteral("namespace"), ns);
    return m;
}

QByteArray roleBinding(const QString &name, const QString &ns, const QString &roleKind, const QString &role,
                       const QString &subjectKind, const QString &subject)
{
    const QJsonObject binding{
        {QStringLiteral("apiVersion"), QStringLiteral("rbac.authorization.k8s.io/v1")},
        {QStringLiteral("kind"), QStringLiteral("RoleBinding")},
        {QStringLiteral("metadata"), metadata(name, ns)},
        {QStringLiteral("roleRef"), QJsonObject{{QStringLiteral("apiGroup"), QString::fromLatin1(kRbacGroup)},
                                                {QStringLiteral("kind"), roleKind},
                                                {QStringLiteral("name"), role}}},
        {QStringLiteral("subjects"),
         QJsonArray{QJsonObject{{QStringLiteral("apiGroup"), QString::fromLatin1(kRbacGroup)},
                                {QStringLiteral("kind"), subjectKind},
                                {QStringLiteral("name"), subject}}}}};
    return QJsonDocument(binding).toJson(QJsonDocument::Compact);
}

constexpr int kTerminatingWaitMs = 60'000;

kube::HttpRequest jsonRequest(const char *method, const QString &path, const QByteArray &body = {})
{
    kube::HttpRequest request;
    request.method = method;
    request.path = path.toStdString();
    if (!body.isEmpty()) {
        request.contentType = "application/json";
        request.body = body.toStdString();
    }
    request.timeoutMs = 30'000;
    return request;
}

} // namespace

core::Result<kube::HttpResponse> blockingCall(kube::Transport &transport, kube::HttpRequest request)
{
    std::promise<core::Result<kube::HttpResponse>> promise;
    auto future = promise.get_future();
    const std::string what = request.method + " " + request.path;
    transport.start(std::move(request),
                    [&promise](core::Result<kube::HttpResponse> r) { promise.set_value(std::move(r)); });
    core::Result<kube::HttpResponse> answer = future.get();
    if (answer && !kube::isSuccess(answer->status))
        return kube::errorFromResponse(*answer, what);
    return answer;
}

core::Result<AdminClient> AdminClient::open(const QString &clusterDir)
{
    kube::ConnectionOptions options;
    options.kubeconfigPath = (clusterDir + QStringLiteral("/kubeconfig")).toStdString();
    auto connection = kube::connect(options);
    if (!connection)
        return connection.error();
    AdminClient client;
    client.m_connection = std::move(connection).value();
    return client;
}

// A namespace `class stop --purge` (or a teacher) deleted a moment ago is still Terminating while
// the namespace controller empties it: nothing can be created in it until it is gone. A class
// started right after a purge waits for that (a minute at most) and makes it anew.
core::Status AdminClient::ensureNamespace(const QString &name)
{
    const QJsonObject ns{{QStringLiteral("apiVersion"), QStringLiteral("v1")},
                         {QStringLiteral("kind"), QStringLiteral("Namespace")},
                         {QStringLiteral("metadata"), metadata(name)}};
    const QDeadlineTimer deadline(kTerminatingWaitMs);
    for (;;) {
        auto made = blockingCall(*m_connection.transport,
                                 jsonRequest("POST", QStringLiteral("/api/v1/namespaces"), QJsonDocument(ns).toJson()));
        if (made)
            return core::success();
        if (made.error().httpStatus != 409)
            return made.error();
        auto there = blockingCall(*m_connection.transport,
                                  jsonRequest("GET", QStringLiteral("/api/v1/namespaces/") + name));
        if (!there && there.error().httpStatus == 404)
            continue; // gone between the two requests
        if (!there)
            return there.error();
        const QJsonObject existing = QJsonDocument::fromJson(QByteArray::fromStdString(there->body)).object();
        if (!existing.value(QStringLiteral("metadata")).toObject().contains(QStringLiteral("deletionTimestamp")))
            return core::success(); // there and in use: the class keeps it
        if (deadline.hasExpired())
            return core::Error::make(core::ErrorCategory::Conflict,
                                     "namespace " + name.toStdString()
                                         + " is still being deleted after a minute; try again when it is gone");
        QThread::msleep(250);
    }
}

core::Status AdminClient::createOrReplace(const QString &collectionPath, const QString &name, const QByteArray &body)
{
    auto made = blockingCall(*m_connection.transport, jsonRequest("POST", collectionPath, body));
    if (made)
        return core::success();
    if (made.error().httpStatus != 409)
        return made.error();
    // RBAC objects need no resourceVersion to be replaced (their strategy allows an unconditional update).
    auto replaced = blockingCall(*m_connection.transport,
                                 jsonRequest("PUT", collectionPath + QLatin1Char('/') + name, body));
    if (!replaced)
        return replaced.error();
    return core::success();
}

core::Status AdminClient::makeClassNamespaces(const ClassState &state)
{
    const QString rbac = QStringLiteral("/apis/rbac.authorization.k8s.io/v1/namespaces/%1/");
    if (auto made = ensureNamespace(state.classNamespace); !made)
        return made;
    const QJsonObject role{
        {QStringLiteral("apiVersion"), QStringLiteral("rbac.authorization.k8s.io/v1")},
        {QStringLiteral("kind"), QStringLiteral("Role")},
        {QStringLiteral("metadata"), metadata(QStringLiteral("fieldscope-class-student"), state.classNamespace)},
        {QStringLiteral("rules"), classNamespaceRules()}};
    if (auto made = createOrReplace(rbac.arg(state.classNamespace) + QStringLiteral("roles"),
                                    QStringLiteral("fieldscope-class-student"), QJsonDocument(role).toJson());
        !made)
        return made;
    if (auto made = createOrReplace(rbac.arg(state.classNamespace) + QStringLiteral("rolebindings"),
                                    QStringLiteral("fieldscope-class-students"),
                                    roleBinding(QStringLiteral("fieldscope-class-students"), state.classNamespace,
                                                QStringLiteral("Role"), QStringLiteral("fieldscope-class-student"),
                                                QStringLiteral("Group"), QStringLiteral("fieldscope:class")));
        !made)
        return made;
    for (const ClassStudent &student : state.students) {
        if (auto made = ensureNamespace(student.ownNamespace); !made)
            return made;
        if (auto made = createOrReplace(rbac.arg(student.ownNamespace) + QStringLiteral("rolebindings"),
                                        QStringLiteral("fieldscope-class-student"),
                                        roleBinding(QStringLiteral("fieldscope-class-student"), student.ownNamespace,
                                                    QStringLiteral("ClusterRole"), QStringLiteral("edit"),
                                                    QStringLiteral("User"), student.name));
            !made)
            return made;
    }
    return core::success();
}

core::Status AdminClient::deleteClassNamespaces(const ClassState &state)
{
    QStringList names{state.classNamespace};
    for (const ClassStudent &student : state.students)
        names.append(student.ownNamespace);
    for (const QString &name : names) {
        auto deleted = blockingCall(*m_connection.transport,
                                    jsonRequest("DELETE", QStringLiteral("/api/v1/namespaces/") + name));
        if (!deleted && deleted.error().httpStatus != 404)
            return deleted.error();
    }
    return core::success();
}

int studentProbe(const QString &kubeconfigPath, const QString &loopbackServer, const QString &ns)
{
    kube::ConnectionOptions options;
    options.kubeconfigPath = kubeconfigPath.toStdString();
    auto loaded = kube::connect(options);
    if (!loaded)
        return 0;
    kube::ResolvedConfig config = loaded->config;
    config.server = loopbackServer.toStdString();
    auto connection = std::make_optional(kube::connectResolved(std::move(config), options));
    auto answer = blockingCall(*connection->transport,
                               jsonRequest("GET", QStringLiteral("/api/v1/namespaces/%1/configmaps?limit=1").arg(ns)));
    if (answer)
        return answer->status;
    return answer.error().httpStatus;
}

} // namespace fieldscope::app::classroom_detail
