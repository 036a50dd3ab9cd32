#pragma once
// ObjectDetail: what the detail pane shows for one object version, computed in one pass by a
// pure function meant for a worker thread (a 1 MiB object takes a while to parse, render as
// YAML and join with its managedFields), handed to the GUI thread by value.
#include "core/ownership/ownershiptree.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QVector>

namespace fieldscope::models {

struct ObjectDetail {
    QString error; // the object did not parse; everything else is empty then

    // Summary
    QString kind, apiVersion, name, namespace_, uid, resourceVersion, created;
    qint64 generation = 0;
    QStringList labels, annotations, ownerReferences, finalizers;
    QStringList conditions; // "Available=True (MinimumReplicasAvailable)"

    // YAML without metadata.managedFields, and for each line the owning managedFields entries
    // (indices into tree.entries()), as the ownership gutter draws them.
    QString yaml;
    QVector<QVector<int>> lineOwners;
    QStringList managerLabels; // per entry: "kubectl(Apply)"
    QStringList managerNames;  // per entry: "kubectl"
    QStringList linePointers;  // per YAML line: the JSON pointer it shows ("" for none), for tree<->YAML sync

    core::OwnershipTree tree;
};

// Thread-safe; never throws.
ObjectDetail buildObjectDetail(const QByteArray &json);

} // namespace fieldscope::models
