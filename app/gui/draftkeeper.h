#pragma once
// DraftKeeper: keeps an editor window's unsent text on disk (core::DraftStore) while the user
// types, so a crash loses at most the last second of it; removes the draft once the text is
// written, or the window is closed for good. A child of its window: it stays with a detached
// window whose connection is gone. File work runs on one worker thread, in order.
// Lives on the GUI thread.
#include "core/edit/drafts.h"

#include <QObject>
#include <QPointer>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>

namespace fieldscope::widgets {
class EditorWindow;
}

namespace fieldscope::app {

class DraftKeeper : public QObject
{
    Q_OBJECT
public:
    // `cluster`: the cluster identity (app's clusterIdentityOf) drafts are kept under; a uid is
    // only unique within one cluster. `legacyContext`: the context name earlier versions kept
    // this object's draft under; such a draft moves to `cluster` when loaded (and is offered).
    // keepOnDisk = false: nothing of the buffer is written (a Secret without the opt-in to record
    // its values, README.md "Security"); the window says so, and a draft an earlier run left is still offered.
    DraftKeeper(widgets::EditorWindow *window, std::shared_ptr<core::DraftStore> store, std::string cluster,
                std::string uid, std::string title, bool keepOnDisk = true, std::string legacyContext = {});

    // The draft left by an earlier run, if any (read on the worker thread), then `done` here.
    // While the window offers it (its restore question open), the draft stays on disk: closing
    // the window does not delete it, and edits typed meanwhile are kept in its place (and it
    // comes back if they are undone).
    void loadThen(std::function<void(std::optional<core::EditDraft>)> done);
    // From here on every edit is kept (before: the restore question is still open).
    void arm();
    void discard(); // the stored draft goes; edits from here on are kept

private:
    void keepNow();
    // Runs `work` on the drafts thread; a failure shows in the window (save: "not kept").
    void run(std::function<core::Status(core::DraftStore &)> work, bool isSave = false);

    QPointer<widgets::EditorWindow> m_window;
    std::shared_ptr<core::DraftStore> m_store;
    std::string m_context, m_uid, m_title, m_legacyContext;
    std::optional<core::EditDraft> m_offered; // the loaded draft while its restore question is open
    QTimer m_debounce;
    bool m_armed = false;
    bool m_keepOnDisk = true;
    bool m_saveFailed = false; // the shown problem is a failed save (cleared by the next good one)
};

} // namespace fieldscope::app
