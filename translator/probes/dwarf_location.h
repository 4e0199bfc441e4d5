// C for where DWARF puts a variable at a probe's address: the parts of
// dwarf_function.cpp's context variables that read memory, and the
// translation of computed locations (DwarfVar::Computed, DW_OP_piece and
// the DWARF stack machine) into C expressions a handler evaluates.
#pragma once

#include <string>

#include "probes/provider.h"
#include "symbols/dwarf.h"

namespace xtap {

// The argument slot (0-5: rdi rsi rdx rcx r8 r9) of x86-64 DWARF register
// `reg`, or -1 for a register that passes no argument.
int argument_slot(int reg);

// A variable of type `t` in memory at `addr` (a u64 C expression): a
// scalar is loaded, an array or a struct is read through its address; in
// both cases the variable is a place at `addr`; in the probed program's
// memory when `user` (process probes).
void in_memory_at(const KType &t, const std::string &addr, ContextVar *cv, bool user = false);

// A Computed variable as a context variable: its value (or, for one piece
// in memory, its place) as C. `entry_frame` is as context_var_of's.
// Sets cv->unavailable for what the C cannot hold (a struct split over
// registers).
void computed_context_var(const TypeTable &types, const DwarfVar &v, const std::string &entry_frame,
                          bool user, ContextVar *cv);

}  // namespace xtap
