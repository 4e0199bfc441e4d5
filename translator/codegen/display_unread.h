// Pass 3: an extra end handler that prints globals written but never read.
#pragma once

#include <string>

#include "parse/ast.h"

namespace xtap {

// The handler `name` and its lock table, or "" when no global needs it.
std::string emit_unread_display(const Script &s, const std::string &name, std::string *lock_table,
                                size_t *nlocks);

}  // namespace xtap
