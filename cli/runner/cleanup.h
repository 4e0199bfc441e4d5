// xtap-run --cleanup: remove the xtap modules whose collector is gone.
#pragma once

namespace xtap::runner {

// Every loaded xtap module with no collector attached (its control file can
// be opened: a live xtap-run keeps it open, and the module allows one
// opener) is stopped and removed. Modules in use are left alone and named.
// Returns 0, or 1 if a module could not be removed.
int cleanup_orphans(bool verbose);

}  // namespace xtap::runner
