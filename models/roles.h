#pragma once
// Item data roles of the fieldscope_models library, in one place so views, delegates and proxies
// agree (house style: one roles header per models library). Values start above Qt::UserRole and
// stay clear of ObjectTableModel's private range (Qt::UserRole + 100...).
#include <Qt>

namespace fieldscope::models {

enum Role {
    FieldPathRole = Qt::UserRole + 1, // QString: server-syntax path (".spec.containers[name=\"a\"].image")
    JsonPointerRole,                  // QString: "/spec/containers/0/image"; empty when absent
    PresentRole,                      // bool: the live object has this field
    OwnerLabelsRole,                  // QStringList: "kubectl(Apply)", one per owner, managedFields order
    ManagerNamesRole,                 // QStringList: manager names of the owners
    InheritedOwnershipRole,           // bool: every owner owns it only through an atomic ancestor
    ManagerColorRole,                 // QColor: first owner's (or the legend row's) colour, current tone
    OwnerColorsRole,                  // QVariantList of QColor: one per owner, current tone
    LastChangedRole,                  // QDateTime (UTC): latest time among the owners; invalid if none
    EntryIndexRole,                   // int: index into metadata.managedFields (legend rows)
    FieldCountRole,                   // int: member paths of the entry (legend rows)
    SortRole,                         // a value that sorts naturally (times as epoch seconds)
    DriftRole,                        // QString: the field's drift ("applied by X: V; now Y by Z"); empty when none
};

} // namespace fieldscope::models
