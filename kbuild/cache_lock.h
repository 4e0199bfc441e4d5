// kbuild's name for the cache entry lock (common/cache_lock.h).
#pragma once

#include "common/cache_lock.h"

namespace xtap::kbuild {

using xtap::CacheLock;

}  // namespace xtap::kbuild
